"""The ``mem`` console script.

A new process pays only for what it runs: ``mem hook claude-code`` goes to
:mod:`cmds._hookrun` and the commands an agent runs (``get``, ``recall``,
``search``, ``remember``, ``context``, ``--help``) to :mod:`cmds.lean`, both
without click; every other command line, and whatever the lean path does not
fully understand, goes to the click CLI (:func:`cmds.main.entry`).
"""

import sys


def _exit(code: int) -> None:
    """Leave with ``code`` once the command is done, skipping the
    interpreter's teardown when nothing needs it: stdout and stderr are
    flushed, then ``os._exit`` when no atexit callback is registered and no
    non-daemon thread is running; ``sys.exit`` otherwise (also when a flush
    fails, so a closed pipe is reported as usual).  The teardown frees every
    module and object one by one, which joins tantivy's reader threads
    (three per open index generation, 54 on a recall): ~7-10 ms of CPU and
    up to ~100 ms of wall time on a busy machine (docs/benchmarks.md)."""
    import atexit
    import os
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - the ordinary exit reports it
        sys.exit(code)
    threading = sys.modules.get("threading")
    busy = threading is not None and any(not t.daemon for t in threading.enumerate()
                                         if t is not threading.main_thread())
    if atexit._ncallbacks() or busy:
        sys.exit(code)
    os._exit(code & 0xFF if isinstance(code, int) else 1)


def entry() -> None:
    """``mem``: the hook fast path, the lean path, else the click CLI."""
    argv = sys.argv[1:]
    if argv == ["hook", "claude-code"]:
        from cmds._hookrun import run_claude_code
        _exit(run_claude_code())
    if len(argv) == 4 and argv[0] == "--home" and argv[2:] == ["hook", "claude-code"]:  # a custom store
        import os
        from cmds._hookrun import run_claude_code
        _exit(run_claude_code(env={**os.environ, "MEM_HOME": argv[1]}))
    from cmds.lean import main as lean_main
    code = lean_main(argv)
    if code is not None:
        _exit(code)
    from cmds.main import entry as cli_entry
    cli_entry()
