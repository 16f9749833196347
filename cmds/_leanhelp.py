"""``mem --help`` on the lean path: the text ``python -m cmds.docgen``
wrote, read without click (moved out of ``cmds.lean``, which only
``mem --help`` needs it from)."""

import os
import sys


def help_text() -> str | None:
    """``mem --help`` as click prints it at 80 columns or more
    (``cmds/data/help.txt``, written by ``python -m cmds.docgen``), or None
    when the terminal (as ``shutil.get_terminal_size`` sees it) is narrower
    or the file is missing."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 80
    if columns < 80:
        return None
    try:
        with open(os.path.join(os.path.dirname(__file__), "data", "help.txt"), encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None
