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
ref's head down to an id a remote pack holds) go in one new pack bundle,
uploaded before the manifest names it (objects before pointers); then the
manifest is replaced by compare-and-swap on its etag.  When the merge
rewrote or removed a ref the remote had (a forget, a merge), every remote
pack holding an object no ref reaches any more is rewritten: its survivors
go in the new bundle, and it is deleted after the manifest that drops it
is written.  A lost compare-and-swap (another machine pushed) deletes the
unlisted bundle and starts again from the pull.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from objstore.core.atomic import fsync_dir
from objstore.core.codec import decode
from objstore.core.pack import PackBytes
from objstore.core.errors import (CorruptObject, IntegrityError, InvalidInput, NotFound, RefConflict,
                                  RemoteUnavailable, WrongKey)
from objstore.core.objects import Fact, QueueItem, Tombstone, Turn
from objstore.core.pack import Pack
from objstore.core.packwriter import PackWriter
from objstore.core.refs import fact_ref, session_ref
from objstore.core.store import Store, now_ms
from objstore.memory import queue
from objstore.memory.forget import scrub_derived
from objstore.memory.opening import open_store
from objstore.memory.recovery import recover
from objstore.remote import config as rconfig
from objstore.remote.config import RemoteSpec
from objstore.remote.layout import (DESCRIPTOR, Descriptor, MANIFEST, Manifest, REMOTE_FORMAT, Sealer,
                                    Snapshot, bundle, check_identity, content_name, unbundle)
from objstore.remote.merge import ForgetIndex, merge_chain
from objstore.remote.transport import Transport, open_transport

Progress = Callable[[str, int, int], None]
MAX_ATTEMPTS = 12
ORPHAN_GRACE_S = 15 * 60
#: a remote without a manifest whose packs are older than this lost its
#: manifest (a first push writes its manifest right after its pack)
MANIFEST_LOST_AFTER_S = 60
#: how long a read waits for the manifest of a first push in flight (its
#: newest pack's age, and the wait here), seconds
FIRST_PUSH_WAIT_S = 15
SYNCED = ("facts", "sessions", "tombstones", "queue")
#: what to do about a damaged remote pack
REPAIR_HINT = ("run 'mem push --repair' on a machine that has the data (it replaces the damaged pack), "
               "or restore the remote from a backup")


@dataclass
class SyncResult:
    """What a push, pull, clone, backup or restore did (``--json`` shape:
    :meth:`as_dict`)."""

    remote: str = ""
    objects_sent: int = 0
    bytes_sent: int = 0
    objects_received: int = 0
    bytes_received: int = 0
    packs_sent: int = 0
    packs_received: int = 0
    refs_updated: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    queued: list[str] = field(default_factory=list)
    forgotten: int = 0
    remote_packs_rewritten: int = 0
    attempts: int = 0
    snapshot: str | None = None
    snapshots_pruned: list[str] = field(default_factory=list)
    versioning: str | None = None
    #: ``push --repair``: remote packs read back and verified, the damaged
    #: or missing ones replaced, and the objects no machine here could resend
    remote_packs_checked: int = 0
    remote_packs_repaired: list[str] = field(default_factory=list)
    remote_objects_resent: int = 0
    remote_objects_lost: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        """The summary as a JSON-ready dict."""
        return {k: (sorted(v) if isinstance(v, (list, set)) else v) for k, v in self.__dict__.items()}


