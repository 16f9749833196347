"""``mem push --repair``: every remote pack read back and verified, the damaged or
missing ones replaced from this store."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from objstore.core.codec import decode
from objstore.core.errors import CorruptObject, IntegrityError, InvalidInput, NotFound, RefConflict
from objstore.core.objects import Fact, QueueItem, Tombstone, Turn
from objstore.core.pack import Pack
from objstore.core.packwriter import PackWriter
from objstore.core.store import Store, now_ms
from objstore.core.storepath import refuse_scratch
from objstore.remote import config as rconfig
from objstore.remote.config import RemoteSpec
from objstore.remote.layout import MANIFEST, Manifest, bundle, content_name
from objstore.remote.connection import MAX_ATTEMPTS, Progress, Remote, SyncResult
from objstore.remote.upload import drop_garbage, upload_pack, verified_frame


class AdoptedRefs:
    """The refs a remote's packs imply, for a remote whose manifest is lost
    or damaged (``push --repair`` adopts its packs): every object is
    self-describing, so each chain's head is found again.

    ``facts/<key>`` names the fact of the highest version (then the latest
    ``recorded_at``, then the larger id), ``sessions/<id>`` the turn of the
    highest ``seq`` (then id), ``tombstones/<id>`` every tombstone and
    ``queue/<item id>`` every queue item.  Snapshots and the list of
    decided queue items lived in the manifest only and are not found again.
    """

    def __init__(self) -> None:
        self._best: dict[str, tuple[tuple, str]] = {}

    def add(self, oid: str, obj: object) -> None:
        """Count object ``oid`` (decoded ``obj``)."""
        if isinstance(obj, Fact):
            name, rank = f"facts/{obj.key}", (obj.version, obj.recorded_at, oid)
        elif isinstance(obj, Turn):
            name, rank = f"sessions/{obj.session}", (obj.seq, 0, oid)
        elif isinstance(obj, Tombstone):
            name, rank = f"tombstones/{oid}", ()
        elif isinstance(obj, QueueItem):
            name, rank = f"queue/{obj.item_id}", (oid,)
        else:
            return
        cur = self._best.get(name)
        if cur is None or rank > cur[0]:
            self._best[name] = (rank, oid)

    def refs(self) -> dict[str, str]:
        """``{ref name: head id}``."""
        return {name: oid for name, (_rank, oid) in sorted(self._best.items())}


def read_remote_pack(r: Remote, name: str, tmp: Path, heads: AdoptedRefs | None = None) -> dict[str, str | None]:
    """Read remote pack ``name`` back and verify it as a pull does (its
    name, the seal, every entry re-hashed); returns ``{id: parent id or
    None}`` of its objects, and counts each in ``heads`` when given.
    Raises IntegrityError (damaged), RefConflict (missing), WrongKey,
    RemoteUnavailable."""
    pack, idx, _n = r.pack(name)
    shutil.rmtree(tmp, ignore_errors=True)
    refuse_scratch(tmp.parent)   # a file in place of tmp/: named, exit 13
    tmp.mkdir(parents=True)
    try:
        checksum = idx[-64:-32].hex() if len(idx) >= 64 else "0" * 64
        (tmp / f"pack-{checksum}.pack").write_bytes(pack)
        (tmp / f"pack-{checksum}.idx").write_bytes(idx)
        out: dict[str, str | None] = {}
        try:
            with Pack(tmp / f"pack-{checksum}.idx") as p:
                for oid, frame in p.frames_in_body_order():
                    if isinstance(frame, CorruptObject):
                        raise frame
                    obj = decode(frame, strict=False)
                    out[oid] = obj.parent if isinstance(obj, (Fact, Turn)) else None
                    if heads is not None:
                        heads.add(oid, obj)
        except InvalidInput as e:
            raise IntegrityError(str(e)) from None
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def own_orphan_packs(store: Store, r: Remote, names: list[str], sent: set[str]) -> dict[str, str] | None:
    """Whether the packs ``names`` of a remote with no manifest are this
    store's: a first push killed after its upload and before its manifest
    (rob10).  Every name must be one this store recorded sending and no
    manifest of its named yet (``sent``: ``config.sent_packs``; a remote
    whose manifest was lost after a push that finished is not this case:
    it stays an integrity error for ``push --repair``); each is read back
    and verified as a pull does (its name, the seal, every entry
    re-hashed); and every object in it must be one this store holds (an id
    is the hash of the object's bytes: then the packs hold nothing this
    store could not send again, and adopting them loses nothing).  Returns
    the refs the packs imply (:class:`AdoptedRefs`), or None when one of
    these fails (another machine's first push in flight, lost data)."""
    if not names or not set(names) <= sent:
        return None
    heads = AdoptedRefs()
    scratch = store.root / "tmp" / f"repair-{os.getpid()}-{os.urandom(3).hex()}"
    for name in names:
        try:
            ids = read_remote_pack(r, name, scratch, heads)
        except (IntegrityError, RefConflict, CorruptObject):
            return None
        if not all(store.has(oid) for oid in ids):
            return None
    return heads.refs()


def repair_remote(store: Store, r: Remote, spec: RemoteSpec, res: SyncResult,
                  progress: Progress | None = None) -> None:
    """``mem push --repair``: read back every pack the remote's manifest
    names and verify it as a pull would; a damaged or missing pack is
    replaced by a new one holding, from this store, every object the
    remote's refs and snapshots reach that no sound pack holds (each
    re-hashed here), then dropped by the manifest swap and deleted.  An
    object this store lacks too is listed in ``res.remote_objects_lost``;
    then the damaged pack stays named (another machine may hold the rest)
    and IntegrityError is raised after what could be sent was sent.

    A remote whose manifest is lost or damaged (``r.adopt``: the manifest
    read adopts every pack) gets its refs back from the sound packs
    (:class:`AdoptedRefs`, kept in ``r.adopted_refs``): the push that
    follows merges them as a pull would, so a ref only that manifest named
    is not lost.

    Raises IntegrityError, WrongKey, RemoteUnavailable, and RefConflict
    when other pushers won the compare-and-swap ``MAX_ATTEMPTS`` times."""
    if r.desc is None:
        return
    scratch = store.root / "tmp" / f"repair-{os.getpid()}-{os.urandom(3).hex()}"
    for _attempt in range(MAX_ATTEMPTS):
        m, etag, _n = r.manifest()
        heads = AdoptedRefs() if r.adopted else None
        parents: dict[str, str | None] = {}
        damaged: list[str] = []
        for i, name in enumerate(m.packs):
            if progress:
                progress("verify", i, len(m.packs))
            try:
                parents.update(read_remote_pack(r, name, scratch, heads))
            except (IntegrityError, RefConflict):
                damaged.append(name)
        if heads is not None:
            r.adopted_refs = m.refs = heads.refs()
        res.remote_packs_checked = len(m.packs)
        if progress:
            progress("verify", len(m.packs), len(m.packs))
        if not damaged:
            return
        # every object the remote's refs and snapshots reach that no sound pack holds
        need: list[str] = []
        lost: list[str] = []
        seen: set[str] = set()
        heads = list(m.refs.values()) + [o for snap in m.snapshots for o in snap.refs.values()]
        for oid in heads:
            while oid is not None and oid not in seen:
                seen.add(oid)
                if oid in parents:
                    oid = parents[oid]
                    continue
                try:
                    frame = verified_frame(store, oid)
                except (NotFound, IntegrityError):
                    lost.append(oid)
                    break
                need.append(oid)
                obj = decode(frame, strict=False)
                oid = obj.parent if isinstance(obj, (Fact, Turn)) else None
        new_name = None
        tmp = scratch.with_name(scratch.name + "-pack")
        shutil.rmtree(tmp, ignore_errors=True)
        refuse_scratch(tmp.parent)   # a file in place of tmp/: named, exit 13
        tmp.mkdir(parents=True)
        try:
            if need:
                with PackWriter(tmp) as w:
                    for oid in need:
                        w.add(verified_frame(store, oid))
                    w.finish()
                idx_path = next(tmp.glob("pack-*.idx"))
                stored = r.sealer.seal(bundle(idx_path.with_suffix(".pack").read_bytes(), idx_path.read_bytes()))
                new_name = content_name(stored)
                upload_pack(r.t, f"packs/{new_name}", stored)
                res.bytes_sent += len(stored)
            drop = [] if lost else damaged
            packs = sorted((set(m.packs) - set(drop)) | ({new_name} if new_name else set()))
            if new_name is not None or drop:   # else nothing this store can mend (raised below)
                # a bundle of the same objects can have the damaged one's name (an unencrypted remote's
                # bundles are deterministic): upload_pack rewrote it whole, so it is no garbage
                new = Manifest(seq=m.seq + 1, time=now_ms(), refs=dict(m.refs), packs=packs, done=list(m.done),
                               garbage=sorted((set(m.garbage) | set(drop)) - {new_name}), snapshots=list(m.snapshots))
                try:
                    etag2 = r.t.swap(MANIFEST, r.sealer.seal(new.encode()), etag)
                except RefConflict:
                    if new_name:
                        r.t.delete(f"packs/{new_name}")
                    continue
                drop_garbage(r, new, etag2)
                cache = {p: v for p, v in rconfig.load_ids(store, spec.name).items() if p in packs}
                if new_name:
                    cache[new_name] = b"".join(bytes.fromhex(o) for o in sorted(need))
                rconfig.save_ids(store, spec, cache)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        res.remote_packs_repaired = sorted(drop)
        res.remote_objects_resent = len(need)
        res.remote_objects_lost = sorted(lost)
        if lost:
            raise IntegrityError(
                f"the remote {spec.name} lost {len(lost)} object(s) that this store does not hold either "
                f"(in {len(damaged)} damaged pack(s)); {len(need)} sent again",
                hint="run 'mem push --repair' on a machine that has them, or restore the remote from a backup")
        return
    raise RefConflict(f"remote {spec.name} manifest", None, None)
