"""Backups: dated snapshots of the refs in the manifest, their tiers, their purge after a
forget, and ``mem restore`` from one."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from objstore.core.errors import AmbiguousId, InvalidInput, NotFound, WrongKey
from objstore.core.objects import Fact, QueueItem, Turn
from objstore.core.store import Store
from objstore.memory.opening import open_store
from objstore.remote import config as rconfig
from objstore.remote.config import RemoteSpec
from objstore.remote.layout import DESCRIPTOR, Descriptor, Manifest, Snapshot
from objstore.remote.merge import ForgetIndex, merge_chain
from objstore.remote.connection import (Progress, Remote, SyncResult, add_found_remote, connect, no_remote,
                                        refuse_lost_descriptor, sealer_for)
from objstore.remote.transport import open_transport
from objstore.remote.digests import count_unguarded, receive_digests, receive_hash_key
from objstore.remote.fetch import SYNCED, RemoteObjects, read_chain, download_packs, install, merge


DAY_MS = 86_400_000
#: keep the newest snapshot of each of these ages (days), as memware does
TIERS_DAYS = (1, 3, 7, 14)


def keep_snapshots(times: list[int], now: int) -> set[int]:
    """Indexes of the snapshots to keep: the newest one, and for each tier
    (1, 3, 7, 14 days) the oldest snapshot not older than the tier.  Older
    than 14 days: pruned."""
    if not times:
        return set()
    keep = {max(range(len(times)), key=lambda i: times[i])}
    for days in TIERS_DAYS:
        cands = [i for i, t in enumerate(times) if now - t <= days * DAY_MS]
        if cands:
            keep.add(min(cands, key=lambda i: times[i]))
    return keep


def queue_dropped(store: Store, head: str, fidx: ForgetIndex) -> bool:
    """True when a snapshot's ``queue/<id>`` ref (its item's object id
    ``head``) names a proposal this store dropped: its object deleted here
    (a forget or seal took it, or a pull refused it) or its value forgotten
    (``ForgetIndex.queue_item_forgotten``).  The snapshot loses the ref, as
    the live refs did (fresh40 F16).  Raises CorruptObject."""
    return not store.has(head) or fidx.queue_item_forgotten(store.get(head, QueueItem))


def purge_snapshot(store: Store, s: Snapshot, fidx: ForgetIndex, live_refs: Mapping[str, str],
                   remote: RemoteObjects) -> Snapshot:
    """A snapshot with every forgotten value emptied, as the live refs are
    (the same deterministic rewrite; objects written here are pushed)."""
    refs: dict[str, str] = {}
    for name, head in s.refs.items():
        if name.startswith(("facts/", "sessions/")):
            if name.startswith("sessions/") and name[len("sessions/"):] in fidx.sessions:
                continue
            typ = Fact if name.startswith("facts/") else Turn
            chain = read_chain(store, head, typ, remote=remote)
            if not chain:   # replaced here: the live ref's value stands in for it
                if name in live_refs:
                    refs[name] = live_refs[name]
                continue
            out = merge_chain(chain, chain, fidx, "fact" if typ is Fact else "turn")
            for oid in out.final_ids:   # kept as they are: a pack rewrite may have to re-send them
                if oid in remote.fetched and not store.has(oid):
                    store.put(remote.fetched[oid])
            for _oid, obj in out.new_objects:
                store.put(obj)
            if out.head is not None:
                refs[name] = out.head
        elif name.startswith("queue/") and queue_dropped(store, head, fidx):
            continue
        else:
            refs[name] = head
    return Snapshot(s.name, s.time, refs, s.sealed)


def list_snapshots(store: Store, spec: RemoteSpec, env: Mapping[str, str] | None = None) -> list[dict]:
    """``[{"name", "time", "refs"}]`` of the remote's snapshots, oldest first
    (``time``: epoch ms).  Raises as :func:`connect` (IntegrityError for a
    remote that lost its ``mem-remote`` file beside its manifest)."""
    r = connect(store, spec, env, create=False)
    return _listing(r.manifest()[0])


def list_snapshots_at(url: str, *, endpoint: str | None = None, key: str | None = None,
                      env: Mapping[str, str] | None = None) -> list[dict]:
    """:func:`list_snapshots` of the remote at ``url`` read with no store (a
    new machine, before ``mem restore``; fresh38 F25): ``key`` is the sync
    identity (``AGE-SECRET-KEY-1…``) an encrypted remote needs.  Raises
    NotFound (no mem remote there), WrongKey (encrypted, and no key or
    another one), IntegrityError, RemoteUnavailable, UnsupportedVersion."""
    t = open_transport(url, endpoint=endpoint, env=env, create=False)
    try:
        desc = Descriptor.decode(t.read(DESCRIPTOR)[0])
    except NotFound:
        t.check()
        refuse_lost_descriptor(t)
        raise no_remote(t, url) from None
    if desc.encryption != "none" and not key:
        raise WrongKey(f"the remote {url} is encrypted and no sync key was given",
                       hint="on the machine that made it run 'mem remote key export -o FILE', then give "
                            "--key FILE")
    r = Remote(t, desc, sealer_for(desc, key or "", url))
    return _listing(r.manifest()[0])


def _listing(m: Manifest) -> list[dict]:
    return [{"name": s.name, "time": s.time, "refs": len(s.refs)} for s in sorted(m.snapshots, key=lambda s: s.time)]


def restore(root: str | os.PathLike, url: str, *, snapshot: str | None = None, name: str = "origin",
            endpoint: str | None = None, key: str | None = None, env: Mapping[str, str] | None = None,
            progress: Progress | None = None) -> tuple[Store, SyncResult]:
    """Rebuild an empty store at ``root`` from a snapshot (``None``: the
    latest) of the remote: objects, refs and index.  Every tombstone the
    remote holds now is installed too, also those written after the
    snapshot, and applied to the snapshot's refs by the merge a pull runs
    (:func:`objstore.remote.fetch.merge`): a value forgotten since stays
    forgotten.  Raises NotFound (no snapshot), and as :func:`clone`."""
    root = Path(root).expanduser()
    existed = root.exists()
    store = open_store(root, create=True)
    try:
        if any(True for ns in SYNCED for _ in store.refs.iter(ns)):
            raise InvalidInput(f"{root} is not empty: restore rebuilds an empty store",
                               hint="restore into a new --home, then move it in place")
        if key:
            rconfig.write_key(store, key)
        known = {x.name: x for x in rconfig.list_remotes(store)}
        spec = known.get(name)
        if spec is None:
            try:
                spec, r = add_found_remote(store, name, url, endpoint, env)
            except WrongKey:
                if key:
                    raise
                raise WrongKey(f"the backup at {url} is encrypted and no sync key was given",   # fresh37 F11
                               hint="on the machine that made it run 'mem remote key export -o FILE', then "
                                    f"'mem restore {url} --key FILE'") from None
        else:
            r = connect(store, spec, env, create=False)
        m, _e, n = r.manifest()
        if not m.snapshots:
            raise NotFound(f"the remote {url} has no snapshot", hint="make one with: mem backup")
        snaps = sorted(m.snapshots, key=lambda s: s.time)
        if snapshot in (None, "latest"):
            pick = snaps[-1]
        else:   # the name, or its unique prefix (fresh38 F23: the oldest of two matches was restored, exit 0)
            hits = [s for s in snaps if s.name == snapshot] or [s for s in snaps if s.name.startswith(snapshot)]
            if len(hits) > 1:
                raise AmbiguousId(f"snapshot prefix {snapshot!r} matches {len(hits)} snapshots: "
                                  + ", ".join(s.name for s in hits[:4]) + ("…" if len(hits) > 4 else ""),
                                  hint="give more of the name (mem backup --list NAME lists them)")
            pick = hits[0] if hits else None
        if pick is None:
            raise NotFound(f"no snapshot {snapshot}",   # (fresh39 F12: 'mem backup --list' needs a store)
                           hint=f"list them: mem backup --list {url}" + (" --key FILE" if key else ""))
        res = SyncResult(remote=spec.name, snapshot=pick.name, bytes_received=n, snapshot_sealed=pick.sealed)
        prep = download_packs(store, r, m, spec, res, progress)
        # the snapshot's refs, and every tombstone the remote holds now: a forget made after the
        # snapshot was taken still holds here (merge installs them first and applies them, as a pull does)
        refs = dict(pick.refs)
        refs.update((n, oid) for n, oid in m.refs.items() if n.startswith("tombstones/"))
        view = Manifest(refs=refs, done=list(m.done))
        try:
            with store.lock("restore"):
                install(store, prep, spec)
                res.digests_received = receive_digests(store, r)   # the tombstones' digests (remote.digests), before they are read
                receive_hash_key(store, r)  # the backed-up store's key: its prompt ids stay matched
                merge(store, view, res, "restore")
                res.tombstones_unguarded = count_unguarded(store, r, res.refs_updated)
        finally:
            shutil.rmtree(prep.tmp, ignore_errors=True)
        return store, res
    except BaseException:
        store.close()
        if not existed:
            shutil.rmtree(root, ignore_errors=True)
        raise
