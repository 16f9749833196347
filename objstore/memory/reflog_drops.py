"""Dropping the reflog entries that would keep what a forget removed: the
one way both callers do it (:func:`drop_entries`).

gc counts every id a reflog entry names as a root, and walks its parents:
an entry naming an old version (or one whose parents lead to it) keeps a
forgotten value or credential stored for good.  Two places find such
entries: the recovery of a stopped forget (``objstore.memory.recovery``:
the ids its ``D`` journal lines delete) and the check for those an older
mem's recovery left (:func:`drop_forgotten_reflog_entries`: ``mem fsck
--repair``, ``mem forget --credentials``; test22 X2, session 23).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from objstore.core.errors import MemError
from objstore.core.reachability import kept_by_reflogs, walk
from objstore.core.store import Store
from objstore.memory.tombstones import forgotten_check


def drop_entries(store: Store, refs: Iterable[str], gone: set[str]) -> dict[str, int]:
    """Drop from the reflog of each of ``refs`` every entry whose old or
    new id is in ``gone`` (``Reflog.replace``: the file written anew,
    atomically; the other entries kept as they were).  Caller holds the
    store lock.  Idempotent.  Returns ref -> entries dropped (refs with
    none left out).  Raises OSError, or CorruptObject for a reflog that is
    not a regular file."""
    out = {}
    if not gone:
        return out
    for ref, entries in sorted(store.reflog.read_many(sorted(set(refs))).items()):
        n = sum(1 for e in entries if e.old in gone or e.new in gone)
        if n:
            store.reflog.replace(ref, entries, dict.fromkeys(gone))
            out[ref] = n
    return out


def drop_forgotten_reflog_entries(store: Store, read: Callable[[str], object | None] | None = None, *,
                                  reached: set[str] | None = None) -> dict[str, int]:
    """Drop each reflog entry that keeps an object a tombstone forgets and
    no ref reaches: it names that object, or one whose parents lead to it
    before they reach anything a ref reaches (``core.reachability``
    ``kept_by_reflogs``), so that gc deletes it.  ``read(id)``: the object, or None
    (default: read from the store).  The store is walked from the refs, then
    from the reflogs, so both forms are found (``mem fsck --repair``, and
    ``mem forget --credentials``: the parent form too since session 24,
    mend24).  ``reached``: ids known reachable from the refs, not read
    again (``core.reachability.walk``; ``ForgetPlan.walked``: the chains
    ``plan_credentials`` has just read, so its walk reads only the new
    heads, sealed keys and the reflog-only objects).  The entries go from every reflog that holds one
    (``Reflog.refs_naming``), whichever key or session it is the reflog
    of.  Caller holds the store lock.  Returns reflog ->
    entries dropped.  Raises OSError."""
    def stored(oid: str):
        try:
            return store.get(oid)
        except MemError:
            return None
    get = stored if read is None else (lambda oid: read(oid) or stored(oid))
    forgotten = forgotten_check(store, rejections=False)
    kept = kept_by_reflogs(walk(store, missing=[], read=get, reached=reached), forgotten, get)
    # every reflog that names one, as fsck found them (roots: any reflog), not only
    # the named object's key or session: a key's reflog may name another key's version (V7)
    return drop_entries(store, store.reflog.refs_naming(set(kept)), set(kept))
