"""The ``mem`` console script.

``mem hook claude-code`` runs on the path of every prompt, so it starts
without click (``cmds._hookrun``); every other command line goes to
:func:`cmds.main.entry`.
"""

import sys


def entry() -> None:
    """``mem``: the hook fast path, else the click CLI."""
    args = sys.argv[1:]
    if args == ["hook", "claude-code"]:
        from cmds._hookrun import run_claude_code
        sys.exit(run_claude_code())
    if len(args) == 4 and args[0] == "--home" and args[2:] == ["hook", "claude-code"]:  # a custom store
        import os
        from cmds._hookrun import run_claude_code
        sys.exit(run_claude_code(env={**os.environ, "MEM_HOME": args[1]}))
    from cmds.main import entry as cli_entry
    cli_entry()
