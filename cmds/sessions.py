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

    When none is listed, stderr says so and how sessions are captured
    (the list on stdout stays empty).

    Exit status: 0 ok (also none listed); 10 no store.
    """
    from objstore import list_sessions
    rows = [s for s in list_sessions(store) if project is None or s.project == project]
    if as_json:
        emit_json([{"id": s.id, "project": s.project, "started": s.started, "last": s.last,
                    "turns": s.turns, "head": s.head, "damaged": s.damaged} for s in rows])
        return
    if not rows:   # (a first-day user saw nothing at all: ux36)
        click.echo(safe(f"no sessions of project {project}: mem sessions lists them all") if project else
                   "no sessions captured yet: the hooks capture them (mem setup), or mem import "
                   "claude-code reads past transcripts", err=True)
    wid = max((len(s.id) for s in rows), default=0)
    pwid = max((len(s.project or "-") for s in rows), default=0)
    for s in rows:
        note = "  (damaged: mem fsck --repair)" if s.damaged else ""
        click.echo(safe(f"{s.id:<{wid}}  {s.project or '-':<{pwid}}  {fmt_time(s.started)}  "
                        f"{plural(s.turns, 'turn'):>10}{note}"))
