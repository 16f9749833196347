"""The store's pack rewrites: delete objects wherever they are, rewrite
packs without what is dropped, move loose objects into a pack.

:class:`PackRewrites` is a base of :class:`objstore.core.store.Store` (its
methods are the store's: ``store.repack(...)``, ``store.delete_objects(...)``);
it uses the store's ``root``, ``objects``, ``packs`` and ``damaged``.  Every
method here expects the caller to hold the store lock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from objstore.core.errors import CorruptObject

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from objstore.core.pack import Pack
    from objstore.core.packwriter import PackWriter

#: the size at which :meth:`Store.repack` (gc, forget) finishes a pack and
#: begins the next: a forget rewrites the one pack that holds its objects,
#: so its cost is bounded by this, not by the store (one 1.2 GB pack at a
#: million turns took a one-turn forget to minutes)
PACK_TARGET_BYTES = 32 * 1024 * 1024
#: the packs a store may hold before gc merges its small ones (and an import
#: the small ones it wrote): below it a merge's CPU (a few seconds per 50 MB:
#: every object inflated, verified and compressed again) buys a reader
#: about a millisecond (docs/benchmarks.md, "Session 28 (branch `pk28`)")
MAX_PACKS = 16


def small_packs(packs: Iterable[Pack]) -> list[Pack]:
    """The packs of ``packs`` that a merge takes (gc when more than
    ``MAX_PACKS`` remain, an import at its end: :meth:`PackRewrites.merge_small`):
    those under half of :data:`PACK_TARGET_BYTES` on disk (``.pack`` bytes,
    ``Pack.info().size``), in the order given; a fuller one is left as it is."""
    return [p for p in packs if p.info().size < PACK_TARGET_BYTES // 2]


class PackRewrites:
    """The pack rewrites of a :class:`objstore.core.store.Store` (its base class)."""

    def delete_object(self, oid: str) -> bool:
        """Delete an object at once, loose and packed (a pack that holds it
        is rewritten without it); True if it existed.  Caller holds the lock."""
        return bool(self.delete_objects([oid]))

    def delete_objects(self, oids: Iterable[str]) -> int:
        """Delete objects at once wherever they are: loose files unlinked,
        the packs holding one rewritten without them (:meth:`repack`).
        Returns how many were found.  Caller holds the store lock."""
        gone = set(oids)
        n = sum(self.objects.delete(o) for o in gone)
        self.packs.reload()
        hit = [p for p in self.packs.packs if any(p.contains(o) for o in gone)]
        n += sum(1 for p in hit for o in gone if p.contains(o))
        keep = lambda _pack, oid: oid not in gone  # noqa: E731
        self.repack([p for p in hit if not self._copy_pack(p, keep)], keep=keep)
        return n

    def _copy_pack(self, pack: Pack, keep: Callable[[Pack, str], bool]) -> bool:
        """Rewrite a version-2 or version-3 ``pack`` without the objects
        ``keep`` drops by copying the compressed entries of the others as
        they are (no decompression: O(bytes) of the pack, so that forgetting
        one object of a large pack, e.g. the one gc merged, stays cheap;
        version 3: every block that keeps all its objects is copied, a block
        that loses one is inflated and its other objects compressed again)
        under the pack's own dictionary, when that dictionary
        cannot hold a dropped object: it is exactly ``make_dictionary`` of
        the pack's first frames (the TRAIN_FRAMES frames or TRAIN_BYTES it
        was made from, ``docs/format.md``, "Packs") and none of the frames
        whose bytes it took (``dictionary_sources``) is dropped (or it is
        empty).  Returns False, writing nothing, when that does not hold
        (version 1, a dropped or damaged object among those frames):
        :meth:`repack` compresses again.  An entry whose bounds or length prefix are damaged is left
        out and noted in :attr:`damaged`; one whose bytes are damaged is
        copied as it is (``fsck`` still finds it), unless (version 3) its
        block loses an object: then its objects that no longer read are
        left out and noted.  Version 8: the chunk scrub
        (:func:`objstore.core.packscrub.copy_scrubbed`: the blocks and the
        chunk table copied, the blocks losing an object written again, the
        chunks only dropped objects named emptied); False when it refuses
        (damage where it must look).  Caller holds the store lock."""
        from objstore.core.packformat import PACK_VERSION, TRAIN_BYTES, TRAIN_FRAMES, body_version  # deferred: packs
        from objstore.core.packencode import (  # deferred: readers never write a pack
            dict_bytes, dictionary_sources, make_dictionary)
        from objstore.core.packwriter import PackWriter  # deferred: readers never write a pack
        if pack.version not in (2, 3, 4, 5, 6, 7, 8):
            return False
        try:
            d = pack.dictionary()
            if d:
                frames: list[bytes] = []
                order: list[str] = []
                size = 0
                for oid, frame in pack.frames_in_body_order():
                    if isinstance(frame, CorruptObject):
                        return False
                    frames.append(frame)
                    order.append(oid)
                    size += len(frame)
                    if len(frames) >= TRAIN_FRAMES or size >= TRAIN_BYTES:
                        break
                size = dict_bytes(pack.version)
                if make_dictionary(frames, size) != d or \
                        not all(keep(pack, order[i]) for i in dictionary_sources(frames, size)):
                    return False
        except CorruptObject:
            return False
        # a pack is copied into the newest version with its blocks (version 4 into 5: the same
        # blocks, a smaller index; 4 and 5 stay 5 beside 6, whose blocks differ: gc writes 6)
        version = PACK_VERSION if body_version(pack.version) == body_version(PACK_VERSION) \
            else 5 if body_version(pack.version) == 4 else pack.version
        if pack.version == 8:  # the chunk scrub (packscrub): blocks and chunk table copied, the touched ones written again
            from objstore.core.packscrub import ScrubRefused, ScrubWriter, copy_scrubbed  # deferred: forget only
            try:
                with ScrubWriter(self.root / "objects" / "pack", dictionary=d, version=8) as w:
                    w.reserve(len(pack))
                    copy_scrubbed(pack, keep, w, self.damaged)
            except ScrubRefused:
                return False  # aborted, nothing installed: repack writes every kept frame again
            self.packs.reload()
            self.packs.remove_pack(pack)
            return True
        with PackWriter(self.root / "objects" / "pack", dictionary=d, version=version) as w:
            w.reserve(len(pack))
            if pack.version >= 3:
                self._copy_blocks(pack, keep, w)
            for oid, data in (pack.raw_entries_in_body_order() if pack.version == 2 else ()):
                if not keep(pack, oid):
                    continue
                if isinstance(data, CorruptObject):  # out of bounds, bad length prefix: left out
                    self.damaged.setdefault(oid, str(data))
                    continue
                w.add_entry(oid, data)  # copied as stored (a damaged entry stays as damaged for fsck to find)
        self.packs.reload()  # the new pack and its index are durable now
        self.packs.remove_pack(pack)
        return True

    def _copy_blocks(self, pack: Pack, keep: Callable[[Pack, str], bool], w) -> None:
        """:meth:`_copy_pack` of a version-3 ``pack`` into the writer ``w``
        (same dictionary): whole blocks copied, those losing an object
        inflated and their kept objects added again."""
        from objstore.core.packformat import DeflateReader, HexIds   # deferred: a read of loose objects loads no pack code
        from objstore.core.packscrub import add_kept  # deferred: forget only (it imports packwriter)
        zr = DeflateReader(w.dictionary, pack.version)
        for ids, data in pack.raw_blocks_in_body_order():
            if not isinstance(data, CorruptObject) and all(keep(pack, oid) for oid in ids) \
                    and w.add_block(ids, data, pack.version):
                continue  # copied as stored (a damaged block stays as damaged for fsck to find)
            frames = [] if isinstance(data, CorruptObject) else zr.block_frames(data, None, HexIds(ids))[0]
            add_kept(pack, ids, frames, [keep(pack, oid) for oid in ids], w, self.damaged)  # (packscrub's)

    def repack(self, old: list[Pack], *, keep: Callable[[Pack, str], bool], loose: Iterable[str] = (),
               progress: Callable[[int, int], None] | None = None,
               max_bytes: int | None = None) -> int:
        """The one pack rewrite (used by :meth:`delete_objects` and gc):
        write new packs (in the current pack format) holding the
        ``loose`` objects and the objects of the ``old`` packs for which
        ``keep(pack, id)`` is true, make them durable, then remove the ``old``
        packs.  A new pack is finished and the next begun once it holds
        ``max_bytes`` (default PACK_TARGET_BYTES): a later forget rewrites
        one pack of bounded size, not the whole store gc merged.  Objects are read in each old pack's body order (objects
        written together stay together), verified, and compressed again,
        with a new dictionary made from what is kept: a version-2 pack's
        dictionary holds the bytes of the frames it was made from, so a
        rewrite that drops an object (``forget``) must never copy the old
        dictionary, or the forgotten value would survive in it.  A damaged object of an old pack is left out and
        noted in :attr:`damaged`; that old pack is then kept (its damage stays
        for ``fsck --repair``) unless it holds an object ``keep`` drops, which
        must not survive anywhere.  The loose files are left for the caller
        to delete.  ``progress(done, total)`` is called every 1,000 objects.
        Returns the number of objects in the new packs.  Caller holds the
        store lock."""
        loose = list(loose)
        if not loose and not old:
            return 0
        limit = PACK_TARGET_BYTES if max_bytes is None else max_bytes
        total = len(loose) + sum(len(p) for p in old)
        done = count = 0
        kept_old: list[Pack] = []
        from objstore.core.packwriter import PackWriter, write_version  # deferred: readers never write a pack
        version = write_version(self.root)  # 6, or 7 (zstd) when config.toml asks: before anything is written
        pack_dir = self.root / "objects" / "pack"
        pack_dir.mkdir(parents=True, exist_ok=True)
        writers: list[PackWriter] = []

        def writer() -> PackWriter:
            """The pack being written, a new one once it holds ``limit`` bytes."""
            nonlocal count
            if writers and writers[-1].size >= limit:
                count += writers[-1].count
                writers[-1].finish()  # durable; the old packs go only after the last one is
            if not writers or writers[-1].info is not None:
                writers.append(PackWriter(pack_dir, version=version))
            return writers[-1]
        try:
            for oid in loose:
                writer().add(self.objects.get(oid))
                done += 1
                if progress and done % 1000 == 0:
                    progress(done, total)
            for pack in old:
                dropped = damaged = False
                for oid, frame in pack.frames_in_body_order():
                    done += 1
                    if progress and done % 1000 == 0:
                        progress(done, total)
                    if not keep(pack, oid):
                        dropped = True
                        continue
                    if isinstance(frame, CorruptObject):
                        self.damaged.setdefault(oid, str(frame))
                        damaged = True
                        continue
                    writer().add(frame)
                # its index pages, read whole for the body order, leave this process's resident memory (a merge
                # of 29 packs, a quarter of the 1M corpus's import: peak RSS 86,308 -> 74,188 kB)
                pack.drop_pages()
                if damaged and not dropped:
                    kept_old.append(pack)
            if writers and writers[-1].info is None:
                count += writers[-1].count
                writers[-1].finish()
        except BaseException:
            for w in writers:  # the finished ones stay: duplicates of objects the old packs still hold
                if w.info is None:
                    w.abort()
            raise
        self.packs.reload()  # the new packs and their indexes are durable now
        for pack in old:
            if pack not in kept_old:
                self.packs.remove_pack(pack)
        return count

    def merge_small(self, packs: Iterable[Pack]) -> int:
        """Merge the small ones of ``packs`` (:func:`small_packs`; two at
        least, else nothing is written) into packs of up to
        :data:`PACK_TARGET_BYTES` with :meth:`repack`, every object kept:
        for a writer that has just written many small packs (an import
        publishes every ``importer.PACK_ROLL`` objects: 113 packs of
        ~5 MB at a million turns), since each pack a reader opens costs
        every later ``recall`` its index pages and id lookups.  The refs
        are not touched: every object stays readable throughout (the new
        packs are durable before an old one goes), and a kill at any point
        leaves the old packs, or duplicates of their objects, or leftover
        temp files (gc's), never a missing object.  Returns the number of
        objects written (0 when fewer than two packs are small).  Caller
        holds the store lock."""
        small = small_packs(packs)
        if len(small) < 2:
            return 0
        return self.repack(small, keep=lambda _pack, _oid: True)

    def pack_loose(self, oids: Iterable[str]) -> int:
        """Move the loose objects ``oids`` into one new pack (:meth:`repack`
        with no old pack), then delete their loose files and the fan-out
        directories left empty.  For a writer that has just written many
        loose objects it knows (an import's sub-agent rollups): each loose
        object takes at least one 4 KiB block and often a directory.  Ids
        that are not loose are skipped.  Readers that miss a deleted loose
        file find the object in the new pack (:meth:`read_frame` reloads
        the packs).  Returns the number packed.  Caller holds the store lock."""
        ids = [o for o in dict.fromkeys(oids) if self.objects.contains(o)]
        if not ids:
            return 0
        n = self.repack([], keep=lambda _p, _o: True, loose=ids)
        dirs = {self.objects.path(o).parent for o in ids}
        for o in ids:
            self.objects.delete(o)
        for d in dirs:
            try:
                d.rmdir()
            except OSError:  # not empty (other loose objects), or gone
                pass
        return n
