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
                    "turns": s.turns, "head": s.head} for s in rows])
        return
    for s in rows:
        click.echo(safe(f"{s.id:<36}  {s.project or '-':<20}  {fmt_time(s.started)}  {plural(s.turns, 'turn'):>10}"))
