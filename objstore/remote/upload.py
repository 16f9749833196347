"""What a push sends and how it lands on the remote: the objects the remote lacks, uploads
checked before a manifest names them, replaced packs and orphans deleted."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from objstore.core.codec import decode
from objstore.core.errors import CorruptObject, IntegrityError, NotFound, RefConflict, RemoteUnavailable
from objstore.core.objects import Fact, Turn
from objstore.core.packwriter import PackWriter
from objstore.core.store import Store, now_ms
from objstore.remote.merge import ForgetIndex
from objstore.remote.layout import MANIFEST, Manifest
from objstore.remote.transport import Transport


ORPHAN_GRACE_S = 15 * 60
#: the most frame bytes (uncompressed objects) one bundle of a push holds: ~1.4 MiB stored on the
#: bench corpus (frames compress ~3x).  A forget rewrites every remote bundle that held an object no
#: ref reaches any more, so this bounds what a push after a forget sends again, and what the other
#: machines' pulls receive, to the bundles that held the forgotten objects (docs/design.md "Remotes")
BUNDLE_FRAME_BYTES = 4 << 20

#: a push rolls the remote's small bundles into new ones once the manifest names more than this many
#: (sync39: a remote collected one bundle per push forever, and a new machine's pull read them all)
ROLLUP_AFTER = 16
#: a bundle stored this big or bigger is left as it is (a full one, BUNDLE_FRAME_BYTES of frames,
#: stores ~1.4 MiB): a roll-up rewrites small bundles only, never the bulk of a big remote
ROLLUP_SMALL_BYTES = 1 << 20


def rollup(t: Transport, packs: list[str]) -> set[str]:
    """The bundles of ``packs`` (a manifest's) a push replaces by new ones
    holding their live objects: every bundle stored smaller than
    :data:`ROLLUP_SMALL_BYTES`, once there are more than
    :data:`ROLLUP_AFTER` of them; else none (no request made when the
    manifest names no more than that many bundles).  A push rolls up every
    16 pushes or so at most, rewriting bundles of under 1 MiB each: the
    bundles a pull reads stay about total size / 1.4 MiB + 16.  Raises
    RemoteUnavailable (the listing of ``packs/``)."""
    if len(packs) <= ROLLUP_AFTER:
        return set()
    sizes = {n.rsplit("/", 1)[-1]: size for n, size, _mtime in t.list("packs/")}
    small = {p for p in packs if sizes.get(p, ROLLUP_SMALL_BYTES) < ROLLUP_SMALL_BYTES}
    return small if len(small) > ROLLUP_AFTER else set()


def reachable_from(store: Store, refs: Mapping[str, str]) -> set[str]:
    """The ids of every object the refs' chains reach (``{name: head id}``),
    each read here.  Raises NotFound, CorruptObject."""
    seen: set[str] = set()
    for _name, oid in refs.items():
        while oid is not None and oid not in seen:
            seen.add(oid)
            obj = store.get(oid)
            oid = obj.parent if isinstance(obj, (Fact, Turn)) else None
    return seen


def to_send(store: Store, refs: Mapping[str, str], have: set[str]) -> list[str]:
    """The ids a remote that holds ``have`` lacks: each ref's chain walked
    from its head down to the first id in ``have`` (refs by name, each chain
    newest first).  Raises NotFound, CorruptObject."""
    out: list[str] = []
    seen: set[str] = set()
    for _name, oid in sorted(refs.items()):
        while oid is not None and oid not in have and oid not in seen:
            seen.add(oid)
            out.append(oid)
            obj = store.get(oid)
            oid = obj.parent if isinstance(obj, (Fact, Turn)) else None
    return out


def write_bundles(store: Store, send: list[str], fidx: ForgetIndex, tmp: Path,
                  progress: Callable[[str, int, int], None] | None = None,
                  max_frame_bytes: int | None = None) -> list[Path]:
    """Write the objects ``send`` (ids, in that order) into local packs
    under ``tmp`` (``tmp/0``, ``tmp/1``...), starting a new pack once the
    frames of the current one reach ``max_frame_bytes`` (default
    :data:`BUNDLE_FRAME_BYTES`, read at the call); returns their
    ``.idx`` paths in order (none for an empty ``send``).  Each frame is
    re-hashed here (:func:`verified_frame`).  Raises IntegrityError when a
    tombstone forgets one of the objects (a push never sends a forgotten
    value back), CorruptObject, NotFound."""
    limit = BUNDLE_FRAME_BYTES if max_frame_bytes is None else max_frame_bytes
    out: list[Path] = []
    w: PackWriter | None = None
    size = 0
    try:
        for i, oid in enumerate(send):
            frame = verified_frame(store, oid)
            obj = decode(frame, strict=False) if fidx else None
            if (isinstance(obj, Fact) and fidx.fact_time(obj) is not None) or \
                    (isinstance(obj, Turn) and fidx.turn_time(obj) is not None):
                what = f"version {obj.version} of {obj.key}" if isinstance(obj, Fact) else \
                    f"turn {obj.seq} of session {obj.session}"
                raise IntegrityError(f"refusing to push {oid} ({what}): a tombstone forgets its value, "
                                     "but this store still holds it",
                                     hint=f"forget it here as the tombstone says: 'mem forget {oid} --yes', "
                                          "then push again")
            if w is None:
                w, size = PackWriter(tmp / str(len(out))), 0
                out.append(tmp / str(len(out)))
            w.add(frame)
            size += len(frame)
            if size >= limit:
                w.finish()
                w = None
            if progress and i % 500 == 0:
                progress("pack", i, len(send))
        if w is not None:
            w.finish()
            w = None
    finally:
        if w is not None:
            w.abort()
    return [next(d.glob("pack-*.idx")) for d in out]


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
    raised: the manifest did not move, so the remote is as before.  A copy
    that was already there is read back whole once (a folder's check is its
    size alone, and a flipped byte keeps it): the push records the bundle as
    verified (``config.save_seen``)."""
    if not t.create(name, data):
        try:
            same = t.read(name)[0] == data
        except NotFound:
            same = False
        if not same:
            t.delete(name)
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


def verified_frame(store: Store, oid: str) -> bytes:
    """The frame of an object, loose or packed, re-hashed against its id (a
    damaged local object must never reach the remote).  Raises NotFound,
    CorruptObject."""
    try:
        return store.read_frame(oid)
    except CorruptObject:
        raise CorruptObject(f"object {oid} is damaged (run 'mem fsck')") from None


def drop_garbage(r, new: Manifest, etag: str) -> None:
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


def delete_orphans(t: Transport, listed: set[str]) -> dict[str, tuple[int, float, str]]:
    """Delete bundles no manifest names, older than the grace period (a
    push that crashed between its upload and its manifest).  Returns the
    listing it read (bundle name -> stamp, ``Transport.stamps``; empty when
    the remote could not be listed), by which a push records the stamps of
    the bundles it uploaded."""
    import time
    try:
        stamps = {n.rsplit("/", 1)[-1]: st for n, st in t.stamps("packs/").items()}
        for p, (_size, mtime, _etag) in stamps.items():
            if p not in listed and time.time() - mtime > ORPHAN_GRACE_S:
                t.delete(f"packs/{p}")
        return stamps
    except (RemoteUnavailable, OSError):
        return {}   # best effort: the push itself has succeeded; a later push retries
