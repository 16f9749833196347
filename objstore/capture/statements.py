""""Remember that …" in a prompt: the person states a fact, so it is written
at once as ``user_stated`` (issue: derive, item 6).

:func:`statement_of` recognises a prompt (or a sentence of it) that starts
with ``remember that``, ``remember:``, ``please remember``, ``note that``,
``keep in mind that`` or ``don't forget that``, and returns the statement.
:func:`remember_statement` writes it under a deterministic key,
``<scope>/remembered/<the statement's first content words>``, scope being
the project of the working directory (else ``user``), with the prompt's
source as the evidence, and returns the result the caller confirms in the
injected context.  A statement holding a credential is redacted by
``remember``; one over :data:`MAX_CHARS` is cut at a sentence end.
"""

from __future__ import annotations

import re

from objstore.core.objects import normalize_value
from objstore.core.store import Store
from objstore.memory.facts import remember

MAX_CHARS = 600
_CUE = re.compile(r"(?:^|(?<=[.!?\n]))\s*(?:please\s+)?(?:remember(?:\s+that|\s*:)|note\s+that|keep\s+in\s+mind\s+that"
                  r"|don'?t\s+forget\s+that)\s+(?P<what>.+)", re.I | re.S)
_STOP = frozenset("a an the is are was were be our my we i to of on in at for and that this it".split())


def statement_of(prompt: str) -> str | None:
    """The stated fact of a "remember that …" prompt, or None."""
    m = _CUE.search(prompt or "")
    if not m:
        return None
    what = m.group("what").strip()
    end = re.search(r"(?<=[.!?])\s", what)
    what = what[: end.start()] if end else what
    what = what.strip().rstrip(".!").strip()
    if len(what) < 3:
        return None
    return what[:MAX_CHARS]


def statement_key(statement: str, project: str | None) -> str:
    """The key a statement is written under (module doc)."""
    words = [w for w in re.findall(r"\w+", normalize_value(statement)) if w not in _STOP][:6] or ["note"]
    scope = f"project/{project}" if project else "user"
    return f"{scope}/remembered/{'-'.join(words)[:120]}"


def remember_statement(store: Store, prompt: str, *, project: str | None, source: str = "",
                       command: str = "hook remember"):
    """Write the statement of a "remember that …" prompt as ``user_stated``;
    returns ``facts.RememberResult`` or None when the prompt states nothing.
    Raises as ``facts.remember`` (StoreLocked, Refused for a sealed key)."""
    what = statement_of(prompt)
    if what is None:
        return None
    return remember(store, statement_key(what, project), what, trust="user_stated", owner="user",
                    sources=(source,) if source else (), command=command)
