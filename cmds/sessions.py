"""mem sessions."""

import click

from ._common import emit_json, fmt_time, json_option, plural, safe, with_store


@click.command("sessions")
@click.option("--project", help="Only sessions of this project.")
@json_option
@with_store()
def command(project, as_json, store):
    """List captured sessions.

    One line per session: id, project, start time, number of turns.
    'mem show SESSION' prints a session's turns in order.

    \b
    Examples:
      mem sessions
      mem sessions --project api --json

    Exit status: 0 ok; 10 no store.
    """
    from objstore import list_sessions
    rows = [s for s in list_sessions(store) if project is None or s.project == project]
    if as_json:
        emit_json([{"id": s.id, "project": s.project, "started": s.started, "last": s.last,
                    "turns": s.turns, "head": s.head, "damaged": s.damaged} for s in rows])
        return
    wid = max((len(s.id) for s in rows), default=0)
    pwid = max((len(s.project or "-") for s in rows), default=0)
    for s in rows:
        note = "  (damaged: mem fsck --repair)" if s.damaged else ""
        click.echo(safe(f"{s.id:<{wid}}  {s.project or '-':<{pwid}}  {fmt_time(s.started)}  "
                        f"{plural(s.turns, 'turn'):>10}{note}"))
