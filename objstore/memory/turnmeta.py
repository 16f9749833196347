"""What a turn carries besides its text, for ``mem forget --match``: the
working directory and the project name each turn was captured with
(``Turn.cwd``, ``Turn.project``).  A ``--match`` text found there is taken
out of the turn (the field is emptied, the text kept: ``docs/forget.md``
"What --match covers").

The search index holds no ``cwd``, so finding the turns means reading the
sessions.  The cache ``<store>/cache/turn-meta.z`` (a zlib stream of the
text below, since session 27; ``cache/turn-meta`` uncompressed before,
still read: ``core.atomic.read_z``) keeps, per session, the
distinct values its turns carry: one line ``<head id>\\t<session id as
JSON>\\t<values as a JSON list>\\t<marks>`` per session (UTF-8, values
sorted), the marks naming its turns' record sources (:func:`source_marks`,
for the copies a forget takes along: :func:`source_sessions`; a line of a
mem before session 26 has none).  A
session whose ref still points at the cached head is not read; one that
grew is read back to the cached head only; one whose chain was rewritten
(a forget) is read whole.  Derived, safe to delete; every forget drops the
lines of the sessions it rewrote or removed (:func:`drop_sessions`), and
its scrub of derived files (``forgetfiles.scrub_derived``) the lines holding
a forgotten text, so those sessions are read again next time.
"""

from __future__ import annotations

import json
import zlib
from bisect import bisect_right
from collections.abc import Iterator

from objstore.core.atomic import read_z, write_z
from objstore.core.errors import IntegrityError, MemError
from objstore.core.store import Store
from objstore.memory.sessions import TurnVersion, walk_turns
from objstore.memory.tombstones import session_scoped

META_FILE = "turn-meta"
#: hex digits of a source's mark (:func:`source_mark`)
MARK_HEX = 6


def source_mark(source: str) -> str:
    """The mark of a turn's ``source`` in the cache's fourth field: the low
    24 bits of the CRC-32 (``zlib.crc32``) of its UTF-8 bytes, 6 lowercase
    hex digits.  Two sources may share one (a session is then read for
    nothing, never missed)."""
    return f"{zlib.crc32(source.encode('utf-8', 'surrogatepass')) & 0xFFFFFF:06x}"


def source_marks(sources) -> str:
    """The fourth field of a session's line: the distinct marks
    (:func:`source_mark`) of ``sources`` (its turns' sources) that name a
    record (a text-derived source, ``tombstones.session_scoped``, is left
    out: its tombstone forgets that session's turn only), sorted, joined."""
    return "".join(sorted({source_mark(x) for x in sources if not session_scoped(x)}))


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


def _load(store: Store, marks: dict[str, str] | None = None) -> dict[str, tuple[str, set[str]]]:
    """Session id -> (head id, values) of each line that parses; ``marks``,
    when given, gets session id -> the line's fourth field (as written,
    unchecked) for each such line that has one."""
    out: dict[str, tuple[str, set[str]]] = {}
    try:
        raw = read_z(store.root / "cache" / META_FILE).decode("utf-8")
    except (OSError, ValueError):   # missing, unreadable, damaged (UnicodeDecodeError is a ValueError)
        return out
    decoded: dict[str, list[str] | None] = {}   # values as written -> as read (sessions share a few lists)
    for line in raw.splitlines():
        try:
            head, sid, values, *mk = line.split("\t", 3)
            sid = _json_str(sid)
            got = decoded.get(values, False)
            if got is False:
                got = json.loads(values)
                got = decoded[values] = got if isinstance(got, list) and all(isinstance(v, str) for v in got) else None
            if isinstance(sid, str) and got is not None:
                out[sid] = (head, set(got))
                if marks is not None:
                    if mk:
                        marks[sid] = mk[0]
                    else:
                        marks.pop(sid, None)
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
    return {sid: values for sid, (values, _mk) in _current(store, heads, False).items()}


def _current(store: Store, heads: dict[str, str], need_marks: bool) -> dict[str, tuple[set[str], str | None]]:
    """Session id -> (values, marks) of every session of ``heads``, through
    the cache brought up to date (:func:`session_values`); ``marks``: the
    line's fourth field (:func:`source_marks`), None when the line has none
    (written by a mem before session 26).  ``need_marks``: such a line
    counts as out of date (its session is read whole, and gets them); a
    chain read whole always gets them."""
    marks: dict[str, str] = {}
    cached = _load(store, marks)
    out: dict[str, tuple[set[str], str | None]] = {}
    fresh: dict[str, tuple[str, set[str]]] = {}
    fresh_marks: dict[str, str] = {}
    changed = len(cached) != len(heads)
    for sid, head in heads.items():
        old = cached.get(sid)
        mk = marks.get(sid)
        if old is not None and mk is None and need_marks:
            old = None                      # read whole, for its sources
        if old is not None and old[0] == head:
            out[sid] = (old[1], mk)
            fresh[sid] = old
            if mk is not None:
                fresh_marks[sid] = mk
            continue
        changed = True
        values: set[str] = set()
        sources: set[str] = set()
        whole = True
        reached = False
        try:
            last = None
            for last in walk_turns(store, head):
                if old is not None and last.id == old[0]:
                    values |= old[1]        # the rest of the chain is what the cache read
                    reached = True
                    break
                values.update(v for v in (last.turn.cwd, last.turn.project) if v)
                sources.add(last.turn.source)
            else:
                whole = last is None or last.turn.parent is None   # else the walk stopped at damage
        except IntegrityError:
            whole = False
        if not reached:
            mk = source_marks(sources)      # read whole (or up to damage): its own
        elif mk is not None:
            mk = _merged(mk, source_marks(sources))
        out[sid] = (values, mk)
        if whole:
            fresh[sid] = (head, values)
            if mk is not None:
                fresh_marks[sid] = mk
    if changed:
        _save(store, fresh, fresh_marks)
    return out


