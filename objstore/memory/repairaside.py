"""Step 1 of ``mem fsck --repair`` (:mod:`objstore.memory.repair`):
damaged files set aside.  A damaged loose object is moved to the
quarantine; a damaged pack's readable objects are salvaged as loose
objects and the pack (or a pack with only its checksums wrong) is moved
there too; a pack with damaged entries is rewritten without them (a
quarantine copy is kept for step 3).  Split from ``repair.py`` (session 43)
to keep each module under the size limit."""

from __future__ import annotations

from pathlib import Path

from objstore.core.codec import decode
from objstore.core.errors import CorruptObject, NotFound, PackFileMissing, UnsupportedVersion
from objstore.core.pack import PackSet
from objstore.core.packmend import mend_packs
from objstore.core.packrecord import unrecord_packs
from objstore.core.salvage import Quarantine, salvage_pack
from objstore.core.store import Store

__all__ = ["set_aside", "sound"]

_DAMAGE = (CorruptObject, NotFound)


def sound(frame: bytes) -> bool:
    """True when ``frame`` (one object's frame) decodes, or is of a
    newer object format (not damage); False when it is damaged."""
    try:
        decode(frame)
        return True
    except UnsupportedVersion:
        return True  # a newer mem's object is not damage
    except CorruptObject:
        return False


def set_aside(store: Store, q: Quarantine, rep) -> list[Path]:
    """Step 1 of ``repair`` (its module doc): damaged loose objects and
    packs moved to the quarantine ``q``, what reads salvaged, counted in
    ``rep`` (a ``repair.RepairReport``).  Returns the quarantine copies of the packs
    rewritten without their damaged entries: a damaged id in a ``.idx`` id
    table leaves the entry's frame intact under an id the index no longer
    names, so step 3 reads them like a pack with no index (``_from_orphans``:
    only an object a chain needs, by its BLAKE3, is taken; a damaged entry
    that happens to decode is not)."""
    bad_loose = []
    resealed: list = []
    for oid in list(store.objects):
        try:
            ok = sound(store.objects.get(oid))
        except NotFound:
            continue
        except CorruptObject:
            ok = False
        if not ok:
            bad_loose.append(oid)
    for oid in bad_loose:   # set aside first: a FIFO or folder in its place is damage to ``contains`` too,
        q.move(store.objects.path(oid), name=oid)   # and a sound packed copy salvaged below takes its place
    store.packs.close()
    # one flipped bit in a block: found and flipped back (the pack's name proves it), nothing lost (test34b T24)
    rep.unflipped = mend_packs(store.root / "objects" / "pack", q.copy)
    ps = PackSet(store.root / "objects" / "pack", skip_broken=True)
    try:
        for idx, err in list(ps.broken):
            if isinstance(err, PackFileMissing):   # absent, not damaged: its index stays
                rep.absent_packs.append(str(err.pack_path))
                continue
            pack = idx.with_suffix(".pack")
            unrecord_packs(idx.parent, [idx.stem])   # set aside on purpose: not a pack moved away (packrecord)
            if pack.exists():
                try:
                    for oid, frame in salvage_pack(pack):
                        if sound(frame) and not store.objects.contains(oid):
                            store.objects.put(frame)
                            rep.salvaged += 1
                except OSError:
                    pass
                q.move(pack)
            q.move(idx)
        damaged_in: dict[str, list[str]] = {}
        wrong: dict[str, list[str]] = {}
        for pack in ps.packs:
            for oid, frame in pack.frames_in_body_order():  # a version-3 block inflated once
                ok = not isinstance(frame, CorruptObject) and sound(frame)
                if not ok:
                    damaged_in.setdefault(pack.name, []).append(oid)
                if isinstance(frame, CorruptObject) and "cannot decompress object" in str(frame):
                    rep.uninflated[pack.name] = rep.uninflated.get(pack.name, 0) + 1   # (test34 T2)
                elif isinstance(frame, CorruptObject) and "content hashes to" in str(frame):
                    wrong.setdefault(pack.name, []).append(oid)   # (test34b T24)
            if pack.name in damaged_in:
                rep.misindexed.update(_misindexed(pack))
        # a pack whose every object reads but whose checksums do not match (a byte of its index's
        # checksum, of its trailer, of dictionary bytes no block refers to): its objects go loose
        # (gc packs them again) and the files are set aside, so fsck is clean again
        resealed = [p for p in ps.packs if p.name not in damaged_in and p.verify(max_problems=1)]
        for pack in resealed:
            for oid, frame in pack.frames_in_body_order():
                if not store.objects.contains(oid):
                    store.objects.put(frame)
                    rep.salvaged += 1
    finally:
        ps.close()
    unrecord_packs(store.root / "objects" / "pack", [f"pack-{p.name}" for p in resealed])
    for pack in resealed:
        q.move(pack.pack_path)
        q.move(pack.idx_path)
    store.packs.reload()
    rewritten = []
    for p in store.packs.packs:
        if p.name in damaged_in:
            rewritten.append(q.copy(p.pack_path))
            q.copy(p.idx_path)
    rep.dropped_objects += [oid for oid in bad_loose if not store.objects.contains(oid)]
    bad_packed = sorted({o for ids in damaged_in.values() for o in ids})
    if bad_packed:
        keep = {}
        for oid in bad_packed:  # a sound copy elsewhere (loose, another pack) survives the rewrite
            try:
                keep[oid] = store.read_frame(oid)
            except _DAMAGE:
                pass
        store.delete_objects(bad_packed)
        for frame in keep.values():
            store.objects.put(frame)
        rep.dropped_objects.extend(o for o in bad_packed if o not in keep and o not in rep.misindexed)
    dropped = set(rep.dropped_objects)
    rep.miscopied = {p: n for p, ids in wrong.items() if (n := sum(o in dropped for o in ids))}
    store.packs.reload()
    return rewritten


def _misindexed(pack) -> dict[str, str]:
    """The entries of ``pack`` (an open ``Pack``) whose id in the ``.idx``
    is not the id of the intact frame they point at (a damaged id table):
    index id -> the frame's BLAKE3 id.  Paired by position, the index's
    body order against the frames the body yields read without its index
    (:func:`salvage_pack`), of frames that decode (a damaged frame that
    still inflates hashes to another id too, but does not decode); {} when
    the body does not read whole (then the damage is not the index's
    alone), and {} when the ``.idx`` passes its own checksum: then the
    index is as written and a frame that hashes to another id is the
    body's damage (a frame read without the index joined to a lost
    parent), never "a damaged .idx" (test33b T5).  Reads the pack once."""
    if not any(p.endswith("index checksum mismatch") for p in pack.verify_checksums()):
        return {}
    try:
        real = [oid if sound(frame) else None for oid, frame in salvage_pack(pack.pack_path)]
    except OSError:
        return {}
    listed = pack.ids_in_body_order()
    if len(real) != len(listed):
        return {}
    return {a: b for a, b in zip(listed, real) if b is not None and a != b}
