"""A pack's whole-pack reads in the order of its body
(:class:`PackBodyOrder`, a base of :class:`objstore.core.packfile.Pack`):
every id, every frame verified, every block's or entry's compressed bytes
as stored, for rewrites (gc, forget: ``objstore.core.repack``,
``objstore.core.packscrub``), pushes and checks that read a whole pack.
Split from ``packfile`` (session 32) so that module holds the lookups and
reads by id.  The format: :mod:`objstore.core.packformat`."""

from __future__ import annotations

import bisect
import mmap
from array import array
from collections.abc import Iterator

from blake3 import blake3

from objstore.core.errors import CorruptObject
from objstore.core.packformat import U32, DeflateReader, HexIds, int_table, uint_table


class PackBodyOrder:
    """The body-order reads of a :class:`~objstore.core.packfile.Pack`
    (its mapping, tables and readers are the pack's own)."""

    def ids_in_body_order(self) -> list[str]:
        """Every id of the pack (64 hex) in the order of the pack body (the
        order the objects were written in), so that a rewrite
        (``Store.repack``) keeps objects written together together."""
        return [self._id_at(i).hex() for i in self._body_order()]

    def _body_order(self) -> list[int]:
        """Positions in the id table, in the order of the pack body (version
        3: by block, then by position in the block)."""
        if self.version >= 3:
            places = self._places()
            return sorted(range(self.count), key=lambda i: (self._block(places[0][i])[0], places[1][i]))
        return sorted(range(self.count), key=lambda i: self._entry(i)[0])

    def block_offsets(self) -> list[int]:
        """Versions 3 and up: the offsets in the pack of its (frame) blocks,
        rising: one per block of the index's table, in the order
        :meth:`raw_blocks_in_body_order` gives the blocks when the index is
        sound (version 8: chunk blocks are not among them)."""
        if self.version < 3:
            raise ValueError(f"{self.pack_path}: a version-{self.version} pack has no blocks")
        return sorted(int_table(self._mm, "Q", self._boffs_off, self._nblocks))

    def raw_blocks_in_body_order(self) -> Iterator[tuple[list[str], bytes | CorruptObject]]:
        """Version 3: ``(ids, data)`` of every block in the order of the
        pack body: the ids of its objects by their position in the block,
        and the block's compressed stream (not decompressed, not checked),
        or the ``CorruptObject`` for a block whose bounds, length prefix or
        positions are damaged.  For copying blocks as they are
        (``Store._copy_pack``, :meth:`PackWriter.add_block`).  Raises
        ValueError for another version."""
        if self.version < 3:
            raise ValueError(f"{self.pack_path}: a version-{self.version} pack has no blocks")
        # the tables read at once (not an unpack per object: a forget copies a pack of ~130,000)
        n, nb, im = self.count, self._nblocks, self._mm
        boffs, blens = int_table(im, "Q", self._boffs_off, nb), int_table(im, "I", self._blens_off, nb)
        spans = self._body_spans(boffs, blens)
        if spans is not None:
            yield from self._blocks_of_spans(spans)
            return
        blocks: dict[tuple[int, int], list[tuple[int, int]]] = {}
        bnos, ords = self._places()
        for i, (b, k) in enumerate(zip(bnos, ords)):
            key = (boffs[b], blens[b]) if b < nb else (0, 0)  # (0, 0): no bounds check passes
            members = blocks.get(key)
            if members is None:
                members = blocks[key] = []
            members.append((k, i))
        if not blocks:
            return
        with mmap.mmap(self._pf.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            for (off, length), members in sorted(blocks.items()):
                members.sort()
                ids = [self._id_at(i).hex() for _k, i in members]
                if [k for k, _raw in members] != list(range(len(members))) and self._body_start <= off \
                        and length >= 5 and off + length <= self._body_end:
                    yield ids, CorruptObject(f"{self.idx_path}: block at {off}: its objects' positions are damaged")
                    continue
                yield ids, self._block_bytes(mm, off, length)

    def _body_spans(self, boffs: array, blens: array) -> list[tuple[int, int, array]] | None:
        """Versions 5 and 6, whose index holds both the body position of every
        object (id order) and its inverse (``docs/format.md``, "Packs"):
        ``(offset, entry length, id-table places of its objects in block
        order)`` of every block, by offset, read from the inverse table in
        block-sized slices (no search, sort or tuple per object: a forget
        copies a pack of ~125,000 objects, :meth:`raw_blocks_in_body_order`).
        None unless the tables agree (the inverse is the inverse of the
        positions, checked in C; the blocks' first positions rise from 0
        with no block empty; no two blocks share their bounds): a damaged
        index takes the general path, which names its damage as before.
        Cost: O(objects) in C, O(blocks) in Python."""
        n, nb, im = self.count, self._nblocks, self._mm
        if self.version < 5 or nb == 0:
            return None
        firsts = int_table(im, "I", self._bfirst_off, nb)
        if firsts[0] != 0 or firsts[-1] >= n or any(a >= b for a, b in zip(firsts, firsts[1:])) \
                or len(set(zip(boffs, blens))) != nb:
            return None
        pos = uint_table(im, self._pos_off, n, self._w)
        inv = uint_table(im, self._inv_off, n, self._w)
        try:   # pos[inv[q]] == q for every body position q (in C: map, not a loop per object)
            if not all(map(int.__eq__, map(pos.__getitem__, inv), range(n))):
                return None
        except IndexError:   # an id-table place past the table
            return None
        ends = list(firsts[1:]) + [n]
        return sorted((boffs[b], blens[b], inv[firsts[b]:ends[b]]) for b in range(nb))

    def _blocks_of_spans(self, spans: list[tuple[int, int, array]]) -> Iterator[tuple[list[str], bytes | CorruptObject]]:
        """:meth:`raw_blocks_in_body_order` of the blocks :meth:`_body_spans`
        read (each block's ids made as it is reached: a reader that stops
        early, the dictionary check of ``Store._copy_pack``, makes few)."""
        with mmap.mmap(self._pf.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            for off, length, places in spans:
                yield [self._id_at(i).hex() for i in places], self._block_bytes(mm, off, length)

    def _block_bytes(self, mm, off: int, length: int) -> bytes | CorruptObject:
        """The compressed stream of the block entry at ``off`` (``length``
        with its prefix) of the pack mapped as ``mm``, or the CorruptObject
        for an entry outside the body or a bad length prefix."""
        if off < self._body_start or length < 5 or off + length > self._body_end:
            return CorruptObject(f"{self.idx_path}: block at {off}: entry outside the pack body")
        data = mm[off:off + length]
        if U32.unpack_from(data, 0)[0] != length - 4:
            return CorruptObject(f"{self.pack_path}: block at {off}: bad length prefix")
        return data[4:]

    def _places(self) -> tuple[array, array]:
        """Versions 3-5: (block numbers, positions in their blocks) of every
        object, in id order, the tables read at once (:meth:`_place` of each;
        version 5: from the body positions and the blocks' first ones)."""
        n, nb, im = self.count, self._nblocks, self._mm
        if self.version < 5:
            return int_table(im, "I", self._bno_off, n), int_table(im, "H", self._ord_off, n)
        firsts = int_table(im, "I", self._bfirst_off, nb)
        bnos, ords = array("I"), array("I")
        for p in uint_table(im, self._pos_off, n, self._w):
            b = bisect.bisect_right(firsts, p) - 1
            if b < 0 or p >= n:  # damaged: a block past the table
                bnos.append(nb)
                ords.append(0)
            else:
                bnos.append(b)
                ords.append(p - firsts[b])
        return bnos, ords

    def frames_in_body_order(self) -> Iterator[tuple[str, bytes | CorruptObject]]:
        """``(id, frame)`` of every object in the order of the pack body,
        each frame verified against its id, or the ``CorruptObject`` a
        :meth:`get` of it would raise in its place.  O(bytes of the pack):
        each version-3 block is inflated once (where :meth:`get` in id order
        would inflate a block once per object); for rewrites, pushes and
        checks that read a whole pack."""
        if self.version < 3:
            for i in self._body_order():
                raw = self._id_at(i)
                try:
                    yield raw.hex(), self.read_at(i, raw)
                except CorruptObject as e:
                    yield raw.hex(), e
            return
        zr: DeflateReader | None = None
        for ids, data in self.raw_blocks_in_body_order():
            if isinstance(data, CorruptObject):  # its bounds or positions: each object as get reads it
                for oid in ids:
                    try:
                        yield oid, self.get(oid)
                    except CorruptObject as e:
                        yield oid, e
                continue
            try:
                zr = zr or self._inflater()
            except CorruptObject as e:
                for oid in ids:
                    yield oid, e
                continue
            digests: dict[int, bytes] = {}
            lost: dict[int, str] = {}
            frames, err = zr.block_frames(data, digests, HexIds(ids), lost)
            if len(frames) > len(ids):
                err = err or f"the block holds {len(frames)} objects, its index {len(ids)}"
            for k, oid in enumerate(ids):
                if k in lost:
                    yield oid, CorruptObject(f"{self.pack_path}: object {oid}: {lost[k]}")
                    continue
                got = (digests.get(k) or blake3(frames[k]).digest()).hex() if k < len(frames) else ""
                if got == oid:
                    yield oid, frames[k]
                elif k < len(frames):
                    yield oid, CorruptObject(f"{self.pack_path}: object {oid}: content hashes to {got}")
                else:
                    yield oid, CorruptObject(f"{self.pack_path}: object {oid}: cannot decompress object {k} "
                                             f"of its block ({err})")

    def raw_entries_in_body_order(self) -> Iterator[tuple[str, bytes | CorruptObject]]:
        """``(id, data)`` of every object in the order of the pack body,
        ``data`` being what :meth:`raw_entry` returns (the compressed
        stream, not decompressed, not checked), or the ``CorruptObject``
        :meth:`raw_entry` would raise (bounds, length prefix) in its place.
        Read through one read-only mapping of the pack file, without a
        lookup per id: a pack copy (``Store._copy_pack``) is then O(bytes).
        Versions 1 and 2 (version 3: :meth:`raw_blocks_in_body_order`)."""
        if self.version >= 3:
            raise ValueError(f"{self.pack_path}: version-3 entries are blocks (raw_blocks_in_body_order)")
        order = sorted(range(self.count), key=lambda i: self._entry(i)[0])
        if not order:
            return
        with mmap.mmap(self._pf.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            for i in order:
                raw = self._id_at(i)
                off, length = self._entry(i)
                if off < self._body_start or length < 5 or off + length > self._body_end:
                    yield raw.hex(), CorruptObject(f"{self.idx_path}: object {raw.hex()}: entry outside the pack body")
                    continue
                data = mm[off:off + length]
                if len(data) != length or U32.unpack_from(data, 0)[0] != length - 4:
                    yield raw.hex(), CorruptObject(f"{self.pack_path}: object {raw.hex()}: "
                                                   "short read or bad length prefix")
                    continue
                yield raw.hex(), data[4:]
