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

A statement is never lost: the prompt hook writes it with the prompt's turn
under one store lock (``capture.sync.capture_prompt``); when the hook could
not (the store was locked, its budget ran out, it was killed), the
transcript sync that later stores the prompt's turn writes it
(:func:`write_statement` with ``late=True``): once, since only a turn the
sync adds leads to a write, and never over a value written or forgotten
since.
"""

from __future__ import annotations

import re

from objstore.core.objects import normalize_value
from objstore.core.refs import fact_ref
from objstore.core.store import Store
from objstore.memory.facts import remember
from objstore.memory.scope import project_aliases
from objstore.memory.tombstones import all_tombstones, forgotten_in

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


def write_statement(store: Store, prompt: str, *, cwd: str = "", source: str = "",
                    command: str = "hook remember", late: bool = False):
    """Write the statement of a "remember that …" prompt typed in ``cwd``
    (its project: ``project_aliases(cwd)[0]``, as the hooks name it),
    citing ``source``; returns ``facts.RememberResult`` or None.

    ``late``: the prompt was typed earlier and its hook did not write the
    statement (a transcript sync stores its turn now): written only when
    its key holds no value (the hook's write, or a value the person set
    since, stands) and the value was not forgotten since (a tombstone).
    Raises as ``facts.remember``."""
    aliases = project_aliases(cwd or None) if cwd else ()
    project = aliases[0] if aliases else None
    if late:
        what = statement_of(prompt)
        if what is None:
            return None
        key = statement_key(what, project)
        if store.refs.read(fact_ref(key)) is not None or forgotten_in(all_tombstones(store), key, what):
            return None
    return remember_statement(store, prompt, project=project, source=source, command=command)
