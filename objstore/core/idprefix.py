"""Expanding id prefixes in bulk: the search index keeps the first 16 bytes
of a turn's id only (``docs/format.md``, "Search index", ``prefix_id``) and
asks the object store for the rest, a few prefixes per search and a whole
segment's per forget.  One pass over the packs' indexes
(:meth:`objstore.core.pack.PackSet.prefixes_raw`, each pack asked once), one
listing of the objects folder and one per loose fan-out folder it holds,
shared by the prefixes of a call.
Imported by every ``open_store`` (``objstore.memory.opening``): no ``typing``
(~5 ms of a new process's start-up, which ``mem get`` does not import otherwise).
"""

from __future__ import annotations

import os

from objstore.core.errors import IntegrityError, NotFound
from objstore.core.ids import is_full_id

__all__ = ["expand_prefixes"]


def expand_prefixes(store: object, prefixes: list[str]) -> list[str | None]:
    """For each prefix of ``prefixes`` (4-64 lowercase hex; the index's are
    32), in order, the one object id (64 hex) of ``store`` (a
    :class:`~objstore.core.store.Store`) starting with it, loose or packed;
    None when none does.  When several do (only a made-up file does: two
    digests share 128 bits with probability 2**-128), the one that reads
    as a sound object (``Store.read_frame`` verifies its bytes against
    its id) if exactly one does, else None: the caller cannot tell which
    one it meant.  When a prefix finds nothing, the pack directory is
    scanned again once (a pack another process wrote since this one listed
    them) and the prefixes that found nothing are looked up again.  A malformed prefix finds nothing; so
    does an id in a fan-out directory or pack directory that cannot be
    listed (the caller's stand-in: a search shows no hit it cannot read).
    A prefix found nowhere else is looked for in the packs whose index was
    lost (``PackSet.orphan_ids_with_prefix``): its whole id, whose read
    raises ``CorruptObject`` naming that pack, so a search warns of the
    damaged object instead of missing it silently (rob9).
    Raises nothing of its own; what ``Store.packs`` raises when the store's
    packs are first opened."""
    fans: dict[str, list[str]] = {}
    loose_root = os.path.join(os.fspath(store.objects.root), "")
    listed: list = []   # [the names in the objects folder, or None when it cannot be listed], once a call

    def loose(p: str) -> set[bytes]:
        names = fans.get(p[:2])
        if names is None:
            # the objects folder is listed once and a fan-out folder it lacks is not opened (a recall's
            # ~30 prefixes: ~15 fans a store without many loose objects lacks, a failed open each)
            if not listed:
                try:
                    listed.append(frozenset(os.listdir(loose_root)))
                except OSError:
                    listed.append(None)
            try:
                if listed[0] is not None and p[:2] not in listed[0]:
                    raise FileNotFoundError
                names = fans[p[:2]] = os.listdir(loose_root + p[:2])
            except OSError:   # none (or unreadable: the ids it holds are then not found here)
                names = fans[p[:2]] = []
        tail = p[2:]
        return {bytes.fromhex(p[:2] + n) for n in names if n.startswith(tail) and is_full_id(p[:2] + n)}

    def lookup(ps: list[str]) -> dict[str, set[bytes]]:
        got: dict[str, set[bytes]] = {}
        good = []
        for p in ps:
            if len(p) < 4 or len(p) > 64 or not all(c in "0123456789abcdef" for c in p):
                got[p] = set()
            else:
                good.append(p)
        for p, packed in zip(good, store.packs.prefixes_raw(good)):
            packed.update(loose(p))
            got[p] = packed
        return {p: got[p] for p in ps}

    found = lookup(list(dict.fromkeys(prefixes)))
    none = [p for p, h in found.items() if not h]
    if none:
        try:
            store.packs.reload()
            found.update(lookup(none))
        except OSError:   # the pack directory cannot be listed now: those stay unfound
            pass
        for p in [p for p in none if not found[p]]:
            # in a pack whose index was lost: the whole id, whose read then says so (a damaged object
            # the front ends warn about, `mem fsck --repair` reads it back), not a silent miss
            found[p] = {bytes.fromhex(o) for o in store.packs.orphan_ids_with_prefix(p)}
    for p, hits in found.items():
        if len(hits) > 1:
            found[p] = {h for h in hits if _sound(store, h.hex())}
    return [next(iter(found[p])).hex() if len(found[p]) == 1 else None for p in prefixes]


def _sound(store: object, oid: str) -> bool:
    """Whether ``store`` reads object ``oid`` whole (its bytes hash to it)."""
    try:
        store.read_frame(oid)
    except (NotFound, IntegrityError):
        return False
    return True
