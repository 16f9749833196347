"""What a turn carries besides its text, for ``mem forget --match``: the
working directory and the project name each turn was captured with
(``Turn.cwd``, ``Turn.project``).  A ``--match`` text found there is taken
out of the turn (the field is emptied, the text kept: ``docs/forget.md``
"What --match covers").

The search index holds no ``cwd``, so finding the turns means reading the
sessions.  The cache ``<store>/cache/turn-meta`` keeps, per session, the
distinct values its turns carry: one line ``<head id>\\t<session id as
JSON>\\t<values as a JSON list>`` per session (UTF-8, values sorted).  A
session whose ref still points at the cached head is not read; one that
grew is read back to the cached head only; one whose chain was rewritten
(a forget) is read whole.  Derived, safe to delete; every forget drops the
lines of the sessions it rewrote or removed (:func:`drop_sessions`), and
its scrub of derived files (``forgetfiles.scrub_derived``) the lines holding
a forgotten text, so those sessions are read again next time.
"""

from __future__ import annotations

import json

from objstore.core.atomic import atomic_write
from objstore.core.errors import IntegrityError, MemError
from objstore.core.store import Store
from objstore.memory.sessions import TurnVersion, walk_turns

META_FILE = "turn-meta"


def _json_str(raw: str) -> str:
    """``json.loads(raw)`` of a JSON string: a quoted run of printable
    characters without a quote or a backslash (a session id as the cache
    writes it) is its inside, without the decoder (~24,000 lines at a
    million turns); anything else is decoded.  ``ValueError`` as
    ``json.loads``; may return a non-``str`` for a damaged line."""
    inner = raw[1:-1]
    if len(raw) >= 2 and raw[0] == raw[-1] == '"' and '"' not in inner and "\\" not in inner and inner.isprintable():
        return inner
    return json.loads(raw)


def _load(store: Store) -> dict[str, tuple[str, set[str]]]:
    out: dict[str, tuple[str, set[str]]] = {}
    try:
        raw = (store.root / "cache" / META_FILE).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return out
    decoded: dict[str, list[str] | None] = {}   # values as written -> as read (sessions share a few lists)
    for line in raw.splitlines():
        try:
            head, sid, values = line.split("\t", 2)
            sid = _json_str(sid)
            got = decoded.get(values, False)
            if got is False:
                got = json.loads(values)
                got = decoded[values] = got if isinstance(got, list) and all(isinstance(v, str) for v in got) else None
            if isinstance(sid, str) and got is not None:
                out[sid] = (head, set(got))
        except ValueError:
            continue            # a damaged line: that session is read again
    return out


def session_values(store: Store, heads: dict[str, str]) -> dict[str, set[str]]:
    """Session id -> the distinct non-empty ``cwd`` and ``project`` values
    of its turns, for every session of ``heads`` (session id -> head turn
    id), through the cache (module doc), which is brought up to date (not
    written when nothing changed; a write that fails is skipped: the cache
    is only a shortcut).  A session whose chain cannot be read (damage) is
    read as far as it goes (``walk_turns``) and not cached."""
    cached = _load(store)
    out: dict[str, set[str]] = {}
    fresh: dict[str, tuple[str, set[str]]] = {}
    changed = len(cached) != len(heads)
    for sid, head in heads.items():
        old = cached.get(sid)
        if old is not None and old[0] == head:
            out[sid] = old[1]
            fresh[sid] = old
            continue
        changed = True
        values: set[str] = set()
        whole = True
        try:
            last = None
            for last in walk_turns(store, head):
                if old is not None and last.id == old[0]:
                    values |= old[1]        # the rest of the chain is what the cache read
                    break
                values.update(v for v in (last.turn.cwd, last.turn.project) if v)
            else:
                whole = last is None or last.turn.parent is None   # else the walk stopped at damage
        except IntegrityError:
            whole = False
        out[sid] = values
        if whole:
            fresh[sid] = (head, values)
    if changed:
        _save(store, fresh)
    return out


def _save(store: Store, entries: dict[str, tuple[str, set[str]]]) -> None:
    """Write the cache anew from ``entries`` (session id -> (head id, values));
    a write that fails is skipped (the cache is only a shortcut)."""
    lines = [f"{head}\t{json.dumps(sid, ensure_ascii=False)}\t{json.dumps(sorted(v), ensure_ascii=False)}\n"
             for sid, (head, v) in sorted(entries.items())]
    try:
        (store.root / "cache").mkdir(exist_ok=True)
        atomic_write(store.root / "cache" / META_FILE, "".join(lines).encode("utf-8"), durable=False)
    except OSError:
        pass


