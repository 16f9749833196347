"""A fact the prompt hook (or ``mem proxy``) serves whose key this session
was already shown at another value — in its session-start block (or the
proxy's pinned system block), or an earlier prompt's injection — says so
on its line (test35 T15): the block shown at the start still holds the
older value, kept byte-stable, and the agent is told which one replaced
which rather than left with two values and nothing ordering them.

The session state (``context.load_state``: ``injected``, the version ids
shown to the session) is what was shown; the note names the newest of
those versions that is older than the one served now:
``- KEY (recorded DATE, changed since shown earlier in this session: was
"OLD"): NEW``.  A value that may not be shown (sealed, forgotten, a
directive) is never named: the note then says only that it changed.
"""

from __future__ import annotations

from objstore.core.errors import MemError
from objstore.core.lookalike import escape_lookalike
from objstore.core.store import Store
from objstore.core.text import LazyPattern
from objstore.retrieval.context import escape_text

#: what the note says before the older value
SHOWN_NOTE = "changed since shown earlier in this session"
#: the older value is cut at this many characters
WAS_CHARS = 80
#: the start of a fact line's parenthesis (``context.fact_line``): ``recorded DATE``
_RECORDED_RE = LazyPattern(r"recorded [^,)]*")


def shown_before(store: Store, key: str, current_id: str, shown: dict | set) -> str | None:
    """The note for ``key``'s line when the session was shown another
    version of it (an id in ``shown``, the session state's ``injected``)
    with another value than the current version ``current_id``: ``changed
    since shown earlier in this session: was "OLD"`` (``OLD`` the newest
    such version's value, whitespace folded, cut at :data:`WAS_CHARS`,
    escaped as a line is), or without ``: was …`` when that value may not
    be shown (``facts.visible``: sealed, forgotten).  None when no other
    version was shown, its value is the current one's, or the chain cannot
    be read.  Reads the key's versions (one object per version); never
    raises."""
    from objstore.memory.facts import versions, visible  # defer: the facts module, for a fact served
    try:
        chain = versions(store, key)
    except MemError:
        return None
    cur = next((v for v in chain if v.id == current_id), None)
    if cur is None:
        return None
    old = next((v for v in chain if v.id != current_id and v.id in shown
                and v.fact.version < cur.fact.version), None)
    if old is None or old.fact.body == cur.fact.body:
        return None
    if not visible(old.fact):
        return SHOWN_NOTE
    was = " ".join(old.fact.body.split())
    if len(was) > WAS_CHARS:
        was = was[: WAS_CHARS - 1].rstrip() + "…"
    return f'{SHOWN_NOTE}: was "{escape_text(was)}"'


def with_shown_notes(store: Store, lines: list[str], facts: list[tuple[str, str]],
                     shown: dict | set) -> list[str]:
    """``lines`` (an injection's lines, ``context.fact_line`` shapes among
    them) with :func:`shown_before`'s note put in the parenthesis of each
    served fact's line: ``facts`` are ``(key, current version id)`` of the
    facts served, ``shown`` the version ids the session was shown before
    this prompt.  Lines of other facts and turns come back unchanged; so
    does everything when ``shown`` is empty.  Never raises."""
    if not shown or not facts:
        return lines
    out = list(lines)
    for key, oid in facts:
        note = shown_before(store, key, oid, shown)
        if note is None:
            continue
        head = f"- {escape_text(escape_lookalike(key))} ("
        for i, line in enumerate(out):
            if line.startswith(head):
                m = _RECORDED_RE.match(line, len(head))
                at = m.end() if m else len(head)
                sep = (", " if m else "") + note + ("" if m else "; ")
                out[i] = line[:at] + sep + line[at:]
                break
    return out
