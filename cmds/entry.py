"""The ``mem`` console script.

A new process pays only for what it runs: ``mem hook claude-code`` goes to
:mod:`cmds._hookrun` and the commands an agent runs (``get``, ``recall``,
``search``, ``remember``, ``context``, ``--help``) to :mod:`cmds.lean`, both
without click; every other command line, and whatever the lean path does not
fully understand, goes to the click CLI (:func:`cmds.main.entry`).
"""

import atexit
import os
import sys

_EXIT: list = []   # [exit status, pid] once a lean or hook command is done


def _exit(code: int) -> None:
    """Leave with ``code`` once a command is done: ``sys.exit``, so that
    non-daemon threads are joined and every atexit callback runs as usual,
    after which :func:`_skip_teardown` (the first callback registered, so
    the last to run) ends the process before the interpreter's teardown."""
    _EXIT[:] = [code if isinstance(code, int) else 1, os.getpid()]
    sys.exit(code)


def _skip_teardown() -> None:
    """Flush stdout and stderr and ``os._exit`` with the status given to
    :func:`_exit`; nothing when it was not called (or in a forked child), or
    when a flush fails (the ordinary exit then reports it).  The teardown
    frees every module and object one by one, and freeing the open index
    generations joins tantivy's reader threads (three per generation, 54 on
    a recall): ~7-10 ms of CPU and up to ~100 ms of wall time on a busy
    machine (docs/benchmarks.md, "Start-up")."""
    if not _EXIT or _EXIT[1] != os.getpid():
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - the ordinary exit reports it
        return
    os._exit(_EXIT[0])


def entry() -> None:
    """``mem``: the hook fast path, the lean path, else the click CLI."""
    argv = sys.argv[1:]
    atexit.register(_skip_teardown)
    if argv == ["hook", "claude-code"]:
        from cmds._hookrun import run_claude_code
        _exit(run_claude_code())
    if len(argv) == 4 and argv[0] == "--home" and argv[2:] == ["hook", "claude-code"]:  # a custom store
        from cmds._hookrun import run_claude_code
        _exit(run_claude_code(env={**os.environ, "MEM_HOME": argv[1]}))
    from cmds.lean import main as lean_main
    code = lean_main(argv)
    if code is not None:
        _exit(code)
    from cmds.main import entry as cli_entry
    cli_entry()