class _Remote:
    """An opened remote: transport, descriptor and sealer."""

    def __init__(self, t: Transport, desc: Descriptor | None, sealer: Sealer | None) -> None:
        self.t, self.desc, self.sealer = t, desc, sealer
        self.adopt = False   # push --repair: a lost manifest's packs are adopted (listed, then rewritten)

    def manifest(self) -> tuple[Manifest, str | None, int]:
        """The remote's manifest, its etag (None: there is none yet) and
        its stored size.

        A remote with packs but no manifest is never read as empty (a
        clone or push from it would orphan them):

        - packs older than :data:`MANIFEST_LOST_AFTER_S`: the manifest was
          lost, IntegrityError;
        - younger packs only: a first push may be between its pack and its
          manifest, so the read is retried (backing off from 50 ms to 1 s)
          until the manifest appears, or the newest pack is
          :data:`FIRST_PUSH_WAIT_S` old, or that long has passed here; then
          RemoteUnavailable;
        - with ``adopt`` (``mem push --repair``): a manifest naming every
          pack, whatever its age, and no refs."""
        if self.desc is None:
            return Manifest(), None, 0
        import time
        deadline, delay = time.monotonic() + FIRST_PUSH_WAIT_S, 0.05
        while True:
            try:
                stored, etag = self.t.read(MANIFEST)
                return Manifest.decode(self.sealer.open(stored, "manifest")), etag, len(stored)
            except NotFound:
                pass
            listed = self.t.list("packs/")
            if not listed:
                return Manifest(), None, 0
            packs = sorted(n.rsplit("/", 1)[-1] for n, _size, _mtime in listed)
            if self.adopt:   # push --repair: every pack, whatever its age
                return Manifest(packs=packs), None, 0
            now = time.time()
            orphans = [n for n, _size, mtime in listed if now - mtime > MANIFEST_LOST_AFTER_S]
            if orphans:
                raise IntegrityError(f"the remote's manifest is missing but it holds {len(orphans)} pack(s)",
                                     hint="the damage is on the remote: run 'mem push --repair' on a machine "
                                          "that has the data (it adopts those packs and writes a manifest of "
                                          "its refs), or restore the remote's folder or bucket from a copy")
            newest = max(mtime for _n, _size, mtime in listed)
            if now - newest >= FIRST_PUSH_WAIT_S or time.monotonic() >= deadline:
                raise RemoteUnavailable(f"the remote holds {len(packs)} pack(s) but no manifest yet",
                                        hint="a first push may be writing it: try again in a minute; if it "
                                             "stays so, run 'mem push --repair' on a machine that has the data")
            time.sleep(delay)   # a first push in flight: its manifest follows its pack
            delay = min(delay * 2, 1.0)

    def pack(self, name: str) -> tuple[bytes, bytes, int]:
        try:
            stored, _e = self.t.read(f"packs/{name}")
        except NotFound:
            if name in self.manifest()[0].packs:   # still named: lost on the remote, not replaced by a push
                raise IntegrityError(f"remote pack {name[:16]}… is missing (its manifest names it)",
                                     hint=REPAIR_HINT) from None
            raise RefConflict("remote pack", name, None) from None  # replaced under us: retry from the manifest
        if content_name(stored) != name:
            raise IntegrityError(f"remote pack {name[:16]}… does not match its name (damaged on the remote)",
                                 hint=REPAIR_HINT)
        pack, idx = unbundle(self.sealer.open(stored, f"pack {name[:16]}…"))
        return pack, idx, len(stored)


def connect(store: Store, spec: RemoteSpec, env: Mapping[str, str] | None, *, create: bool) -> _Remote:
    """Open remote ``spec`` (transport, descriptor, sealer); ``create`` makes
    an empty one.  Raises RemoteUnavailable, WrongKey, UnsupportedVersion."""
    t = open_transport(spec.url, endpoint=spec.endpoint, env=env, create=create)
    try:
        desc = Descriptor.decode(t.read(DESCRIPTOR)[0])
    except NotFound:
        t.check()
        if not create:
            return _Remote(t, None, None)
        if spec.encrypt:
            from objstore.vault import age  # deferred: imports cryptography
            desc = Descriptor(REMOTE_FORMAT, "age-x25519", age.recipient_of(rconfig.ensure_key(store)))
        else:
            desc = Descriptor(REMOTE_FORMAT, "none", "")
        if not t.create(DESCRIPTOR, desc.encode()):      # another machine created it first
            desc = Descriptor.decode(t.read(DESCRIPTOR)[0])
    if desc.encryption == "none":
        return _Remote(t, desc, Sealer(None, None))
    ident = rconfig.read_key(store)
    if ident is None:
        raise WrongKey(f"the remote {spec.name} is encrypted and this store has no sync key",
                       hint="get it on the first machine with 'mem remote key export -o FILE', then "
                            "'mem remote key import FILE' here (or clone with --key FILE)")
    from objstore.vault import age  # deferred: imports cryptography
    if age.recipient_of(ident) != desc.recipient:
        raise WrongKey(f"the remote {spec.name} is encrypted to another sync key than this store's",
                       hint="import the key of the store that created it: mem remote key import FILE")
    return _Remote(t, desc, Sealer(desc.recipient, ident))


def remote_info(store: Store, spec: RemoteSpec, env: Mapping[str, str] | None = None) -> dict:
    """What a remote holds (for ``mem remote show``): format, encryption,
    refs, packs, snapshots, bucket versioning."""
    r = connect(store, spec, env, create=False)
    m, _e, _n = r.manifest()
    return {"name": spec.name, "url": spec.url, "exists": r.desc is not None,
            "encryption": r.desc.encryption if r.desc else None, "refs": len(m.refs), "packs": len(m.packs),
            "snapshots": [{"name": s.name, "time": s.time} for s in m.snapshots], "seq": m.seq,
            "versioning": r.t.versioning()}


# -- pull ---------------------------------------------------------------------------

def _forget_index(store: Store) -> ForgetIndex:
    fidx = ForgetIndex()
    for _n, oid in store.refs.iter("tombstones"):
        fidx.add(store.get(oid, Tombstone))
    return fidx


@dataclass
class _Prepared:
    """Downloaded, verified packs waiting to be installed (in ``tmp``)."""

    tmp: Path
    cache: dict[str, bytes]
    packs: list[tuple[str, str, list[str], list[str]]] = field(default_factory=list)  # name, checksum, ids, doomed