def record_written(store: Store, written: dict[str, tuple[str | None, str, set[str]]]) -> None:
    """Bring the cache up to date with turns a writer has just published, so
    that the first ``forget --match`` after an import does not read every
    turn of the store again (at a million turns, 2M turns: ~73 s of CPU;
    docs/benchmarks.md, "Session 15 (branch `seg15`)").  ``written``:
    session id -> (the head its ref had before the writer's turns, None
    for a new session; the head its ref has now; the non-empty ``cwd`` and
    ``project`` values of the turns written on top).  A new session gets its
    line; a session whose cached line names the old head gets the new head
    and both sets of values; any other session is left as it is (no line,
    or a line of another head: read again when asked, as before).  Only
    for chains the writer extended: a chain rewritten (turns moved onto a
    new parent) must not be given.  Raises nothing (a write that fails is
    skipped)."""
    if not written:
        return
    cached = _load(store)
    changed = False
    for sid, (base, head, values) in written.items():
        old = cached.get(sid)
        if base is None:
            cached[sid] = (head, set(values))
        elif old is not None and old[0] == base:
            cached[sid] = (head, old[1] | values)
        else:
            continue
        changed = True
    if changed:
        _save(store, cached)


def refresh(store: Store) -> int:
    """Bring the cache of ``store`` up to date with every session ref
    (:func:`session_values`): ``mem gc`` calls it after its sweep, so that a
    store imported before the cache existed (session 15), or whose cache was
    deleted or went stale, does not leave the first ``forget --match`` to
    read every turn.  The lines written are byte for byte those an import
    writes (:func:`record_written`: one per session, sorted).  Returns the
    number of sessions read (0: the cache was current, nothing written, or
    it could not be brought up to date).  Takes the store lock (a forget
    drops lines under it).  Raises nothing of its own: the cache is only a
    shortcut, so a lock another process holds, or damage (a ref that does
    not hold an id, a newer mem's object), leaves it as it was and the gc
    that called it succeeds."""
    try:
        with store.lock("gc"):
            heads = {name[len("sessions/"):]: head for name, head in store.refs.iter("sessions")}
            cached = _load(store)
            stale = sum(1 for sid, head in heads.items() if cached.get(sid, ("",))[0] != head)
            if stale or len(cached) != len(heads):
                session_values(store, heads)
            return stale
    except MemError:
        return 0


def drop_sessions(store: Store, sids) -> None:
    """Remove the cache lines of the sessions ``sids`` (a forget rewrote or
    removed them: a line would keep a deleted head's id, a fingerprint of
    what was forgotten, and the values of a forgotten session); they are
    read again when next asked.  A missing or unreadable cache is left as
    it is; a write that fails is skipped (OSError is not raised)."""
    sids = set(sids)
    path = store.root / "cache" / META_FILE
    try:
        lines = path.read_text("utf-8").splitlines(keepends=True)
    except (OSError, UnicodeDecodeError):
        return
    keep = []
    for line in lines:
        try:
            sid = json.loads(line.split("\t", 2)[1])
        except (ValueError, IndexError):
            continue
        if sid not in sids:
            keep.append(line)
    if len(keep) != len(lines):
        try:
            atomic_write(path, "".join(keep).encode("utf-8"), durable=False)
        except OSError:
            pass


def meta_hits(store: Store, heads: dict[str, str], hits) -> dict[str, list[TurnVersion]]:
    """Session id -> its turns (oldest first) whose ``cwd`` or ``project``
    ``hits`` (a predicate: ``objstore.core.text.matcher`` of the match
    text), over the sessions of ``heads`` (session id -> head turn id);
    only sessions whose cached values (:func:`session_values`) hit are
    read.  A forgotten turn counts too (its fields are kept when it is
    emptied).  Raises nothing for damage (the walk stops there)."""
    out: dict[str, list[TurnVersion]] = {}
    hit: dict[str, bool] = {}   # value -> hits(value): the sessions of a project share its few values
    for sid, values in session_values(store, heads).items():
        if not any(hit[v] if v in hit else hit.setdefault(v, bool(hits(v))) for v in values):
            continue
        try:
            found = [tv for tv in walk_turns(store, heads[sid]) if hits(tv.turn.cwd) or hits(tv.turn.project)]
        except IntegrityError:
            continue
        if found:
            out[sid] = found[::-1]
    return out
