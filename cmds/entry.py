"""The ``mem`` console script.

A new process pays only for what it runs: ``mem hook claude-code`` goes to
:mod:`cmds._hookrun` and the commands an agent runs (``get``, ``recall``,
``search``, ``remember``, ``context``, ``--help``) to :mod:`cmds.lean`, both
without click; every other command line, and whatever the lean path does not
fully understand, goes to the click CLI (:func:`cmds.main.entry`).
"""

import sys


def entry() -> None:
    """``mem``: the hook fast path, the lean path, else the click CLI."""
    argv = sys.argv[1:]
    if argv == ["hook", "claude-code"]:
        from cmds._hookrun import run_claude_code
        sys.exit(run_claude_code())
    if len(argv) == 4 and argv[0] == "--home" and argv[2:] == ["hook", "claude-code"]:  # a custom store
        import os
        from cmds._hookrun import run_claude_code
        sys.exit(run_claude_code(env={**os.environ, "MEM_HOME": argv[1]}))
    from cmds.lean import main as lean_main
    code = lean_main(argv)
    if code is not None:
        sys.exit(code)
    from cmds.main import entry as cli_entry
    cli_entry()
