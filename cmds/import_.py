"""mem import."""

import click

from ._common import emit_json, json_option, progress_bar, with_store


@click.command("import")
@click.argument("harness", type=click.Choice(["claude-code"]))
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@json_option
@with_store(create=True)
def command(harness, paths, as_json, store):
    """Import agent transcripts as sessions of turns.

    PATHS are transcript files or folders (a whole ~/.claude/projects tree,
    one project folder, or single .jsonl files); subagent transcripts are
    found in all three layouts.  Importing the same files again adds
    nothing.  A bad line is skipped and counted, never fatal.  Tool results
    are cut to 4,000 characters.

    \b
    Examples:
      mem import claude-code ~/.claude/projects
      mem import claude-code session.jsonl --json

    Exit status: 0 ok (even with skipped lines); 2 bad path; 11 store locked.
    """
    from objstore.sessions import import_claude_code
    with progress_bar("importing") as update:
        r = import_claude_code(store, paths, progress=update)
    if as_json:
        emit_json({"harness": harness, "files": r.files, "sessions": r.sessions, "sessions_new": r.sessions_new,
                   "turns_added": r.turns_added, "turns_seen": r.turns_seen, "lines": r.lines,
                   "lines_skipped": r.lines_skipped, "records_ignored": r.records_ignored})
        return
    click.echo(f"imported {r.turns_added} new turns from {r.files} files "
               f"({r.sessions} sessions, {r.sessions_new} new; {r.turns_seen - r.turns_added} turns already stored)")
    if r.lines_skipped:
        click.echo(f"skipped {r.lines_skipped} bad lines (not JSON, truncated or invalid text)", err=True)
