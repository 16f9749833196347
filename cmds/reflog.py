"""mem reflog."""

import click

from ._common import complete_key, emit_json, fmt_time, json_option, with_store


@click.command("reflog")
@click.argument("ref", required=False, shell_complete=complete_key)
@click.option("-n", "--max-count", "limit", type=click.IntRange(1), default=None, help="Show at most N moves.")
@json_option
@with_store()
def command(ref, limit, as_json, store):
    """Show every move of a ref (old -> new id, time, command), newest first.

    REF is a key (project/api/db) or a ref name (facts/…, sessions/ID,
    queue/ID, tombstones/ID); without it, the moves of every ref.  A move
    whose old and new ids are equal records a use (an injection or a
    reinforce), not a change; "(rewritten)" marks a forget's history
    rewrite, whose reflog names no id the rewrite removed.  Reflogs hold ids, never values.

    \b
    Examples:
      mem reflog project/api/db
      mem reflog sessions/0f3c2a…
      mem reflog -n 20 --json

    A reflog file holding a damaged line (garbage, a line cut short) is
    damage, not "no reflog": REF's exits 13 naming the file and its lines
    ('mem fsck --repair' sets it aside, keeping its readable lines); without
    REF it is skipped with a warning.

    Exit status: 0 ok; 2 a bad key or ref name; 4 the ref has no reflog;
    10 no store; 13 the ref's reflog file is damaged.
    """
    from objstore import REWRITE_NOTE, reflog
    moves = reflog(store, ref, limit=limit)
    if as_json:
        emit_json([{"ref": m.ref, "old": m.old, "new": m.new, "time": m.time, "command": m.command}
                   for m in moves])
        return
    for m in moves:
        # a forget's rewrite replaced the ref's reflog: its zero old id is no creation (fresh41 F14)
        old = m.old[:12] if m.old else "(rewritten)" if m.command.endswith(REWRITE_NOTE) else "(created)"
        new = m.new[:12] if m.new else "(deleted)"
        what = "" if ref else f"{m.ref}  "
        click.echo(f"{fmt_time(m.time)}  {what}{old} -> {new}  {m.command}")
