"""The ``mem`` console script.

``mem hook claude-code`` runs on the path of every prompt, so it starts
without click (``cmds._hookrun``); every other command line goes to
:func:`cmds.main.entry`.
"""

import sys


def entry() -> None:
    """``mem``: the hook fast path, else the click CLI."""
    if sys.argv[1:] == ["hook", "claude-code"]:
        from cmds._hookrun import run_claude_code
        sys.exit(run_claude_code())
    from cmds.main import entry as cli_entry
    cli_entry()
