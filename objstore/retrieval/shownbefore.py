"""A fact the prompt hook (or ``mem proxy``) serves whose key this session
was already shown at another value — in its session-start block (or the
proxy's pinned system block), or an earlier prompt's injection — says so
on its line (test35 T15): the block shown at the start still holds the
older value, kept byte-stable, and the agent is told which one replaced
which rather than left with two values and nothing ordering them.

What was shown is the session state (``context.load_state``): the
version ids shown (``injected``), the start block's ``(key, id)`` pairs
(``start.facts``) and the last id of each key a prompt injection or the
proxy's pinned block showed (``shown``, written here and by the proxy).
A pair counts only while its id is still in ``injected`` (a ``clear``
empties it, a ``compact`` keeps only the start block's), so the note never
names a value the agent's context no longer holds.  The note names the
newest such version older than the one served now: ``- KEY (recorded
DATE, changed since shown earlier in this session: was "OLD"): NEW``.  A
value that may not be shown (sealed, forgotten, a directive) is never
named: the note then says only that it changed.
"""

from __future__ import annotations

from objstore.core.errors import MemError
from objstore.core.lookalike import escape_lookalike
from objstore.core.objects import Fact
from objstore.core.store import Store
from objstore.core.text import LazyPattern
from objstore.retrieval.context import escape_text

#: what the note says before the older value
SHOWN_NOTE = "changed since shown earlier in this session"
#: the older value is cut at this many characters
WAS_CHARS = 80
#: the start of a fact line's parenthesis (``context.fact_line``): ``recorded DATE``
_RECORDED_RE = LazyPattern(r"recorded [^,)]*")


def shown_keys(state: dict) -> dict[str, list[str]]:
    """``{key: [version ids]}`` the session state says were shown of each
    key (the start block's pairs, then the ``shown`` map), only ids still in
    its ``injected``.  Never raises (a malformed state gives {})."""
    already = state.get("injected") or {}
    start = state.get("start") if isinstance(state.get("start"), dict) else {}
    pairs = [tuple(p) for p in (start.get("facts") or []) if isinstance(p, (list, tuple)) and len(p) == 2]
    shown = state.get("shown") if isinstance(state.get("shown"), dict) else {}
    out: dict[str, list[str]] = {}
    for key, oid in [*pairs, *shown.items()]:
        if isinstance(key, str) and oid in already:
            out.setdefault(key, []).append(oid)
    return out


def shown_before(store: Store, key: str, current_id: str, ids: list[str]) -> str | None:
    """The note for ``key``'s line when the session was shown an older
    version of it (``ids``, :func:`shown_keys`'s for the key) with another
    value than the current version ``current_id``: ``changed since shown
    earlier in this session: was "OLD"`` (``OLD`` the newest such version's
    value, whitespace folded, cut at :data:`WAS_CHARS`, escaped as a line
    is), or without ``: was …`` when that value may not be shown
    (``facts.visible``: sealed, forgotten) or can no longer be read (a
    forget since rewrote it away).  None when no older version was
    shown, the newest shown one holds the current value, or an object
    cannot be read.  Reads ``len(ids) + 1`` objects at most; never raises."""
    from objstore.memory.facts import visible  # defer: the facts module, for a fact served
    if not ids or all(i == current_id for i in ids):
        return None
    try:
        cur = store.get(current_id, Fact)
    except MemError:
        return None
    older, gone = [], False
    for i in sorted(set(ids) - {current_id}):
        try:
            f = store.get(i, Fact)
        except MemError:   # forgotten since it was shown (a forget rewrites the ids): changed, never named
            gone = True
            continue
        if f.key == key and f.version < cur.version:
            older.append(f)
    old = max(older, key=lambda f: f.version, default=None)
    if old is None:
        return SHOWN_NOTE if gone else None   # test36 T20.3: the shown version was forgotten
    if old.body == cur.body:
        return None
    if not visible(old):
        return SHOWN_NOTE
    was = " ".join(old.body.split())
    if len(was) > WAS_CHARS:
        was = was[: WAS_CHARS - 1].rstrip() + "…"
    return f'{SHOWN_NOTE}: was "{escape_text(was)}"'


def noted_line(line: str, key: str, note: str) -> str:
    """``line`` (a ``context.fact_line`` of ``key``) with ``note`` put in its
    parenthesis after ``recorded DATE``; unchanged when it is another key's
    line or already holds a note."""
    head = f"- {escape_text(escape_lookalike(key))} ("
    if not line.startswith(head) or SHOWN_NOTE in line:
        return line
    m = _RECORDED_RE.match(line, len(head))
    at = m.end() if m else len(head)
    return line[:at] + ((", " + note) if m else (note + "; ")) + line[at:]


def note_candidates(store: Store, cands: list, state: dict) -> None:
    """Put :func:`shown_before`'s note on the line of each fact candidate
    (objects with ``kind``, ``ref``, ``id``, ``line``; ``inject.Candidate``)
    whose key the session was shown at another value, before the gate counts
    the line against its token budget (the note is part of what it costs).
    ``state`` is the session state as it was before this prompt.  Reads no
    object when no candidate's key was shown; never raises."""
    known = shown_keys(state)
    for c in cands:
        if c.kind == "fact" and c.line and c.ref in known:
            note = shown_before(store, c.ref, c.id, known[c.ref])
            if note is not None:
                c.line = noted_line(c.line, c.ref, note)


def with_shown_notes(store: Store, lines: list[str], facts: list[tuple[str, str]], state: dict) -> list[str]:
    """``lines`` (an injection's lines, ``context.fact_line`` shapes among
    them) with :func:`shown_before`'s note put in the parenthesis of each
    served fact's line: ``facts`` are ``(key, current version id)`` of the
    facts served, ``state`` the session state as it was before this prompt.
    A line already noted (:func:`note_candidates`), lines of other facts and
    turns come back unchanged; so does everything when no served key was
    shown before (no object read).  Never raises."""
    known = shown_keys(state) if facts else {}
    out = list(lines)
    for key, oid in facts:
        if key not in known:
            continue
        head = f"- {escape_text(escape_lookalike(key))} ("
        i = next((i for i, line in enumerate(out) if line.startswith(head)), None)
        if i is None or SHOWN_NOTE in out[i]:
            continue   # noted before the budget (note_candidates): its objects are not read again
        note = shown_before(store, key, oid, known[key])
        if note is not None:
            out[i] = noted_line(out[i], key, note)
    return out
