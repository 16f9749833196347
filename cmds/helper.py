"""mem helper."""

import os

import click

from ._common import emit_json, exit_with, home_path, json_option


@click.group("helper")
def command():
    """Start, stop or inspect the store's resident helper.

    The helper is a process per store that keeps mem's modules imported and
    the search index open, and runs get, recall, search, context, remember
    and the prompt hook for the mem command, which then answers in a few
    milliseconds instead of paying a new process's start-up.  It is only an
    accelerator: every command prints the same without it, and falls back
    to running itself when the helper is absent, stuck, or of another
    version.  It listens on a Unix socket in the store (<store>/run, owner
    only), exits after helper.idle_minutes without a request (default 15),
    when the store is removed, or on stop.  Its greeting names its store
    (the root's device and inode): status, stop and every command talk only
    to this store's helper, never to one a linked socket leads to.  The
    session-start hook starts it
    unless helper.autostart is false; MEM_NO_HELPER=1 neither uses nor
    starts one.

    \b
    Examples:
      mem helper start
      mem helper status
      mem helper stop
      mem config helper.autostart false

    Exit status: 0 ok; 1 the helper did not start or stop in time;
    3 (status) no helper is running; 10 no store.
    """


def _root(ctx) -> str:
    from objstore import open_store
    root = str(home_path(ctx))
    open_store(root).close()   # StoreNotFound (exit 10) when there is none
    return root


def _status(root: str) -> dict:
    from objstore import helper_running
    from ._helperclient import connect, source_stamp
    notes: list = []
    got = connect(root, timeout=2.0, notes=notes)
    if got is None:
        return {"running": helper_running(root), "answering": False, "pid": None, "current": None,
                "socket": os.path.join(root, "run", "helper.sock"), "foreign": bool(notes)}
    conn, pid, stamp = got
    conn.sock.close()
    return {"running": True, "answering": True, "pid": pid, "current": stamp == source_stamp(),
            "stamp": stamp.decode("ascii", "replace"), "socket": os.path.join(root, "run", "helper.sock"),
            "foreign": False}


def _foreign_note(st: dict) -> None:
    if st.get("foreign"):
        click.echo(f"note: {st['socket']} answers for another store's helper (a link?): it is ignored; "
                   "remove it, and 'mem helper start' makes this store's own", err=True)


def _wait(pred, seconds: float) -> bool:
    import time
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


@command.command("start")
@click.option("--wait/--no-wait", default=True, show_default=True, help="Wait until it answers (up to 10 s).")
@json_option
@click.pass_context
def start(ctx, wait, as_json):
    """Start the helper in the background (nothing happens if one runs).

    \b
    Examples:
      mem helper start
      mem helper start --no-wait

    Exit status: 0 running; 1 it did not answer within 10 s; 10 no store.
    """
    from ._helperclient import start_detached
    root = _root(ctx)
    st = _status(root)
    if not (st["answering"] and st["current"]):
        if st["answering"]:   # another version: it steps aside
            from ._helperclient import connect, send_op
            got = connect(root, timeout=2.0)
            if got is not None:
                send_op(got[0], b"X")
                got[0].sock.close()
            from objstore import helper_running
            _wait(lambda: not helper_running(root), 5.0)
        start_detached(root)
        if wait:
            _wait(lambda: _status(root)["answering"], 10.0)
        st = _status(root)
    if as_json:
        emit_json(st)
    elif st["answering"]:
        click.echo(f"helper running (pid {st['pid']})")
    elif not wait:
        click.echo("helper starting")
    else:
        click.echo("the helper did not answer within 10 s", err=True)
    exit_with(0 if st["answering"] or not wait else 1)


@command.command("stop")
@json_option
@click.pass_context
def stop(ctx, as_json):
    """Stop the helper (commands run in their own process again).

    \b
    Examples:
      mem helper stop

    Exit status: 0 stopped or none was running; 1 it did not stop within 5 s; 10 no store.
    """
    from objstore import helper_running
    from ._helperclient import connect, send_op
    root = _root(ctx)
    notes: list = []
    got = connect(root, timeout=2.0, notes=notes)   # only this store's helper: never one a link leads to
    was = got is not None
    if got is not None:
        send_op(got[0], b"S")
        got[0].frame(5.0)
        got[0].sock.close()
    ok = _wait(lambda: not helper_running(root), 5.0)
    if as_json:
        emit_json({"stopped": was and ok, "running": not ok, "foreign": bool(notes)})
    else:
        click.echo(("helper stopped" if was else "no helper was running") if ok else "the helper did not stop")
        _foreign_note({"foreign": bool(notes), "socket": os.path.join(root, "run", "helper.sock")})
    exit_with(0 if ok else 1)


@command.command("status")
@json_option
@click.pass_context
def status(ctx, as_json):
    """Say whether the helper runs, its pid, and whether it is of this mem's version.

    \b
    Examples:
      mem helper status
      mem helper status --json

    Exit status: 0 running and answering; 3 not running (or not answering); 10 no store.
    """
    root = _root(ctx)
    st = _status(root)
    if as_json:
        emit_json(st)
    elif st["answering"]:
        click.echo(f"helper running (pid {st['pid']}), "
                   + ("this version" if st["current"] else "another version: it exits at the next command"))
    elif st["running"]:
        click.echo("helper starting or busy (its lock is held, it did not answer)")
    else:
        click.echo("no helper running")
    if not as_json:
        _foreign_note(st)
    exit_with(0 if st["answering"] else 3)


@command.command("serve", hidden=True)
@click.option("--idle", type=float, default=None, help="Seconds without a request before it exits.")
@click.pass_context
def serve(ctx, idle):
    """Run the helper in this process (what start runs, detached).

    \b
    Examples:
      mem helper serve --idle 60

    Exit status: 0 when it stops (idle, stopped, store removed); 10 no store.
    """
    from objstore import config_read
    from ._helperserve import serve as run
    root = _root(ctx)
    if idle is None:
        try:
            idle = float(config_read(root)["helper.idle_minutes"]) * 60
        except Exception:  # noqa: BLE001 - an unreadable config: the default
            idle = 900.0
    why = run(root, idle)
    click.echo(f"helper stopped: {why}", err=True)