def _download_packs(store: Store, r: _Remote, m: Manifest, spec: RemoteSpec, res: SyncResult,
                    progress: Progress | None) -> _Prepared:
    """Download the remote packs this store lacks into a scratch directory,
    each checked against its name, decrypted and every entry re-hashed
    (no lock held: nothing of the store changes)."""
    cache = {k: v for k, v in rconfig.load_ids(store, spec.name).items() if k in m.packs}
    tmp = store.root / "tmp" / f"remote-{os.getpid()}-{os.urandom(3).hex()}"
    prep = _Prepared(tmp, cache)
    todo = [p for p in m.packs if p not in cache]
    if not todo:
        return prep
    fidx = _forget_index(store)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for i, name in enumerate(todo):
        if progress:
            progress("receive", i, len(todo))
        pack, idx, n = r.pack(name)
        res.bytes_received += n
        res.packs_received += 1
        checksum = idx[-64:-32].hex() if len(idx) >= 64 else ""
        (tmp / f"pack-{checksum}.pack").write_bytes(pack)
        (tmp / f"pack-{checksum}.idx").write_bytes(idx)
        doomed, ids = [], []
        try:
            with Pack(tmp / f"pack-{checksum}.idx") as p:
                for oid, frame in p.frames_in_body_order():  # each re-hashed against its id
                    if isinstance(frame, CorruptObject):
                        raise frame
                    ids.append(oid)
                    if not fidx:
                        continue
                    obj = decode(frame, strict=False)
                    if (isinstance(obj, Fact) and fidx.fact_time(obj) is not None) or \
                            (isinstance(obj, Turn) and (fidx.turn_time(obj) is not None
                                                        or obj.session in fidx.sessions)):
                        doomed.append(oid)
        except (IntegrityError, InvalidInput) as e:
            shutil.rmtree(tmp, ignore_errors=True)
            raise IntegrityError(f"remote pack {name[:16]}… is damaged: {e}", hint=REPAIR_HINT) from None
        for suffix in (".pack", ".idx"):
            with open(tmp / f"pack-{checksum}{suffix}", "rb") as f:
                os.fsync(f.fileno())
        res.objects_received += len(ids)
        prep.packs.append((name, checksum, ids, doomed))
    if progress:
        progress("receive", len(todo), len(todo))
    return prep


def _install(store: Store, prep: _Prepared, spec: RemoteSpec) -> dict[str, bytes]:
    """Install downloaded packs (caller holds the store lock, and merges in
    the same hold): objects a local tombstone forgets are journalled for
    deletion first, then ``.pack`` and ``.idx`` (last: it marks the pack
    complete) move in.  Returns the updated pack-ids cache."""
    cache = prep.cache
    if not prep.packs:
        return cache
    pack_dir = store.root / "objects" / "pack"
    pack_dir.mkdir(parents=True, exist_ok=True)
    doomed = [o for _n, _c, _i, d in prep.packs for o in d]
    if doomed:   # deleted once the merge has emptied them; a crash leaves the journal to finish it
        store.journal.append([f"D\t{o}" for o in doomed])
    for name, checksum, ids, _d in prep.packs:
        for suffix in (".pack", ".idx"):
            dst = pack_dir / f"pack-{checksum}{suffix}"
            if not dst.exists():
                os.replace(prep.tmp / f"pack-{checksum}{suffix}", dst)
                fsync_dir(pack_dir)
        cache[name] = b"".join(bytes.fromhex(o) for o in sorted(ids))
    rconfig.save_ids(store, spec.name, cache)
    store.packs.reload()
    return cache


class _RemoteObjects:
    """Objects of the remote's packs that this store no longer holds (a
    forget or a merge here removed them), read from the pack bundle in
    memory and never written as they are: a chain that reaches one must
    still be merged, since the other machine may have written on top."""

    def __init__(self, r: _Remote | None, cache: dict[str, bytes]) -> None:
        self.r, self.cache = r, cache
        self._where: dict[str, str] | None = None
        self._packs: dict = {}  # name -> objstore.core.pack.PackBytes
        self.fetched: dict[str, object] = {}

    def get(self, oid: str):
        if self.r is None:
            return None
        if self._where is None:
            self._where = {v[i:i + 32].hex(): name for name, v in self.cache.items() for i in range(0, len(v), 32)}
        name = self._where.get(oid)
        if name is None:
            return None
        if name not in self._packs:
            pack, idx, _n = self.r.pack(name)
            self._packs[name] = PackBytes(pack, idx)   # the layout: docs/format.md, Packs
        try:
            frame = self._packs[name].get(oid)
        except CorruptObject as e:
            raise IntegrityError(f"remote object {oid}: {e}") from None
        if frame is None:
            return None
        obj = decode(frame, strict=False)
        self.fetched[oid] = obj
        return obj


