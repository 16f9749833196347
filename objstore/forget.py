"""Forget, first cut: a key and every one of its versions.

Order of work (``docs/forget.md``), so that a crash at any point leaves a
tombstone for whatever is not yet gone and rerunning finishes the job:

1. write tombstones (key + SHA-256 of each distinct normalized value) and
   their refs;
2. delete the key's ref and drop its reflog;
3. purge the facts search index physically (rebuilt from the surviving
   current versions, so no segment keeps the text or its terms);
4. delete the forgotten version objects at once (no grace period: they are
   reachable from nothing, and gc would remove them anyway).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import MemError
from .facts import Version, fact_doc, list_keys, tombstones_for, versions, current_of, walk
from .objects import Tombstone, value_digest
from .refs import fact_ref, validate_key
from .store import Store, now_ms


@dataclass
class ForgetResult:
    """What a forget did (or, with ``dry_run``, would do).

    Attributes:
        key: the key.  versions: ``(id, version number)`` of every version removed.
        tombstones: ids of tombstones written.  objects_deleted: object files removed.
        index_clean: the index check found no trace (None on a dry run).
    """

    key: str
    versions: list[tuple[str, int]] = field(default_factory=list)
    tombstones: list[str] = field(default_factory=list)
    objects_deleted: int = 0
    dry_run: bool = False
    index_problems: list[str] = field(default_factory=list)


def preview(store: Store, key: str) -> list[Version]:
    """The versions a forget of ``key`` would remove (raises NotFound)."""
    return versions(store, key)


def forget_key(store: Store, key: str, *, dry_run: bool = False, reason: str = "forget") -> ForgetResult:
    """Forget ``key``: every version, from refs, reflog, index and objects.

    Raises NotFound (no such key), InvalidInput, StoreLocked.
    """
    key = validate_key(key)
    ref = fact_ref(key)
    with store.lock("forget"):
        chain = versions(store, key)
        res = ForgetResult(key, [(v.id, v.fact.version) for v in chain], dry_run=dry_run)
        if dry_run:
            return res
        # 1. tombstones first
        now = now_ms()
        have = {t.value_sha256 for t in tombstones_for(store, key)}
        for v in chain:
            d = value_digest(v.fact.body)
            if d in have:
                continue
            have.add(d)
            tid = store.put(Tombstone(key=key, value_sha256=d, time=now, reason=reason))
            store.refs.set_if_equals(f"tombstones/{tid}", None, tid)
            res.tombstones.append(tid)
        # the journal lets a crash from here on be finished by the next writer
        store.journal.append([f"P\t{key}"] + [f"D\t{v.id}" for v in chain])
        # 2. the ref and its reflog (ids only, but ids are fingerprints too)
        store.refs.set_if_equals(ref, chain[0].id, None)
        store.reflog.drop(ref)
        # 3. physical purge of the facts index
        survivors = []
        for _k, head in list_keys(store):
            cur = current_of(list(walk(store, head)))
            if cur is not None:
                survivors.append(fact_doc(cur.id, cur.fact))
        store.index.purge("fact", survivors)
        res.index_problems = store.index.verify_purged([v.id for v in chain])
        # 4. the objects themselves
        for v in chain:
            res.objects_deleted += store.delete_object(v.id)
        store.journal.clear()
        return res


def scan_store(root, needles: list[bytes]) -> list[str]:
    """Sentinel scan: every file under ``root`` whose bytes, or whose
    zlib-decompressed bytes (loose objects), or any decompressed entry of a
    pack, contain any of ``needles``.

    Returns the matching paths relative to ``root`` (empty = clean).  Used
    after a forget to show that the value is found nowhere on disk.
    """
    import os
    import zlib
    from pathlib import Path
    hits = []
    base = Path(root)
    for dirpath, _dirs, files in os.walk(base):
        for f in files:
            p = Path(dirpath) / f
            try:
                data = p.read_bytes()
            except OSError:
                continue
            views = [data]
            try:
                views.append(zlib.decompress(data))
            except zlib.error:
                pass
            if p.suffix == ".pack" and p.with_suffix(".idx").exists():
                from .pack import Pack
                try:
                    with Pack(p.with_suffix(".idx")) as pack:
                        views.extend(pack.get(oid) for oid in pack)
                except MemError:
                    views.append(b"".join(needles))  # unreadable pack: report it, never pass it
            if any(n in v for n in needles for v in views):
                hits.append(str(p.relative_to(base)))
    return sorted(hits)
