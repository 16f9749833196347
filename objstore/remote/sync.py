"""push, pull, clone and backup against a remote (``docs/design.md``
"Remotes"; the layout in ``docs/format.md`` "Remotes").

**Pull** reads the manifest, downloads the pack bundles this store has not
seen (each checked against its name, decrypted, its every object re-hashed),
installs them as local packs (``.pack`` then ``.idx``, as a local pack is
written), then, under the store lock: tombstones first, then every fact and
session ref that differs is merged (``objstore.remote.merge``), queue items
are united, and the index catches up through the journal
(``objstore.memory.recovery``).  Objects that a tombstone forgets are
journalled for deletion *before* their pack is installed, so a crash cannot
leave them behind.

**Push** is a pull, then: the objects the remote lacks (walked from each
ref's head down to an id a remote pack holds) go in new pack bundles of at
most ``upload.BUNDLE_FRAME_BYTES`` of objects each, uploaded before the
manifest names them (objects before pointers); then the
manifest is replaced by compare-and-swap on its etag.  When the merge
rewrote or removed a ref the remote had (a forget, a merge), every remote
pack holding an object no ref reaches any more is rewritten: its survivors
(all of them, also those the walk from the heads stops above) go in the new
bundles, and it is deleted after the manifest that drops it is written;
bounded bundles make that cost the bundles that held the forgotten
objects, not the whole store.  A lost compare-and-swap (another machine
pushed) deletes the unlisted bundles and starts again from the pull.

The commands are here; their parts, by concern: ``connection`` (an opened
remote, :class:`SyncResult`), ``fetch`` (download, install, merge: the pull
half of every sync), ``upload`` (what a push sends, checked uploads, deleting
replaced packs and orphans), ``repair`` (``push --repair``) and
``snapshots`` (backups, their tiers and purge, ``mem restore``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from objstore.core.errors import RefConflict
from objstore.core.pack import Pack
from objstore.core.store import Store, now_ms
from objstore.core.sealstate import refuse_while_stopped
from objstore.core.unfinished import refuse_while_unfinished
from objstore.core.storepath import refuse_scratch
from objstore.memory.opening import open_store
from objstore.vault.chains import list_sealed
from objstore.remote import config as rconfig
from objstore.remote.config import RemoteSpec
from objstore.remote.connection import (MAX_ATTEMPTS, Progress, Remote, SyncResult, add_found_remote, connect,
                                        remote_info)
from objstore.remote.digests import send_digests, send_hash_key
from objstore.remote.fetch import RemoteObjects, decided_items, fetch, forget_index, local_refs
from objstore.remote.layout import MANIFEST, Manifest, Snapshot, bundle, content_name
from objstore.remote.repair import own_orphan_packs, repair_remote
from objstore.remote.snapshots import (DAY_MS, TIERS_DAYS, keep_snapshots, list_snapshots, list_snapshots_at,
                                       queue_dropped, restore)
from objstore.remote.snapshots import purge_snapshot as _purge_snapshot   # looked up here by push (a test wraps it)
from objstore.remote.upload import (delete_orphans, drop_garbage, reachable_from, rollup, to_send, upload_check,
                                    upload_pack, write_bundles)

__all__ = ["DAY_MS", "MAX_ATTEMPTS", "TIERS_DAYS", "SyncResult", "backup", "clone", "connect", "keep_snapshots",
           "list_snapshots", "list_snapshots_at", "pull", "push", "remote_info", "restore", "upload_check",
           "upload_pack"]

_Remote = Remote   # the opened remote's class under its former name here (tests patch its methods)


def pull(store: Store, spec: RemoteSpec, *, env: Mapping[str, str] | None = None,
         progress: Progress | None = None) -> SyncResult:
    """Fetch a remote's objects and merge its refs into ``store``.

    Raises:
        RemoteUnavailable (15), WrongKey (12), UnsupportedVersion (14),
        IntegrityError (13), StoreLocked (11).  Nothing local changes
        before every downloaded pack has been verified.
    """
    res = SyncResult(remote=spec.name)
    r = connect(store, spec, env, create=False)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        res.attempts = attempt
        try:
            fetch(store, r, spec, res, progress, "pull")
            break
        except RefConflict:      # a pack vanished under us: a push replaced it; read the manifest again
            continue
    else:
        raise RefConflict(f"remote {spec.name} manifest", None, None)
    res.versioning = None
    return res


def push(store: Store, spec: RemoteSpec, *, env: Mapping[str, str] | None = None,
         progress: Progress | None = None, snapshot: bool = False, snapshot_tiers: bool = True,
         repair: bool = False, new_remote: bool = False, _now: int | None = None) -> SyncResult:
    """Pull, then send what the remote lacks and move its manifest.

    A remote with packs and no manifest whose packs this store wrote (a
    first push killed before its manifest) is finished without
    ``--repair``: the packs are verified and adopted
    (:func:`objstore.remote.repair.own_orphan_packs`,
    ``res.remote_packs_adopted``).

    With ``snapshot`` (``mem backup``) the new manifest also records a dated
    snapshot of the refs, and snapshots beyond the tiers are pruned
    (:func:`prune_snapshots`).  With ``repair`` every remote pack is read
    back and verified first, and damaged ones are replaced from this store
    (:func:`repair_remote`).

    Raises as :func:`pull`, RefConflict when another machine won the
    compare-and-swap ``MAX_ATTEMPTS`` times in a row, and ForgetUnfinished
    (exit 6; nothing sent, the remote unchanged) while a forget stopped
    before it wrote all its tombstones is not run again
    (``objstore.core.unfinished``): what it removes may still be stored.
    RemoteUnavailable (exit 15) for an empty remote this store synced with
    before (``connection.refuse_emptied``: an unmounted disk), unless
    ``new_remote``: then a new remote is made there.
    """
    action = "backup" if snapshot else "push"
    refuse_while_stopped(store, action, journal=False)   # before connecting: nothing is sent
    # (a forget the journal names is finished by the lock below: checked again under it)
    res = SyncResult(remote=spec.name)
    r = connect(store, spec, env, create=True, new_remote=new_remote)
    res.versioning = r.t.versioning()
    send_digests(store, r)   # before a manifest names tombstones keyed with them (remote.digests)
    send_hash_key(store, r)  # a clone or restore keys its prompt ids as this store does (remote.digests)
    r.adopt = repair
    if repair:
        kept = rconfig.load_snapshots(store, spec.name)
        r.adopted_snapshots = kept or []
        repair_remote(store, r, spec, res, progress)
    else:   # a first push of ours killed between its packs and its manifest: the manifest read finishes it
        r.own_packs = lambda names: own_orphan_packs(store, r, names, rconfig.sent_packs(store, spec.name))
    for attempt in range(1, MAX_ATTEMPTS + 1):
        res.attempts = attempt
        try:
            m, etag, cache, rep = fetch(store, r, spec, res, progress, "push")
        except RefConflict:
            continue
        if r.adopted and not repair:
            res.remote_packs_adopted = len(m.packs)
        if r.adopted and repair:   # (fresh42 F21: the snapshots lived only in the damaged manifest)
            res.snapshots_recovered, res.snapshots_unknown = len(r.adopted_snapshots), kept is None
        rolled = rollup(r.t, m.packs)   # many small bundles: their live objects go in new ones
        new_names: list[str] = []
        tmp = store.root / "tmp" / f"push-{os.getpid()}"
        try:   # (removed on every way out: an error under the lock left it behind, fresh40 F16)
            with store.lock("push"):
                refuse_while_unfinished(store.unfinished, action)   # one stopped since the check above
                shutil.rmtree(tmp, ignore_errors=True)
                refuse_scratch(tmp.parent)   # a file in place of tmp/: named, exit 13
                tmp.mkdir(parents=True)
                refs = local_refs(store)
                fidx = forget_index(store)
                snaps = list(m.snapshots)
                now = _now if _now is not None else now_ms()
                if snapshot:   # (test37b T19.9: with the sealed keys it leaves out, for restore's note)
                    res.snapshot_sealed = len(list_sealed(store))
                    snaps.append(Snapshot(f"{now:013d}-{os.urandom(4).hex()}", now, dict(refs), res.snapshot_sealed))
                    res.snapshot = snaps[-1].name
                if snapshot_tiers:
                    keep = keep_snapshots([s.time for s in snaps], now)
                    res.snapshots_pruned = [s.name for i, s in enumerate(snaps) if i not in keep]
                    snaps = [s for i, s in enumerate(snaps) if i in keep]
                have = {cache[p][i:i + 32].hex() for p in m.packs if p in cache for i in range(0, len(cache[p]), 32)}
                # (a queue item gone here is kept on the remote, unless this store deleted its object: a
                # proposal to a key sealed here that a pull refused, fetch.merge)
                gc = rep.remote_rewritten or any(n not in refs and (not n.startswith("queue/") or not store.has(o))
                                                 for n, o in m.refs.items()) \
                    or bool(res.snapshots_pruned) or (r.adopted and bool(m.packs)) or bool(rolled) \
                    or any(n.startswith("queue/") and queue_dropped(store, o, fidx)   # a backup's proposal a
                           for s in snaps for n, o in s.refs.items())   # forget or seal dropped here (fresh40 F16)
                replaced: list[str] = []
                try:
                    snaps = [_purge_snapshot(store, s, fidx, refs, RemoteObjects(r, cache)) for s in snaps] \
                        if gc else snaps
                except RefConflict:   # a pack it read was replaced by another push since the fetch: start again
                    shutil.rmtree(tmp, ignore_errors=True)
                    continue
                survivors: list[str] = []
                if gc:
                    live = reachable_from(store, refs)
                    for s in snaps:
                        live |= reachable_from(store, s.refs)
                    for p in m.packs:
                        ids = {cache[p][i:i + 32].hex() for i in range(0, len(cache[p]), 32)}
                        if ids - live or p in rolled:
                            replaced.append(p)
                            have -= ids
                            survivors += sorted(ids & live)
                    snap_refs = {f"{s.name}/{k}": v for s in snaps for k, v in s.refs.items()}
                    send = to_send(store, {**refs, **snap_refs}, have)
                    # a replaced bundle's live objects go again even where the walk above stopped before them
                    # (a chain whose newer part is in a bundle that stays: its older part would be lost)
                    sending = set(send)
                    send += [o for o in survivors if o not in sending]
                else:
                    send = to_send(store, refs, have)
                idx_paths = write_bundles(store, send, fidx, tmp, progress)
            sizes = [p.stat().st_size + p.with_suffix(".pack").stat().st_size for p in idx_paths]
            for i, idx_path in enumerate(idx_paths):
                if progress:
                    progress("send", sum(sizes[:i]), sum(sizes))
                stored = r.sealer.seal(bundle(idx_path.with_suffix(".pack").read_bytes(), idx_path.read_bytes()))
                name = content_name(stored)
                rconfig.note_sent(store, spec.name, name)   # before the upload: a kill leaves the record
                upload_pack(r.t, f"packs/{name}", stored)   # read back by size/checksum before it is named
                new_names.append(name)
                res.bytes_sent += len(stored)
                res.packs_sent += 1
            if progress and idx_paths:
                progress("send", sum(sizes), sum(sizes))
            res.objects_sent += len(send)
            packs = [p for p in m.packs if p not in replaced] + new_names
            new = Manifest(seq=m.seq + 1, time=now_ms(), refs=refs, packs=sorted(set(packs)),
                           done=sorted(set(m.done) | decided_items(store)),
                           garbage=sorted(set(m.garbage) | set(replaced)), snapshots=snaps)
            if new.refs == m.refs and new.packs == sorted(m.packs) and not m.garbage and not new_names \
                    and new.done == sorted(m.done) and len(snaps) == len(m.snapshots) and not snapshot \
                    and not r.adopted:   # an adopted manifest is written even when it says the same
                rconfig.save_snapshots(store, spec.name, snaps)
                break   # nothing to do
            data = r.sealer.seal(new.encode())
            try:
                etag2 = r.t.swap(MANIFEST, data, etag)
            except RefConflict:
                for name in new_names:
                    r.t.delete(f"packs/{name}")
                res.objects_sent = res.bytes_sent = res.packs_sent = 0
                continue
            res.bytes_sent += len(data)
            drop_garbage(r, new, etag2)   # the manifest no longer names them: now the replaced packs go
            res.remote_packs_rewritten = len(replaced)
            stamps = delete_orphans(r.t, set(new.packs))
            cache = {p: v for p, v in cache.items() if p in new.packs}
            seen = {p: v for p, v in rconfig.load_seen(store, spec.name).items() if p in new.packs}
            # read back whole after the upload (upload_pack): verified as they stand now
            seen.update({p: stamps[p] for p in new_names if p in stamps})
            rconfig.save_seen(store, spec.name, seen)
            for name, idx_path in zip(new_names, idx_paths):
                with Pack(idx_path) as p:
                    cache[name] = b"".join(bytes.fromhex(o) for o in sorted(p))
            rconfig.save_ids(store, spec, cache)
            rconfig.save_snapshots(store, spec.name, snaps)   # for a repair of a damaged manifest (fresh42 F21)
            rconfig.clear_sent(store, spec.name)         # a manifest names them now
            break
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    else:
        raise RefConflict(f"remote {spec.name} manifest", None, None)
    send_digests(store, r)   # those of a tombstone written meanwhile (nothing when none was)
    if progress:
        progress("done", 1, 1)
    return res


# -- clone --------------------------------------------------------------------------------

def clone(root: str | os.PathLike, url: str, *, name: str = "origin", endpoint: str | None = None,
          key: str | None = None, encrypt: bool = True, env: Mapping[str, str] | None = None,
          progress: Progress | None = None, lock_timeout: float = 10.0) -> tuple[Store, SyncResult]:
    """Create a store at ``root`` from a remote: remote ``name`` recorded
    (``encrypt`` as the remote's descriptor says, whatever ``encrypt``),
    the sync key stored, every object fetched, refs set, index built.

    On any error a store this call created is removed again.
    Raises InvalidInput (``root`` not empty), and as :func:`pull`.
    """
    root = Path(root).expanduser()
    existed = root.exists()
    store = open_store(root, create=True, lock_timeout=lock_timeout)
    try:
        if key:
            rconfig.write_key(store, key)
        spec, _r = add_found_remote(store, name, url, endpoint, env)
        res = pull(store, spec, env=env, progress=progress)
        return store, res
    except BaseException:
        store.close()
        if not existed:
            shutil.rmtree(root, ignore_errors=True)
        else:
            for p in root.iterdir():
                shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
        raise


def backup(store: Store, spec: RemoteSpec, *, env: Mapping[str, str] | None = None,
           progress: Progress | None = None, _now: int | None = None) -> SyncResult:
    """Push and record a dated snapshot; prune snapshots beyond the tiers."""
    return push(store, spec, env=env, progress=progress, snapshot=True, _now=_now)

