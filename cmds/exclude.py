"""mem exclude."""

import os
import sys

import click

from ._common import emit_json, home_path, json_option, plural, with_store


@click.command("exclude")
@click.option("--add", "add", metavar="GLOB", help="Preview (and with --apply, add) an exclusion.")
@click.option("--remove", "remove", metavar="GLOB", help="Remove an exclusion.")
@click.option("--list", "do_list", is_flag=True, help="List the exclusions in force.")
@click.option("--apply", is_flag=True, help="With --add: write it to the config.")
@click.option("--forget", "do_forget", is_flag=True,
              help="With --add --apply: also forget the sessions already stored from there (no question).")
@json_option
@with_store()
def command(add, remove, do_list, apply, do_forget, as_json, store):
    """Keep projects out of capture: preview, add, list and remove exclusion globs.

    A glob is matched against a session's working directory (a pattern also
    covers everything below it, and DIR/** covers DIR itself; ~ is
    expanded).  --add GLOB shows which
    sessions and projects already stored it matches, and how many turns;
    with --apply it is written to [capture] exclude of the store's
    config.toml and, on a terminal, you are asked whether to forget what is
    already stored (--forget forgets without asking).  Nothing is captured
    from an excluded directory afterwards.

    \b
    Examples:
      mem exclude --list
      mem exclude --add '~/clients/secret/**'
      mem exclude --add '~/clients/secret/**' --apply --forget
      mem exclude --remove '~/clients/secret/**'

    Changing what is captured is the person's decision: --apply and
    --remove run by an agent (CLAUDECODE, Codex's variables or MEM_AGENT
    set) are refused with exit 6; the preview works for anyone.

    A glob holding a credential is refused (exit 2, never echoed: the
    config file keeps it in the clear); --remove takes one out.

    Exit status: 0 ok; 2 no action, a blank glob or one holding a credential; 1 the config cannot be
    edited; 6 --apply/--remove run by an agent; 10 no store.
    """
    from objstore import NotFound, add_exclusion, exclusion_preview, forget, list_exclusions, remove_exclusion
    root = home_path(click.get_current_context())
    if sum(map(bool, (add, remove, do_list))) != 1:
        raise click.UsageError("give one of --list, --add GLOB or --remove GLOB")
    if (apply or do_forget) and not add:
        raise click.UsageError("--apply and --forget go with --add")
    if apply or remove:  # what is captured (and forgetting it) is the person's choice, as mem forget
        from objstore import require_person
        require_person(os.environ, "mem exclude --remove" if remove else "mem exclude --apply",
                       instead="preview it (mem exclude --add GLOB) and ask the user to apply it")
    if do_list:
        globs = list_exclusions(root)
        globs = [_shown(g) for g in globs]   # one written by hand holding a credential: not echoed
        if as_json:
            emit_json(globs)
        else:
            click.echo("\n".join(globs) if globs else "no exclusions (everything is captured)")
        return
    if remove:
        done = remove_exclusion(root, remove)
        if as_json:
            emit_json({"removed": done, "glob": _shown(remove)})
        else:
            click.echo(f"removed {_shown(remove)}" if done else f"{_shown(remove)} was not excluded; nothing changed")
        return
    pv = exclusion_preview(store, add)
    added = forgotten = False
    deleted = 0   # objects the forgets deleted (test25 T10: they are gone now, no gc needed)
    if apply:
        added = add_exclusion(root, add)
        if pv.sessions and (do_forget or (not as_json and sys.stdin.isatty() and click.confirm(
                f"forget the {plural(len(pv.sessions), 'session')} already stored from there?", err=True))):
            for sid, *_ in pv.sessions:
                try:
                    deleted += forget(store, session=sid).objects_deleted
                except NotFound:  # a subagent session goes with its parent
                    pass
            forgotten = True
    if as_json:
        emit_json({"glob": add, "applied": apply, "added": added, "forgotten": forgotten,
                   "projects": pv.projects, "turns": pv.turns,
                   "sessions": [{"id": s, "project": p, "cwd": c, "turns": n} for s, p, c, n in pv.sessions]})
        return
    if pv.sessions:
        click.echo(f"{add} matches {plural(len(pv.sessions), 'stored session')} "
                   f"({plural(pv.turns, 'turn')}) of {', '.join(pv.projects) or 'no named project'}:")
        for s, p, c, n in pv.sessions:
            click.echo(f"  {s}  {p or '-'}  {c}  ({plural(n, 'turn')})")
    else:
        click.echo(f"{add} matches no stored session")
    if not apply:
        click.echo("preview only: add --apply to exclude it from capture", err=True)
    else:
        click.echo(f"excluded {add} from capture" if added else f"{add} was already excluded")
        if pv.sessions and not forgotten:
            click.echo("what is already stored stays; forget it with: mem forget --session ID", err=True)
        elif forgotten:
            click.echo(f"forgot {plural(len(pv.sessions), 'session')} ({plural(pv.turns, 'turn')}): "
                       f"{plural(deleted, 'object')} deleted, search index purged")


def _shown(glob: str) -> str:
    """A glob for output: one holding a credential reads ``(a glob holding a
    credential, not shown)`` (``objstore.path_holds_credential``)."""
    from objstore import path_holds_credential
    return "(a glob holding a credential, not shown)" if path_holds_credential(glob) else glob
