"""mem remember."""

import sys

import click

from ._common import complete_key, TimeType, emit_json, json_option, with_store


@click.command("remember")
@click.argument("key", shell_complete=complete_key)
@click.argument("text")
@click.option("--kind", type=click.Choice(["user", "feedback", "project", "reference"]),
              help="Kind of fact (default: from the scope, or the current version's kind).")
@click.option("--trust", type=click.Choice(["user_stated", "agent_observed", "derived"]),
              default="user_stated", show_default=True, help="Who vouches for the value.")
@click.option("--sensitivity", type=click.Choice(["public", "private"]), default="private",
              show_default=True, help="How widely the value may be shown.")
@click.option("--valid-from", type=TimeType(), help="When the value starts to hold (ISO 8601 or 'now'; default now).")
@click.option("--expect", metavar="ID", help="Only write if the current head is ID ('none': key must be new).")
@click.option("--pin/--no-pin", default=None, help="Pin the fact (default: keep the current pin).")
@json_option
@with_store(create=True)
def command(key, text, kind, trust, sensitivity, valid_from, expect, pin, as_json, store):
    """Write a new version of KEY; the old value stays in the log.

    KEY is <scope>/<name> with scope user, global or project/<name>.
    TEXT '-' reads the value from standard input.  A value and kind
    identical to the head's writes nothing and says so.
    A value that was forgotten is refused unless --trust user_stated.

    \b
    Examples:
      mem remember project/api/db "postgres 16 on port 5433"
      mem remember user/editor "neovim" --kind user
      mem remember project/api/db "postgres 17" --expect 8c1f2a3b

    Exit status: 0 written or unchanged; 2 invalid key or text;
    5 --expect did not match (nothing written); 6 refused (forgotten value);
    11 store locked.
    """
    from objstore.facts import remember
    if text == "-":
        text = sys.stdin.read()
        text = text[:-1] if text.endswith("\n") else text
    r = remember(store, key, text, kind=kind, trust=trust, valid_from=valid_from, expect=expect,
                 sensitivity=sensitivity, pinned=pin)
    f = r.version.fact
    if r.index_error:
        click.echo(f"warning: written, but the search index was not updated: {r.index_error}\n"
                   "hint: run 'mem reindex'", err=True)
    if as_json:
        emit_json({"key": r.key, "written": r.written, "id": r.version.id, "version": f.version,
                   "previous": r.previous, "current": r.current})
        return
    if not r.written:
        click.echo(f"unchanged: {r.key} v{f.version} already holds this value ({r.version.id[:12]})")
    elif r.current != r.version.id:
        click.echo(f"wrote {r.key} v{f.version} {r.version.id[:12]} (backfill: the current value "
                   f"is still {r.current[:12]}, valid from later)")
    else:
        click.echo(f"wrote {r.key} v{f.version} {r.version.id[:12]}")