def _merged(a: str, b: str) -> str:
    """Two marks fields as one (:func:`source_marks`)."""
    if not b:
        return a
    w = MARK_HEX
    return "".join(sorted({a[i:i + w] for i in range(0, len(a), w)} | {b[i:i + w] for i in range(0, len(b), w)}))


def source_sessions(store: Store, heads: dict[str, str], sources) -> set[str]:
    """The sessions of ``heads`` (session id -> head turn id) that may hold
    a turn whose ``source`` is one of ``sources`` (record ids): those whose
    line's marks (:func:`source_marks`) hold one of theirs, through the
    cache brought up to date (a session whose line has no marks, or none,
    is read whole once, and its line written with them; one that grew is
    read back to its line's head).  May name sessions that hold none (two
    sources sharing a mark), never leaves out one that holds one; a
    session whose marks field is damaged is named.  Replaces reading every
    session's chain (or state file) for ``forget``'s copies of a record
    (``forgetplan._add_copies``; test25b U6: 83 s of CPU at a million
    turns).  Raises nothing for damage (a walk stops there)."""
    want = {bytes.fromhex(source_mark(x)) for x in sources}
    if not want:
        return set()
    out: set[str] = set()
    sids: list[str] = []
    ends: list[int] = []
    parts: list[bytes] = []
    size = 0
    for sid, (_values, mk) in _current(store, heads, True).items():
        try:
            b = bytes.fromhex(mk or "")
        except ValueError:
            b = b"\0"                       # damaged: named below
        if len(b) % 3:
            out.add(sid)
            continue
        parts.append(b)
        size += len(b)
        sids.append(sid)
        ends.append(size)
    blob = b"".join(parts)                  # every session's marks, one after another (3 bytes each)
    for m in want:
        at = blob.find(m)
        while at >= 0:
            if at % 3 == 0:
                out.add(sids[bisect_right(ends, at)])
            at = blob.find(m, at + 1)
    return out


def _save(store: Store, entries: dict[str, tuple[str, set[str]]], marks: "dict[str, str | bytes]") -> None:
    """Write the cache anew from ``entries`` (session id -> (head id, values))
    and ``marks`` (session id -> its fourth field, when it has one, or its
    hex digits as bytes); a write
    that fails is skipped (the cache is only a shortcut).  Written line by
    line, as ``citations.FactCites.save`` writes its file: never whole in
    memory, nor kept as the last content written (``core.atomic.write_z``
    keeps a whole ``bytes``): at 2.07M turns the file is 15 MB, and an
    import held it, its lines and their join through its end merges
    (docs/benchmarks.md, "Session 31 (branch `rss31`)")."""

    def lines() -> Iterator[bytes]:
        for sid, (head, v) in sorted(entries.items()):
            mk = marks.get(sid)
            if isinstance(mk, bytes):   # record_written's marks as their bytes
                mk = mk.hex()
            yield (f"{head}\t{json.dumps(sid, ensure_ascii=False)}\t{json.dumps(sorted(v), ensure_ascii=False)}"
                   + (f"\t{mk}\n" if mk is not None else "\n")).encode("utf-8")

    try:
        (store.root / "cache").mkdir(exist_ok=True)
        write_z(store.root / "cache" / META_FILE, lines(), durable=False)
    except OSError:
        pass


def record_written(store: Store, written: dict[str, tuple]) -> None:
    """Bring the cache up to date with turns a writer has just published, so
    that the first ``forget --match`` after an import does not read every
    turn of the store again (at a million turns, 2M turns: ~73 s of CPU;
    docs/benchmarks.md, "Session 15 (branch `seg15`)"), nor the first
    ``forget`` of a session or a turn (its copies: :func:`source_sessions`;
    83 s, test25b U6).  ``written``: session id -> (the head its ref had
    before the writer's turns, None for a new session; the head its ref
    has now; the non-empty ``cwd`` and ``project`` values of the turns
    written on top, any iterable of them; and, optionally, the marks of every source of the
    whole chain, :func:`source_marks`, or its hex digits as bytes, as a
    large import keeps them).  A new session gets its line; a
    session whose cached line names the old head gets the new head and
    both sets of values (and the marks given, or none); any other session is left as it is (no line, or a line
    of another head: read again when asked, as before).  Only for chains
    the writer extended: a chain rewritten (turns moved onto a new parent)
    must not be given.  Raises nothing (a write that fails is skipped)."""
    if not written:
        return
    marks: "dict[str, str | bytes]" = {}
    cached = _load(store, marks)
    changed = False
    for sid, (base, head, values, *mk) in written.items():
        old = cached.get(sid)
        if base is None:
            cached[sid] = (head, set(values))
        elif old is not None and old[0] == base:
            cached[sid] = (head, old[1].union(values))
        else:
            continue
        if mk and mk[0] is not None:
            marks[sid] = mk[0]
        else:
            marks.pop(sid, None)        # (the new turns' sources unknown: read whole when asked)
        changed = True
    if changed:
        _save(store, cached, marks)


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
        lines = read_z(path).decode("utf-8").splitlines(keepends=True)
    except (OSError, ValueError):
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
            write_z(path, "".join(keep).encode("utf-8"), durable=False)
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
