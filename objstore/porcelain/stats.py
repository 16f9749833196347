"""``mem stats``: what the store holds, counted.

Objects and bytes by type (loose and packed), facts by scope, kind, trust and
state, sessions and turns by project and harness, the search index's size and
the growth of the last 30 days.  Reads only; values never appear.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from objstore.core.codec import HEADER_LEN, read_header
from objstore.core.errors import MemError
from objstore.core.objects import TYPES
from objstore.core.refs import key_scope
from objstore.core.store import Store, now_ms
from objstore.memory.facts import current_of, key_chains, listed_chain
from objstore.memory.queue import count as queue_count
from objstore.memory.sessions import session_project, walk_turns

DAY_MS = 86_400_000


def _dir_bytes(path: Path) -> tuple[int, int]:
    """(files, bytes) under ``path``."""
    n = size = 0
    for dirpath, _dirs, files in os.walk(path):
        for f in files:
            try:
                size += os.stat(os.path.join(dirpath, f)).st_size
                n += 1
            except OSError:
                pass
    return n, size


def _object_types(store: Store, progress=None) -> Counter:
    """Objects by type name, each id once (``unreadable``: no sound copy).
    Loose objects first, then each pack in body order, as ``mem fsck`` reads
    them: a pack block is inflated once, not once per object it holds (in id
    order, test25 T7: 4-5x the time of fsck)."""
    types: dict[str, str | None] = {}
    loose = list(store.objects)
    total = len(loose) + sum(len(p) for p in store.packs.packs) if progress is not None else 0

    def note(oid: str, frame) -> None:
        if types.get(oid):
            return                                   # a sound copy already counted
        try:
            if isinstance(frame, BaseException):
                raise frame
            types[oid] = TYPES[read_header(frame[:HEADER_LEN + 1])].TYPE_NAME
        except MemError:
            types[oid] = None
        if progress is not None and len(types) % 2000 == 0:
            progress(len(types), total)

    for oid in loose:
        try:
            note(oid, store.read_frame(oid))
        except MemError as e:
            note(oid, e)
    for pack in store.packs.packs:
        for oid, frame in pack.frames_in_body_order():
            note(oid, frame)
    return Counter("unreadable" if t is None else t for t in types.values())


@dataclass
class StoreStats:
    """Counts of one store (every figure an int; bytes are on-disk bytes).

    Attributes:
        objects: by type name (``fact``, ``turn``, ``tombstone``, ``sealed``,
            ``queue``; ``unreadable`` for objects that could not be read).
        loose_objects, loose_bytes, packs, pack_bytes, index_bytes,
            store_bytes: sizes on disk.
        facts_by_scope / _kind / _trust: current versions of keys.
        facts_by_state: ``current``, ``dormant``, ``pinned``, ``sealed``,
            ``queued`` (review queue items), ``forgotten`` (keys whose every
            version was forgotten).
        versions: fact versions in all chains.
        sessions_by_project, turns_by_project, turns_by_harness.
        growth: the last 30 days, oldest first: ``(day start ms, facts
            written, turns recorded)``.
    """

    objects: Counter = field(default_factory=Counter)
    loose_objects: int = 0
    loose_bytes: int = 0
    packs: int = 0
    pack_bytes: int = 0
    index_bytes: int = 0
    store_bytes: int = 0
    facts_by_scope: Counter = field(default_factory=Counter)
    facts_by_kind: Counter = field(default_factory=Counter)
    facts_by_trust: Counter = field(default_factory=Counter)
    facts_by_state: Counter = field(default_factory=Counter)
    versions: int = 0
    sessions_by_project: Counter = field(default_factory=Counter)
    turns_by_project: Counter = field(default_factory=Counter)
    turns_by_harness: Counter = field(default_factory=Counter)
    growth: list[tuple[int, int, int]] = field(default_factory=list)


def store_stats(store: Store, *, progress=None, now: int | None = None) -> StoreStats:
    """Count everything in ``store`` (see :class:`StoreStats`).

    Args:
        progress: optional ``progress(done, total)`` callable, called while
            the objects are counted.
        now: ms since the epoch the 30-day window ends at (default now).
    Cost: one read of every object header (O(objects)).
    """
    s = StoreStats()
    now = now_ms() if now is None else now
    start = (now // DAY_MS - 29) * DAY_MS
    facts_day: Counter = Counter()
    turns_day: Counter = Counter()

    s.loose_objects, s.loose_bytes = _dir_bytes(store.root / "objects")
    pdir = store.root / "objects" / "pack"
    npack, s.pack_bytes = _dir_bytes(pdir)
    s.loose_bytes -= s.pack_bytes
    s.loose_objects -= npack
    s.packs = len(list(pdir.glob("*.idx"))) if pdir.is_dir() else 0
    _, s.index_bytes = _dir_bytes(store.root / "index")
    _, s.store_bytes = _dir_bytes(store.root)

    s.objects.update(_object_types(store, progress))

    for name, chain in key_chains(store):
        s.versions += len(chain)
        for v in chain:
            if v.fact.recorded_at >= start:
                facts_day[(v.fact.recorded_at - start) // DAY_MS] += 1
        cur = current_of(chain)
        if cur is None:
            s.facts_by_state["forgotten"] += 1
            continue
        f = cur.fact
        scope = key_scope(f.key)
        s.facts_by_scope[scope] += 1
        s.facts_by_kind[f.kind] += 1
        s.facts_by_trust[f.trust] += 1
        s.facts_by_state["dormant" if f.dormant else "current"] += 1
        if f.pinned:
            s.facts_by_state["pinned"] += 1
    s.facts_by_state["sealed"] = sum(1 for _ in store.refs.iter("sealed"))
    s.facts_by_state["queued"] = queue_count(store)

    for name, oid in store.refs.iter("sessions"):
        chain = listed_chain(store, name, oid, walk_turns)
        if chain is None:
            continue   # a damaged ref: noted in store.damaged, warned about
        for tv in chain:
            t = tv.turn
            s.turns_by_project[t.project or "-"] += 1
            s.turns_by_harness[t.harness or "-"] += 1
            if t.timestamp >= start:
                turns_day[(t.timestamp - start) // DAY_MS] += 1
        s.sessions_by_project[session_project(chain) or "-"] += 1

    s.growth = [(start + d * DAY_MS, facts_day[d], turns_day[d]) for d in range(30)]
    return s