def _chain(store: Store, head: str | None, typ, *, remote: _RemoteObjects | None = None) -> list[tuple[str, object]]:
    """A ref's chain, oldest first.  For a remote head, an object missing
    here is read from the remote's pack (:class:`_RemoteObjects`); if even
    that fails the remote chain is treated as empty."""
    out = []
    seen = set()
    while head is not None and head not in seen:
        seen.add(head)
        try:
            obj = store.get(head, typ)
        except NotFound:
            obj = remote.get(head) if remote is not None else None
            if obj is None:
                if remote is not None:
                    return []
                raise
        out.append((head, obj))
        head = obj.parent
    out.reverse()
    return out


def _local_refs(store: Store) -> dict[str, str]:
    refs: dict[str, str] = {}
    for ns in SYNCED:
        refs.update(store.refs.iter(ns))
    return refs


def _decided_items(store: Store) -> set[str]:
    """Queue items decided here: a reflog under logs/refs/queue whose ref is gone."""
    d = store.root / "logs" / "refs" / "queue"
    if not d.is_dir():
        return set()
    return {f for f in os.listdir(d) if len(f) == 64 and store.refs.read(f"queue/{f}") is None}


@dataclass
class _MergeReport:
    remote_rewritten: bool = False


def _merge(store: Store, m: Manifest, res: SyncResult, command: str,
           remote: _RemoteObjects | None = None) -> _MergeReport:
    """Merge the manifest's refs into the store (caller holds the lock)."""
    remote = remote or _RemoteObjects(None, {})
    rep = _MergeReport()
    now = now_ms()
    local = _local_refs(store)
    # 1. tombstones first
    for name, oid in sorted(m.refs.items()):
        if name.startswith("tombstones/") and name not in local:
            store.get(oid, Tombstone)  # present and sound before it is named
            store.update_ref(name, None, oid, command, audit_only=True)
            res.refs_updated.append(name)
    fidx = _forget_index(store)
    local = _local_refs(store)
    journal: list[str] = []
    moves: list[tuple[str, str | None, str | None, bool]] = []
    emptied: list[str] = []
    parked: list[QueueItem] = []
    sealed = {n[len("sealed/"):] for n, _ in store.refs.iter("sealed")}
    names = sorted({n for n in (*local, *m.refs) if n.startswith(("facts/", "sessions/"))})
    for name in names:
        lh, rh = local.get(name), m.refs.get(name)
        is_fact = name.startswith("facts/")
        if lh == rh:
            continue
        if is_fact and name[len("facts/"):] in sealed:
            continue   # sealed here: a plain copy from elsewhere never comes back in the clear
        if not is_fact and name[len("sessions/"):] in fidx.sessions:
            out_head, rewritten, dropped, final = None, True, set(), set()
            lc = _chain(store, lh, Turn)
            rc = _chain(store, rh, Turn, remote=remote)
            emptied += [t.text for _i, t in lc + rc if t.text]
            dropped = {i for i, _ in lc + rc}
        else:
            typ = Fact if is_fact else Turn
            lc, rc = _chain(store, lh, typ), _chain(store, rh, typ, remote=remote)
            out = merge_chain(lc, rc, fidx, "fact" if is_fact else "turn")
            for oid in out.final_ids:   # kept as they are: they must exist here
                if oid in remote.fetched and not store.has(oid):
                    store.put(remote.fetched[oid])
            for oid, obj in out.new_objects:
                store.put(obj)
            emptied += out.emptied
            parked += out.parked
            out_head, final, dropped = out.head, out.final_ids, out.dropped_ids
            rewritten = bool(out.emptied) or (lh is not None and lh not in final)
        if rh is not None and rh not in final:
            rep.remote_rewritten = True
        if out_head == lh:
            continue
        key = name.split("/", 1)[1]
        if is_fact:
            journal.append(("P\t" if rewritten else "F\t") + key)
        else:
            journal.append(f"T\t{key}" if rewritten else f"S\t{key}\t{lh or '-'}")
        journal += [f"D\t{o}" for o in sorted(dropped)] if (emptied or rewritten) else []
        moves.append((name, lh, out_head, rewritten))
        if lh is not None and rh is not None and lh not in final and rh not in final:
            res.merged.append(name)
    if journal:
        store.journal.append(journal)
    for name, old, new, rewritten in moves:
        if rewritten or new is None:  # the old reflog names replaced ids (fingerprints of forgotten text)
            store.update_ref(name, old, new, f"{command}: history rewritten", time_ms=now, rewrite=True)
        else:
            store.update_ref(name, old, new, command, time_ms=now)
        res.refs_updated.append(name)
    # 2. review queue: the union, minus what was decided anywhere or forgotten
    done = set(m.done) | _decided_items(store)
    for name, oid in sorted(m.refs.items()):
        if not name.startswith("queue/"):
            continue
        iid = name[len("queue/"):]
        if iid in done or name in local:
            continue
        q = store.get(oid, QueueItem)
        if fidx.queue_item_forgotten(q):
            rep.remote_rewritten = True
            continue
        store.update_ref(name, None, oid, f"{command}: queued elsewhere", time_ms=now)
        res.refs_updated.append(name)
    for name in list(local):
        if name.startswith("queue/") and name[len("queue/"):] in set(m.done):
            store.update_ref(name, local[name], None, f"{command}: decided elsewhere", time_ms=now)
    for q in parked:
        ref = f"queue/{q.item_id}"
        if q.item_id in done or store.refs.read(ref) is not None:
            continue
        oid = store.put(q)
        store.update_ref(ref, None, oid, f"{command}: challenge from another machine", time_ms=now)
        res.queued.append(q.item_id)
    # 3. index, and the objects a tombstone forgets (the journal replay does both)
    if journal or not store.journal.is_empty():
        recover(store)
    if emptied:
        res.forgotten += len(emptied)
        queue.drop(store, needles=[e for e in emptied if e.strip()])
        scrub_derived(store, emptied)
    return rep


