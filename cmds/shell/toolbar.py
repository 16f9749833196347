"""The bottom toolbar: counts and the store path, as prompt-toolkit
formatted-text tokens (a list of ``(style, text)``).  Pure: no
prompt_toolkit import, so it is tested as a function."""

from __future__ import annotations

import os
from pathlib import Path

from .suggest import Counts

HINTS = "Alt-a accept  Alt-r reject  Alt-e edit  Alt-n next  F1 help"


def display_path(path: str | os.PathLike) -> str:
    """``path`` with the home directory written ``~``."""
    p = str(path)
    home = str(Path.home())
    return "~" + p[len(home):] if home not in ("", "/") and (p == home or p.startswith(home + os.sep)) else p


def toolbar_tokens(counts: Counts, store_path: str | os.PathLike, *, hints: bool = True) -> list[tuple[str, str]]:
    """Tokens: `` queue 2 │ dormant 0 │ facts 14 │ sessions 3 │ ~/.mem │ <key hints>``.

    A non-empty queue is styled ``class:bottom-toolbar.alert``."""
    sep = ("class:bottom-toolbar.sep", " │ ")
    out: list[tuple[str, str]] = []
    for i, (label, n) in enumerate((("queue", counts.queue), ("dormant", counts.dormant),
                                    ("facts", counts.facts), ("sessions", counts.sessions))):
        if i:
            out.append(sep)
        style = "class:bottom-toolbar.alert" if (label == "queue" and n) else "class:bottom-toolbar.value"
        out += [("class:bottom-toolbar", f" {label} " if i == 0 else f"{label} "), (style, str(n))]
    out += [sep, ("class:bottom-toolbar.path", display_path(store_path))]
    if hints:
        out += [sep, ("class:bottom-toolbar.hint", HINTS)]
    return out


def toolbar_text(tokens: list[tuple[str, str]]) -> str:
    """The plain text of tokens (tests, logs)."""
    return "".join(t for _s, t in tokens)