def _fetch(store: Store, r: _Remote, spec: RemoteSpec, res: SyncResult, progress: Progress | None,
           command: str) -> tuple[Manifest, str | None, dict[str, bytes], _MergeReport]:
    m, etag, n = r.manifest()
    res.bytes_received += n
    prep = _download_packs(store, r, m, spec, res, progress)
    try:
        with store.lock(command):   # one hold: a journal replay must not run between install and merge
            cache = _install(store, prep, spec)
            rep = _merge(store, m, res, command, _RemoteObjects(r, cache))
    finally:
        shutil.rmtree(prep.tmp, ignore_errors=True)
    return m, etag, cache, rep


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
            _fetch(store, r, spec, res, progress, "pull")
            break
        except RefConflict:      # a pack vanished under us: a push replaced it; read the manifest again
            continue
    else:
        raise RefConflict(f"remote {spec.name} manifest", None, None)
    res.versioning = None
    return res


# -- push -----------------------------------------------------------------------------

def _reachable_from(store: Store, refs: Mapping[str, str]) -> set[str]:
    seen: set[str] = set()
    for _name, oid in refs.items():
        while oid is not None and oid not in seen:
            seen.add(oid)
            obj = store.get(oid)
            oid = obj.parent if isinstance(obj, (Fact, Turn)) else None
    return seen


def _to_send(store: Store, refs: Mapping[str, str], have: set[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for _name, oid in sorted(refs.items()):
        while oid is not None and oid not in have and oid not in seen:
            seen.add(oid)
            out.append(oid)
            obj = store.get(oid)
            oid = obj.parent if isinstance(obj, (Fact, Turn)) else None
    return out


def _read_remote_pack(r: _Remote, name: str, tmp: Path) -> dict[str, str | None]:
    """Read remote pack ``name`` back and verify it as a pull does (its
    name, the seal, every entry re-hashed); returns ``{id: parent id or
    None}`` of its objects.  Raises IntegrityError (damaged), RefConflict
    (missing), WrongKey, RemoteUnavailable."""
    pack, idx, _n = r.pack(name)
    shutil.rmtree(tmp, ignore_errors=True)
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
        except InvalidInput as e:
            raise IntegrityError(str(e)) from None
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def repair_remote(store: Store, r: _Remote, spec: RemoteSpec, res: SyncResult,
                  progress: Progress | None = None) -> None:
    """``mem push --repair``: read back every pack the remote's manifest
    names and verify it as a pull would; a damaged or missing pack is
    replaced by a new one holding, from this store, every object the
    remote's refs and snapshots reach that no sound pack holds (each
    re-hashed here), then dropped by the manifest swap and deleted.  An
    object this store lacks too is listed in ``res.remote_objects_lost``;
    then the damaged pack stays named (another machine may hold the rest)
    and IntegrityError is raised after what could be sent was sent.

    Raises IntegrityError, WrongKey, RemoteUnavailable, and RefConflict
    when other pushers won the compare-and-swap ``MAX_ATTEMPTS`` times."""
    if r.desc is None:
        return
    scratch = store.root / "tmp" / f"repair-{os.getpid()}-{os.urandom(3).hex()}"
    for _attempt in range(MAX_ATTEMPTS):
        m, etag, _n = r.manifest()
        parents: dict[str, str | None] = {}
        damaged: list[str] = []
        for i, name in enumerate(m.packs):
            if progress:
                progress("verify", i, len(m.packs))
            try:
                parents.update(_read_remote_pack(r, name, scratch))
            except (IntegrityError, RefConflict):
                damaged.append(name)
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
                    frame = _verified_frame(store, oid)
                except (NotFound, IntegrityError):
                    lost.append(oid)
                    break
                need.append(oid)
                obj = decode(frame, strict=False)
                oid = obj.parent if isinstance(obj, (Fact, Turn)) else None
        new_name = None
        tmp = scratch.with_name(scratch.name + "-pack")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        try:
            if need:
                with PackWriter(tmp) as w:
                    for oid in need:
                        w.add(_verified_frame(store, oid))
                    w.finish()
                idx_path = next(tmp.glob("pack-*.idx"))
                stored = r.sealer.seal(bundle(idx_path.with_suffix(".pack").read_bytes(), idx_path.read_bytes()))
                new_name = content_name(stored)
                upload_pack(r.t, f"packs/{new_name}", stored)
                res.bytes_sent += len(stored)
            drop = [] if lost else damaged
            packs = sorted((set(m.packs) - set(drop)) | ({new_name} if new_name else set()))
            if new_name is not None or drop:   # else nothing this store can mend (raised below)
                new = Manifest(seq=m.seq + 1, time=now_ms(), refs=dict(m.refs), packs=packs, done=list(m.done),
                               garbage=sorted(set(m.garbage) | set(drop)), snapshots=list(m.snapshots))
                try:
                    etag2 = r.t.swap(MANIFEST, r.sealer.seal(new.encode()), etag)
                except RefConflict:
                    if new_name:
                        r.t.delete(f"packs/{new_name}")
                    continue
                _drop_garbage(r, new, etag2)
                cache = {p: v for p, v in rconfig.load_ids(store, spec.name).items() if p in packs}
                if new_name:
                    cache[new_name] = b"".join(bytes.fromhex(o) for o in sorted(need))
                rconfig.save_ids(store, spec.name, cache)
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


def push(store: Store, spec: RemoteSpec, *, env: Mapping[str, str] | None = None,
         progress: Progress | None = None, snapshot: bool = False, snapshot_tiers: bool = True,
         repair: bool = False, _now: int | None = None) -> SyncResult:
    """Pull, then send what the remote lacks and move its manifest.

    With ``snapshot`` (``mem backup``) the new manifest also records a dated
    snapshot of the refs, and snapshots beyond the tiers are pruned
    (:func:`prune_snapshots`).  With ``repair`` every remote pack is read
    back and verified first, and damaged ones are replaced from this store
    (:func:`repair_remote`).

    Raises as :func:`pull`, and RefConflict when another machine won the
    compare-and-swap ``MAX_ATTEMPTS`` times in a row.
    """
    res = SyncResult(remote=spec.name)
    r = connect(store, spec, env, create=True)
    res.versioning = r.t.versioning()
    r.adopt = repair
    if repair:
        repair_remote(store, r, spec, res, progress)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        res.attempts = attempt
        try:
            m, etag, cache, rep = _fetch(store, r, spec, res, progress, "push")
        except RefConflict:
            continue
        tmp = store.root / "tmp" / f"push-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        with store.lock("push"):
            refs = _local_refs(store)
            fidx = _forget_index(store)
            snaps = list(m.snapshots)
            now = _now if _now is not None else now_ms()
            if snapshot:
                snaps.append(Snapshot(f"{now:013d}-{os.urandom(4).hex()}", now, dict(refs)))
                res.snapshot = snaps[-1].name
            if snapshot_tiers:
                keep = keep_snapshots([s.time for s in snaps], now)
                res.snapshots_pruned = [s.name for i, s in enumerate(snaps) if i not in keep]
                snaps = [s for i, s in enumerate(snaps) if i in keep]
            have = {cache[p][i:i + 32].hex() for p in m.packs if p in cache for i in range(0, len(cache[p]), 32)}
            gc = rep.remote_rewritten or any(n not in refs for n in m.refs if not n.startswith("queue/")) \
                or bool(res.snapshots_pruned) or (etag is None and bool(m.packs))  # adopted: rewritten
            replaced: list[str] = []
            try:
                snaps = [_purge_snapshot(store, s, fidx, refs, _RemoteObjects(r, cache)) for s in snaps] if gc else snaps
            except RefConflict:   # a pack it read was replaced by another push since the fetch: start again
                shutil.rmtree(tmp, ignore_errors=True)
                continue
            if gc:
                live = _reachable_from(store, refs)
                for s in snaps:
                    live |= _reachable_from(store, s.refs)
                for p in m.packs:
                    ids = {cache[p][i:i + 32].hex() for i in range(0, len(cache[p]), 32)}
                    if ids - live:
                        replaced.append(p)
                        have -= ids
                snap_refs = {f"{s.name}/{k}": v for s in snaps for k, v in s.refs.items()}
                send = _to_send(store, {**refs, **snap_refs}, have)
            else:
                send = _to_send(store, refs, have)
            info = None
            if send:
                with PackWriter(tmp) as w:
                    for i, oid in enumerate(send):
                        frame = _verified_frame(store, oid)
                        obj = decode(frame, strict=False) if fidx else None
                        if (isinstance(obj, Fact) and fidx.fact_time(obj) is not None) or \
                                (isinstance(obj, Turn) and fidx.turn_time(obj) is not None):
                            raise IntegrityError(f"refusing to push {oid}: a tombstone forgets its value",
                                                 hint="run 'mem pull' and 'mem fsck', then push again")
                        w.add(frame)
                        if progress and i % 500 == 0:
                            progress("pack", i, len(send))
                    info = w.finish()
        new_name = None
        try:
            if info is not None:
                idx_path = next(tmp.glob("pack-*.idx"))
                pack_bytes = idx_path.with_suffix(".pack").read_bytes()
                stored = r.sealer.seal(bundle(pack_bytes, idx_path.read_bytes()))
                new_name = content_name(stored)
                if progress:
                    progress("send", 0, len(stored))
                upload_pack(r.t, f"packs/{new_name}", stored)   # read back by size/checksum before it is named
                if progress:
                    progress("send", len(stored), len(stored))
                res.bytes_sent += len(stored)
                res.objects_sent += len(send)
                res.packs_sent += 1
            packs = [p for p in m.packs if p not in replaced] + ([new_name] if new_name else [])
            new = Manifest(seq=m.seq + 1, time=now_ms(), refs=refs, packs=sorted(set(packs)),
                           done=sorted(set(m.done) | _decided_items(store)),
                           garbage=sorted(set(m.garbage) | set(replaced)), snapshots=snaps)
            if new.refs == m.refs and new.packs == sorted(m.packs) and not m.garbage and new_name is None \
                    and new.done == sorted(m.done) and len(snaps) == len(m.snapshots) and not snapshot:
                break   # nothing to do
            data = r.sealer.seal(new.encode())
            try:
                etag2 = r.t.swap(MANIFEST, data, etag)
            except RefConflict:
                if new_name:
                    r.t.delete(f"packs/{new_name}")
                res.objects_sent = res.bytes_sent = res.packs_sent = 0
                continue
            res.bytes_sent += len(data)
            _drop_garbage(r, new, etag2)   # the manifest no longer names them: now the replaced packs go
            res.remote_packs_rewritten = len(replaced)
            _delete_orphans(r.t, set(new.packs))
            cache = {p: v for p, v in cache.items() if p in new.packs}
            if new_name and info is not None:
                with Pack(idx_path) as p:
                    cache[new_name] = b"".join(bytes.fromhex(o) for o in sorted(p))
            rconfig.save_ids(store, spec.name, cache)
            break
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    else:
        raise RefConflict(f"remote {spec.name} manifest", None, None)
    if progress:
        progress("done", 1, 1)
    return res


def upload_check(t: Transport, name: str, data: bytes) -> str | None:
    """What is wrong with the remote's copy of ``name`` that should hold
    ``data``, or None when it is whole.  Cheap: the backend's metadata only
    (:meth:`Transport.stat`): the size must be ``len(data)``; where the
    etag is an MD5 (32 hex digits: an S3 single-part upload) it must be the
    MD5 of ``data``, else the object is read back once and compared (a
    bucket whose etag is no MD5, e.g. SSE-KMS, then costs a download).  A
    multipart etag (``…-N``) or a folder is checked by size.  Raises
    RemoteUnavailable."""
    try:
        size, etag = t.stat(name)
    except NotFound:
        return "it is missing"
    if size != len(data):
        return f"it holds {size} of the {len(data)} bytes sent"
    tag = (etag or "").strip('"').lower()
    if len(tag) == 32 and all(c in "0123456789abcdef" for c in tag):
        import hashlib
        if hashlib.md5(data, usedforsecurity=False).hexdigest() != tag:
            try:
                got, _etag = t.read(name)
            except NotFound:
                return "it is missing"
            if got != data:
                return "its bytes differ from those sent"
    return None


def upload_pack(t: Transport, name: str, data: bytes) -> None:
    """Write the bundle ``name`` (content-named: create-if-absent) and check
    the remote's copy (:func:`upload_check`) before any manifest names it.
    A copy that is not whole (a truncated upload, or a damaged one an earlier
    push left under the same name) is deleted and sent once more; if that
    is not whole either, it is deleted and RemoteUnavailable (exit 15) is
    raised: the manifest did not move, so the remote is as before."""
    t.create(name, data)
    bad = upload_check(t, name, data)
    if bad is None:
        return
    t.delete(name)
    t.create(name, data)
    again = upload_check(t, name, data)
    if again is None:
        return
    t.delete(name)
    raise RemoteUnavailable(f"the upload of {name} to {t.where} did not arrive whole ({again}; before: {bad}); "
                            "nothing was published, the remote's manifest did not move",
                            hint="push again; if it repeats, check the remote's storage (a full disk, a proxy "
                                 "that cuts uploads)")


def _verified_frame(store: Store, oid: str) -> bytes:
    """The frame of an object, loose or packed, re-hashed against its id (a
    damaged local object must never reach the remote).  Raises NotFound,
    CorruptObject."""
    try:
        return store.read_frame(oid)
    except CorruptObject:
        raise CorruptObject(f"object {oid} is damaged (run 'mem fsck')") from None


def _drop_garbage(r, new: Manifest, etag: str) -> None:
    """Delete the packs ``new.garbage`` lists (manifest ``new``, already
    swapped in with ``etag``: it no longer names them), then swap in ``new``
    with an empty garbage list; on a conflict the next push clears it."""
    for p in new.garbage:
        r.t.delete(f"packs/{p}")
    if new.garbage:
        new.garbage, new.seq, new.time = [], new.seq + 1, now_ms()
        try:
            r.t.swap(MANIFEST, r.sealer.seal(new.encode()), etag)
        except RefConflict:
            pass  # the next push clears the list


def _delete_orphans(t: Transport, listed: set[str]) -> None:
    """Delete bundles no manifest names, older than the grace period (a
    push that crashed between its upload and its manifest)."""
    import time
    try:
        for name, _size, mtime in t.list("packs/"):
            p = name.rsplit("/", 1)[-1]
            if p not in listed and time.time() - mtime > ORPHAN_GRACE_S:
                t.delete(f"packs/{p}")
    except (RemoteUnavailable, OSError):
        pass   # best effort: the push itself has succeeded; a later push retries


# -- clone --------------------------------------------------------------------------------

def clone(root: str | os.PathLike, url: str, *, name: str = "origin", endpoint: str | None = None,
          key: str | None = None, encrypt: bool = True, env: Mapping[str, str] | None = None,
          progress: Progress | None = None, lock_timeout: float = 10.0) -> tuple[Store, SyncResult]:
    """Create a store at ``root`` from a remote: remote ``name`` recorded,
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
        spec = rconfig.add_remote(store, name, url, endpoint=endpoint, encrypt=encrypt)
        r = connect(store, spec, env, create=False)
        if r.desc is None:
            raise NotFound(f"no mem remote at {url}", hint="push to it from the first machine: mem push")
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


# -- backups -------------------------------------------------------------------------------

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


def _purge_snapshot(store: Store, s: Snapshot, fidx: ForgetIndex, live_refs: Mapping[str, str],
                    remote: _RemoteObjects) -> Snapshot:
    """A snapshot with every forgotten value emptied, as the live refs are
    (the same deterministic rewrite; objects written here are pushed)."""
    refs: dict[str, str] = {}
    for name, head in s.refs.items():
        if name.startswith(("facts/", "sessions/")):
            if name.startswith("sessions/") and name[len("sessions/"):] in fidx.sessions:
                continue
            typ = Fact if name.startswith("facts/") else Turn
            chain = _chain(store, head, typ, remote=remote)
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
        else:
            refs[name] = head
    return Snapshot(s.name, s.time, refs)


def backup(store: Store, spec: RemoteSpec, *, env: Mapping[str, str] | None = None,
           progress: Progress | None = None, _now: int | None = None) -> SyncResult:
    """Push and record a dated snapshot; prune snapshots beyond the tiers."""
    return push(store, spec, env=env, progress=progress, snapshot=True, _now=_now)


def list_snapshots(store: Store, spec: RemoteSpec, env: Mapping[str, str] | None = None) -> list[dict]:
    """``[{"name", "time", "refs"}]`` of the remote's snapshots, oldest first."""
    r = connect(store, spec, env, create=False)
    m, _e, _n = r.manifest()
    return [{"name": s.name, "time": s.time, "refs": len(s.refs)} for s in sorted(m.snapshots, key=lambda s: s.time)]


def restore(root: str | os.PathLike, url: str, *, snapshot: str | None = None, name: str = "origin",
            endpoint: str | None = None, key: str | None = None, env: Mapping[str, str] | None = None,
            progress: Progress | None = None) -> tuple[Store, SyncResult]:
    """Rebuild an empty store at ``root`` from a snapshot (``None``: the
    latest) of the remote: objects, refs and index.  Raises NotFound (no
    snapshot), and as :func:`clone`."""
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
        spec = known.get(name) or rconfig.add_remote(store, name, url, endpoint=endpoint)
        r = connect(store, spec, env, create=False)
        m, _e, n = r.manifest()
        if not m.snapshots:
            raise NotFound(f"the remote {url} has no snapshot", hint="make one with: mem backup")
        snaps = sorted(m.snapshots, key=lambda s: s.time)
        pick = snaps[-1] if snapshot in (None, "latest") else next(
            (s for s in snaps if s.name == snapshot or s.name.startswith(snapshot)), None)
        if pick is None:
            raise NotFound(f"no snapshot {snapshot}", hint="list them: mem backup --list")
        res = SyncResult(remote=spec.name, snapshot=pick.name, bytes_received=n)
        prep = _download_packs(store, r, m, spec, res, progress)
        view = Manifest(refs=dict(pick.refs), done=list(m.done))
        try:
            with store.lock("restore"):
                _install(store, prep, spec)
                _merge(store, view, res, "restore")
        finally:
            shutil.rmtree(prep.tmp, ignore_errors=True)
        return store, res
    except BaseException:
        store.close()
        if not existed:
            shutil.rmtree(root, ignore_errors=True)
        raise
