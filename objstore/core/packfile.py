"""One pack read by id: :class:`Pack` (a ``pack-<name>.pack`` and its
``.idx`` on disk: lookups; its whole-pack reads in body order are
:class:`objstore.core.packorder.PackBodyOrder`'s, ``verify``
:class:`objstore.core.packcheck.PackChecks`'),
:class:`PackInfo` (a finished pack's names and sizes); a pack and its index
held in memory (a remote's bundle) is :class:`objstore.core.packbytes.PackBytes`.

The format, the checks an open makes and the block decoding are in
:mod:`objstore.core.packformat`; a store's directory of packs is
:class:`objstore.core.pack.PackSet`.
"""

from __future__ import annotations

import bisect
import mmap
import os
import zlib
from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path

from blake3 import blake3

from objstore.core.errors import CorruptObject, InvalidInput, NotFound, PackFileMissing
from objstore.core.ids import check_prefix, is_full_id
from objstore.core.packformat import (
    BLOCK_CACHE, DICT_AT, FANOUT, FANOUT_LEN, HEADER, HEADER_LEN, ID_LEN, IDX5_ID_LEN, IDX_FIXED, IDX_MAGIC,
    MAX_ENTRY, PACK_MAGIC, PACK_MIN, PARENT_MARK, SUM_LEN, U16, U32, U64,
    DeflateReader,
    header_version,
    idx_size,
    int_table,
    join_parents,
    pack_name_id,
    pos_width,
    put_parent,
    raw_id,
    readable,
)
from objstore.core.packcheck import PackChecks
from objstore.core.packorder import PackBodyOrder
from objstore.core.packlines import ChunkTable
from objstore.core.packsources import BlockSources
from objstore.core.record import Frozen, set_fields

#: whole bytes of a prefix (past the fan-out's first) from which :meth:`Pack.find_prefixed` scans its
#: fan-out bucket with ``mmap.find`` instead of a binary search (a shorter key is found inside rows
#: often: each such match is skipped, but by a step in Python)
FIND_MIN_BYTES = 6


def prepare_prefixes(ps: "Iterable[str]") -> list[tuple[str, bytes, int, tuple[bytes, bytes]]]:
    """Checked prefixes (4-64 lowercase hex) as :meth:`Pack.find_prefixed`
    takes them, converted once for every pack: ``(prefix, its whole bytes,
    their first byte, (the whole bytes, those after the first))``."""
    out = []
    for p in ps:
        whole = bytes.fromhex(p[:len(p) & ~1])
        out.append((p, whole, whole[0], (whole, whole[1:])))
    return out


class PackInfo(Frozen):
    """A finished pack.

    Attributes:
        name: the pack checksum, 64 hex (the ``<name>`` of the file names).
        pack_path: ``<pack_dir>/pack-<name>.pack``.
        idx_path: ``<pack_dir>/pack-<name>.idx``.
        count: number of objects (distinct ids) in the pack.
        size: size of the ``.pack`` file in bytes.
        idx_size: size of the ``.idx`` file in bytes
            (:func:`~objstore.core.packformat.idx_size`: ``1100 + 44 * count``;
            version 5: ``1104 + (31 + 2 * W) * count + 16 * blocks``).
    """

    __slots__ = ("name", "pack_path", "idx_path", "count", "size", "idx_size")

    def __init__(self, name: str, pack_path: Path, idx_path: Path, count: int, size: int, idx_size: int) -> None:
        set_fields(self, name, pack_path, idx_path, count, size, idx_size)


class Pack(PackChecks, PackBodyOrder):
    """One complete pack, opened through its index.

    Opening is O(1) in the pack size: it mmaps the index (pages are read on
    demand), reads its header and fan-out (1 KiB) and the pack's header and
    trailer, and checks what :mod:`objstore.core.packformat` lists under "Checks"; it does not
    read the ids.  Lookups are a fan-out range plus a binary search over the
    mmap, then one ``pread`` of the entry.  Reads are safe from several
    threads.

    Args:
        idx_path: ``.../pack-<64 hex>.idx``; the pack is the ``.pack`` beside it.

    Raises:
        InvalidInput: the file name is not ``pack-<64 hex>.idx``.
        NotFound: the index file does not exist.
        CorruptObject: the index or pack is truncated, damaged or missing
            (the message names the file); a version of 0 or above
            ``packformat.MAX_FORMAT_VERSION`` in either header (a damaged
            field, not a newer mem).
        UnsupportedVersion: an index or pack format version from 6 to
            ``MAX_FORMAT_VERSION`` (a newer mem's: exit 14, "upgrade mem").

    Attributes:
        name: the pack checksum, 64 hex.  idx_path, pack_path: the files.
        count: number of objects.  size: pack file size in bytes.
        block_cache: how many blocks :meth:`read_at` keeps inflated
            (``BLOCK_CACHE``; for a pack the resident helper keeps open,
            its share of ``KEPT_BLOCKS``: ``pack.KeptPacks``).
    """

    block_cache = BLOCK_CACHE

    def __init__(self, idx_path: Path | str) -> None:
        self.idx_path = idx_path if isinstance(idx_path, Path) else Path(idx_path)  # (Path(a Path): 3.7 µs)
        name = pack_name_id(self.idx_path.name, ".idx")
        if name is None:
            raise InvalidInput(f"{self.idx_path}: not a pack index name (want pack-<64 hex>.idx)")
        self.name = name
        self.pack_path = self.idx_path.with_name(f"pack-{self.name}.pack")
        self._mm: mmap.mmap | None = None
        self._pf = None
        try:
            fd = os.open(self.idx_path, os.O_RDONLY)
        except FileNotFoundError:
            raise NotFound(f"no pack index {self.idx_path}") from None
        try:
            self._idx_size = os.fstat(fd).st_size
            if self._idx_size < IDX_FIXED:
                raise CorruptObject(f"{self.idx_path}: truncated ({self._idx_size} bytes; "
                                    f"an index has at least {IDX_FIXED})")
            self._mm = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        finally:
            os.close(fd)
        try:
            self._open_checks()
        except BaseException:
            self.close()
            raise

    def _open_checks(self) -> None:
        mm, ip = self._mm, self.idx_path
        magic, version, n = HEADER.unpack_from(mm, 0)
        if magic != IDX_MAGIC:
            raise CorruptObject(f"{ip}: not a pack index (bad magic {magic!r})")
        problem = readable(str(ip), "pack index", version, other=header_version(self.pack_path))
        if problem is not None:
            raise problem
        self.version = version
        self._ids_off = HEADER_LEN + FANOUT_LEN
        #: bytes of an id in the id table (version 5: without its first byte, which the fan-out gives)
        self._idw = IDX5_ID_LEN if version >= 5 else ID_LEN
        #: width of a body position and of a place in the id table (version 5: by the count; version 4: u32)
        self._w = pos_width(n) if version >= 5 else 4
        self._firsts: array | None = None  # version 5: the blocks' first body positions, once read
        self._nblocks = 0
        if version >= 5:  # each object's body position, then the block table
            self._pos_off = self._ids_off + self._idw * n
            nb_off = self._pos_off + self._w * n
        elif version >= 3:  # the block table's length B follows the positions
            self._bno_off = self._ids_off + ID_LEN * n
            self._ord_off = self._bno_off + 4 * n
            nb_off = self._ord_off + 2 * n
        if version >= 3:
            if self._idx_size < nb_off + 4 + 2 * SUM_LEN:
                raise CorruptObject(f"{ip}: {self._idx_size} bytes, but {n} objects need at least "
                                    f"{nb_off + 4 + 2 * SUM_LEN} (truncated or damaged)")
            self._nblocks = U32.unpack_from(mm, nb_off)[0]
            if self._nblocks > n or (n > 0) != (self._nblocks > 0):
                raise CorruptObject(f"{ip}: {self._nblocks} blocks for {n} objects (damaged)")
            self._boffs_off = nb_off + 4
            self._blens_off = self._boffs_off + 8 * self._nblocks
            self._bfirst_off = self._blens_off + 4 * self._nblocks  # versions 4, 5
            self._inv_off = self._bfirst_off + 4 * self._nblocks  # versions 4, 5
        self._nchunks = 0  # version 8: chunk blocks, their table after the body-position table
        if version >= 8 and self._idx_size >= self._inv_off + self._w * n + 4:
            self._nchunks = U32.unpack_from(mm, self._inv_off + self._w * n)[0]
        need = idx_size(n, version, self._nblocks, self._nchunks)
        if self._idx_size != need:
            raise CorruptObject(f"{ip}: {self._idx_size} bytes, but {n} objects need {need} "
                                "(truncated or damaged)")
        fanout = FANOUT.unpack_from(mm, HEADER_LEN)
        if fanout[255] != n or list(fanout) != sorted(fanout):  # (sorted: one C pass; 15 -> 2 µs)
            raise CorruptObject(f"{ip}: fan-out table is damaged")
        self.count = n
        self._fanout = (0,) + fanout  # _fanout[b] = start of bucket b, _fanout[b + 1] = its end
        if version >= 4:
            self._sum_off = self._inv_off + self._w * n + (4 + 16 * self._nchunks if version >= 8 else 0)
        elif version >= 3:
            self._sum_off = self._blens_off + 4 * self._nblocks
        else:
            self._offs_off = self._ids_off + ID_LEN * n
            self._lens_off = self._offs_off + 8 * n
            self._sum_off = self._lens_off + 4 * n
        self._zr: DeflateReader | None = None  # versions 2, 3: made on the first read
        #: versions 3, 4: block offset -> (its first frames as stored, as far as a
        #: read inflated them, version 4: its parent references, its number), so
        #: that a walk up a session's chain reads a block's frames from the last to
        #: the first inflating it once
        #: version 6: and its source codes and column (the frames' sources put back as they are read)
        self._blocks: dict[int, tuple[list[bytes], tuple[int, ...] | None, int, BlockSources | None]] = {}
        recorded = mm[self._sum_off:self._sum_off + SUM_LEN]
        if recorded.hex() != self.name:
            raise CorruptObject(f"{ip}: records pack checksum {recorded.hex()}, but the file is named for {self.name}")
        pp = self.pack_path
        try:
            self._pf = open(pp, "rb", buffering=0)
        except FileNotFoundError:
            raise PackFileMissing(f"{pp}: missing (not damaged: its index {ip.name} is intact; a sync or copy "
                                  "not finished?)", pp, frozenset(self)) from None
        fd = self._pf.fileno()
        self.size = os.fstat(fd).st_size
        if self.size < PACK_MIN:
            raise CorruptObject(f"{pp}: truncated ({self.size} bytes)")
        magic, version, pn = HEADER.unpack(os.pread(fd, HEADER_LEN, 0))
        if magic != PACK_MAGIC:
            raise CorruptObject(f"{pp}: not a pack (bad magic {magic!r})")
        problem = readable(str(pp), "pack", version, other=self.version)
        if problem is not None:
            raise problem
        if version != self.version:
            raise CorruptObject(f"{pp}: pack version {version}, but its index {self.idx_path.name} has version "
                                f"{self.version} (one of them damaged)")
        if pn != n:
            raise CorruptObject(f"{pp}: header says {pn} objects, its index {n}")
        if os.pread(fd, SUM_LEN, self.size - SUM_LEN) != recorded:
            raise CorruptObject(f"{pp}: trailer checksum does not match its index (truncated or damaged)")
        self._body_end = self.size - SUM_LEN
        self._body_start = HEADER_LEN  # where the entries begin
        if version >= 2:
            raw_len = os.pread(fd, 4, HEADER_LEN)
            d = U32.unpack(raw_len)[0] if len(raw_len) == 4 else -1
            if d < 0 or DICT_AT + d > self._body_end:
                raise CorruptObject(f"{pp}: dictionary length {d} runs past the pack body")
            self._dict_len = d
            self._body_start = DICT_AT + d

    def dictionary(self) -> bytes:
        """Versions 2 and 3: the pack's preset dictionary (raw bytes; empty
        when it has none).  Version 1: empty."""
        if self.version == 1 or not self._dict_len:
            return b""
        data = os.pread(self._pf.fileno(), self._dict_len, DICT_AT)
        if len(data) != self._dict_len:
            raise CorruptObject(f"{self.pack_path}: short read of its dictionary")
        return data

    def _inflater(self) -> DeflateReader:
        zr = self._zr
        if zr is None:
            try:
                zr = DeflateReader(self.dictionary(), self.version)
            except ValueError as e:  # a dictionary over 32 KiB
                raise CorruptObject(f"{self.pack_path}: its dictionary cannot be loaded ({e})") from None
            if self.version >= 8:
                zr.chunks = self.chunk_table()
            self._zr = zr
        return zr

    def chunk_table(self):
        """Version 8: the pack's chunks (a new :class:`~objstore.core.packlines.ChunkTable`
        over its index's chunk-block table; a chunk block outside the body reads as damaged)."""
        c, o = self._nchunks, self._inv_off + self._w * self.count + 4
        lo, hi, fd = self._body_start, self._body_end, self._pf.fileno()
        return ChunkTable(int_table(self._mm, "Q", o, c), int_table(self._mm, "I", o + 8 * c, c),
                          int_table(self._mm, "I", o + 12 * c, c),
                          lambda off, n: os.pread(fd, n, off) if lo <= off and off + n <= hi and n >= 5 else b"")

    # -- lookups ------------------------------------------------------------

    def _id_at(self, i: int) -> bytes:
        idw = self._idw
        o = self._ids_off + i * idw
        if idw == ID_LEN:
            return self._mm[o:o + ID_LEN]
        # version 5: the first byte is the fan-out bucket holding position i
        return bytes((bisect.bisect_right(self._fanout, i) - 1,)) + self._mm[o:o + idw]

    def find_raw(self, raw: bytes) -> int:
        """Position of raw id ``raw`` (32 bytes) in the id table, or -1:
        a fan-out range and a binary search over the mmap.  For
        :meth:`read_at` (:class:`~objstore.core.pack.PackSet` looks an id up
        in each pack with it)."""
        b = raw[0]
        lo, hi = self._fanout[b], self._fanout[b + 1]
        mm, base, idw = self._mm, self._ids_off, self._idw
        key = raw[ID_LEN - idw:]  # version 5: the table holds the bytes after the first
        while lo < hi:
            mid = (lo + hi) >> 1
            o = base + mid * idw
            k = mm[o:o + idw]
            if k < key:
                lo = mid + 1
            elif k == key:
                return mid
            else:
                hi = mid
        return -1

    def _entry(self, i: int) -> tuple[int, int]:
        """(offset, length) of object ``i``'s entry (version 3: of its block;
        ``(0, 0)``, which no bounds check passes, for a block number past
        the block table)."""
        if self.version >= 3:
            return self._block(self._place(i)[0])
        return (U64.unpack_from(self._mm, self._offs_off + 8 * i)[0],
                U32.unpack_from(self._mm, self._lens_off + 4 * i)[0])

    def _block(self, b: int) -> tuple[int, int]:
        """Version 3: (offset, entry length) of block ``b`` (``(0, 0)`` past the table)."""
        if b >= self._nblocks:
            return 0, 0
        return (U64.unpack_from(self._mm, self._boffs_off + 8 * b)[0],
                U32.unpack_from(self._mm, self._blens_off + 4 * b)[0])

    def _ordinal(self, i: int) -> int:
        """Version 3: the position of object ``i`` in its block (0 before)."""
        return self._place(i)[1] if self.version >= 3 else 0

    def _place(self, i: int) -> tuple[int, int]:
        """Versions 3-5: (block number, position in the block) of object
        ``i`` of the id table; version 5 from its body position (the block:
        the last whose first body position is not after it); a block number
        past the table (B) for a damaged position."""
        mm = self._mm
        if self.version < 5:
            return U32.unpack_from(mm, self._bno_off + 4 * i)[0], U16.unpack_from(mm, self._ord_off + 2 * i)[0]
        w = self._w
        o = self._pos_off + w * i
        p = int.from_bytes(mm[o:o + w], "big")
        firsts = self._firsts
        if firsts is None:  # B numbers (4 bytes a block of ~BLOCK_BYTES of frames), read on the first lookup
            firsts = self._firsts = int_table(mm, "I", self._bfirst_off, self._nblocks)
        b = bisect.bisect_right(firsts, p) - 1  # the last block whose first body position is not after p
        if b < 0 or p >= self.count:
            return self._nblocks, 0
        return b, p - firsts[b]

    def _block_id(self, b: int, j: int) -> bytes:
        """Version 4: the raw id of object ``j`` of block ``b``, from the
        index (block ``b``'s first body position plus ``j``, that body
        position's place in the id table); 32 zero bytes, which no frame
        hashes to, when a table is damaged (its bounds)."""
        n = self.count
        if b >= self._nblocks:
            return bytes(ID_LEN)
        o = U32.unpack_from(self._mm, self._bfirst_off + 4 * b)[0] + j
        if o >= n:
            return bytes(ID_LEN)
        w = self._w
        p = self._inv_off + w * o
        i = int.from_bytes(self._mm[p:p + w], "big")
        return self._id_at(i) if i < n else bytes(ID_LEN)

    def _cached_frame(self, got: tuple[list[bytes], tuple[int, ...] | None, int, BlockSources | None],
                      k: int) -> bytes:
        """Frame ``k`` of a block read before (``got``, an entry of
        :attr:`_blocks`), its source put back (version 6) and its parent
        from the index (version 4)."""
        frames, refs, b, src = got
        try:
            s = frames[k] if src is None else src.frame(frames, k)
        except ValueError:
            return frames[k]  # damaged: the caller's hash check fails
        if refs is None or not refs[k]:
            return s
        p = s.rfind(PARENT_MARK)
        if p < 0 or refs[k] > k:
            return s  # damaged: the caller's hash check fails
        return put_parent(s, p, self._block_id(b, refs[k] - 1))

    def _joined_frame(self, got, k: int) -> bytes | None:
        """Frame ``k`` of a block read before (``got``, as
        :meth:`_cached_frame`) with its parent's id computed from the
        block's frames, not taken from the index (version 4's
        ``join_parents`` over frames 0 … ``k``: O(k) hashes), for a read
        whose parent id from the index does not give its id (that id in the
        index is damaged); None when the frames cannot be put back."""
        frames, refs, _b, src = got
        try:
            out = [frames[i] if src is None else src.frame(frames, i) for i in range(k + 1)]
        except ValueError:
            return None
        return None if join_parents(out, refs) else out[k]

    def _decode_entry(self, data: bytes, raw: bytes) -> bytes:
        """Frame from an entry's bytes (versions 1 and 2; version 3:
        :meth:`_read_block`); raises CorruptObject naming the problem."""
        oid = raw.hex()
        if U32.unpack_from(data, 0)[0] != len(data) - 4:
            raise CorruptObject(f"{self.pack_path}: object {oid}: length prefix does not match the index")
        if self.version == 2:
            try:
                frame = self._inflater().decompress(memoryview(data)[4:], MAX_ENTRY)
            except ValueError as e:
                raise CorruptObject(f"{self.pack_path}: object {oid}: cannot decompress ({e})") from None
            got = blake3(frame).digest()
            if got != raw:
                raise CorruptObject(f"{self.pack_path}: object {oid}: content hashes to {got.hex()}")
            return frame
        d = zlib.decompressobj()
        try:
            frame = d.decompress(memoryview(data)[4:])
        except zlib.error as e:
            raise CorruptObject(f"{self.pack_path}: object {oid}: cannot decompress ({e})") from None
        if not d.eof or d.unused_data:
            raise CorruptObject(f"{self.pack_path}: object {oid}: zlib stream truncated or followed by garbage")
        got = blake3(frame).digest()
        if got != raw:
            raise CorruptObject(f"{self.pack_path}: object {oid}: content hashes to {got.hex()}")
        return frame

    def read_at(self, i: int, raw: bytes) -> bytes:
        """The verified frame of the object at position ``i`` of the id
        table, whose raw id is ``raw`` (:meth:`find_raw`).  Raises
        CorruptObject as :meth:`get`."""
        if self.version >= 3:
            b, k = self._place(i)
            off, length = self._block(b)
            got = self._blocks.get(off)
            if got is not None and k < len(got[0]):
                frame = self._cached_frame(got, k)
                if blake3(frame).digest() == raw:
                    return frame
        else:
            off, length = self._entry(i)
        if off < self._body_start or length < 5 or off + length > self._body_end:
            raise CorruptObject(f"{self.idx_path}: object {raw.hex()}: entry offset {off} length {length} "
                                f"is outside the pack body")
        data = os.pread(self._pf.fileno(), length, off)
        if len(data) != length:
            raise CorruptObject(f"{self.pack_path}: object {raw.hex()}: short read (file truncated?)")
        if self.version >= 3:
            return self._read_block(data, raw, off, k, b)
        return self._decode_entry(data, raw)

    def _read_block(self, data: bytes, raw: bytes, off: int, k: int, b: int) -> bytes:
        """Versions 3, 4: frame ``k`` of block ``b``, the entry ``data`` at
        ``off``, verified (version 4: its parent id, when the block left it
        out, put back from the index, without hashing the frames before
        it); the frames before it are kept for the next reads
        (:attr:`_blocks`, the last :attr:`block_cache` blocks)."""
        oid = raw.hex()
        if U32.unpack_from(data, 0)[0] != len(data) - 4:
            raise CorruptObject(f"{self.pack_path}: object {oid}: length prefix does not match the index")
        try:
            frames, refs, src = self._inflater().stored_prefix(memoryview(data)[4:], k, lazy=True)
        except ValueError as e:
            raise CorruptObject(f"{self.pack_path}: object {oid}: cannot decompress object {k} of its "
                                f"block ({e})") from None
        entry = (frames, refs, b, src)
        frame = self._cached_frame(entry, k)
        got = blake3(frame).digest()
        if got != raw and refs is not None and refs[k]:
            frame = self._joined_frame(entry, k) or frame  # a damaged id in the index, not this frame's parent
            got = blake3(frame).digest()
        if got != raw:
            why = getattr(frames, "lost", {}).get(k)
            raise CorruptObject(f"{self.pack_path}: object {oid}: {why or f'content hashes to {got.hex()}'}")
        cache = self._blocks
        if len(cache) >= self.block_cache:
            try:
                cache.pop(next(iter(cache), None), None)  # the oldest
            except RuntimeError:  # another thread changed it meanwhile
                cache.clear()
        cache[off] = entry
        return frame

    def get(self, oid: str) -> bytes:
        """The verified frame of object ``oid`` (64 hex).

        Raises:
            InvalidInput: ``oid`` is not 64 lowercase hex.
            NotFound: not in this pack.
            CorruptObject: the entry is out of bounds, undecompressable, or
                hashes to another id (the message names the file).
        """
        raw = raw_id(oid)
        i = self.find_raw(raw)
        if i < 0:
            raise NotFound(f"no object {oid}")
        return self.read_at(i, raw)

    def raw_entry(self, oid: str) -> bytes:
        """The entry's compressed data (no decompression, no hash check):
        version 1, the zlib stream; version 2, the raw DEFLATE stream, which needs
        this pack's :meth:`dictionary`.  For copying into another pack with
        :meth:`PackWriter.add_entry` (a version-2 writer must use the same
        dictionary).  Raises NotFound, CorruptObject (bounds, length prefix),
        ValueError for a version-3 pack, whose entries are blocks."""
        raw = raw_id(oid)
        if self.version >= 3:
            raise ValueError(f"{self.pack_path}: version-3 entries are blocks (raw_blocks_in_body_order)")
        i = self.find_raw(raw)
        if i < 0:
            raise NotFound(f"no object {oid}")
        off, length = self._entry(i)
        if off < self._body_start or length < 5 or off + length > self._body_end:
            raise CorruptObject(f"{self.idx_path}: object {oid}: entry outside the pack body")
        data = os.pread(self._pf.fileno(), length, off)
        if len(data) != length or U32.unpack_from(data, 0)[0] != length - 4:
            raise CorruptObject(f"{self.pack_path}: object {oid}: short read or bad length prefix")
        return data[4:]

    def contains(self, oid: str) -> bool:
        """True when ``oid`` is in the index (False for a malformed id).
        Does not read the entry."""
        return isinstance(oid, str) and is_full_id(oid) and self.find_raw(bytes.fromhex(oid)) >= 0

    __contains__ = contains

    def entry_size(self, oid: str) -> int:
        """Size in bytes of the object's compressed data in the pack (``L``:
        its zlib stream in version 1, its raw DEFLATE stream in version 2; the entry
        takes ``4 + L``; version 3: that of its whole block, shared with the
        block's other objects).  Raises InvalidInput or NotFound."""
        i = self.find_raw(raw_id(oid))
        if i < 0:
            raise NotFound(f"no object {oid}")
        return self._entry(i)[1] - 4

    def iter_raw(self) -> Iterator[bytes]:
        """Every raw id (32 bytes) in the pack, in ascending order."""
        mm, base, idw, fan = self._mm, self._ids_off, self._idw, self._fanout
        if idw == ID_LEN:
            for i in range(self.count):
                o = base + i * ID_LEN
                yield mm[o:o + ID_LEN]
            return
        for b in range(256):  # version 5: each fan-out bucket's first byte before its ids' other bytes
            head = bytes((b,))
            for i in range(fan[b], fan[b + 1]):
                o = base + i * idw
                yield head + mm[o:o + idw]

    def __iter__(self) -> Iterator[str]:
        """Every id in the pack (64 hex), in ascending order."""
        for raw in self.iter_raw():
            yield raw.hex()

    def __len__(self) -> int:
        return self.count

    def resolve_prefix(self, prefix: str) -> list[str]:
        """Ids of this pack starting with ``prefix`` (4-64 hex), ascending.

        Uses the fan-out and a lower-bound binary search; reads only the
        matching ids.  Raises InvalidInput for a malformed prefix.
        """
        return [r.hex() for r in self.prefix_raw(check_prefix(prefix))]

    def prefix_raw(self, p: str) -> list[bytes]:
        """Raw ids of this pack starting with the checked prefix ``p``
        (4-64 lowercase hex, :func:`~objstore.core.ids.check_prefix`),
        ascending (:meth:`find_prefixed` of the one prefix)."""
        return [r for _i, r in self.find_prefixed(prepare_prefixes((p,)))]

    def find_prefixed(self, prepared: "list[tuple]") -> list[tuple[int, bytes]]:
        """``(i, raw id)`` for each id of this pack starting with the
        ``i``-th prefix of ``prepared`` (:func:`prepare_prefixes`), by
        prefix, each prefix's ids ascending.  A prefix of at least
        ``FIND_MIN_BYTES`` whole bytes past the fan-out's is found by
        ``mmap.find`` over its fan-out bucket (one C scan of ~1/256 of the
        id table; a match is kept only at a row's start), a shorter one by
        a lower-bound binary search.  Every pack is asked for every
        16-byte prefix a search resolves (``objstore.core.idprefix``): at a
        million turns, 113 packs, ~1.5k lookups a recall, in one call a pack."""
        mm, base, idw, fan = self._mm, self._ids_off, self._idw, self._fanout
        cut = ID_LEN - idw  # version 5: the table holds the bytes after the first (keys[1])
        find = mm.find
        got: list[tuple[int, bytes]] = []
        for i, (p, whole, b, keys) in enumerate(prepared):
            lo, end = fan[b], fan[b + 1]
            if lo >= end:
                continue
            key = keys[cut]
            if len(key) >= FIND_MIN_BYTES:
                stop = base + end * idw
                o = find(key, base + lo * idw, stop)
                while o >= 0:
                    if (o - base) % idw == 0:  # a row's start: the row begins with the prefix's whole bytes
                        k = mm[o:o + idw] if not cut else whole[:1] + mm[o:o + idw]
                        if not len(p) & 1 or k.hex().startswith(p):
                            got.append((i, k))
                    o = find(key, o + 1, stop)
                continue
            lo_raw = bytes.fromhex((p + "0" * 64)[:64])
            hi_raw = bytes.fromhex((p + "f" * 64)[:64])
            key = lo_raw[cut:]
            hi = end
            while lo < hi:
                mid = (lo + hi) >> 1
                o = base + mid * idw
                if mm[o:o + idw] < key:
                    lo = mid + 1
                else:
                    hi = mid
            while lo < end:
                k = self._id_at(lo)
                if k > hi_raw:
                    break
                got.append((i, k))
                lo += 1
        return got

    # -- checking: verify (PackChecks, objstore.core.packcheck) ------------

    def info(self) -> PackInfo:
        """This pack as a :class:`PackInfo`."""
        return PackInfo(name=self.name, pack_path=self.pack_path, idx_path=self.idx_path,
                        count=self.count, size=self.size, idx_size=self._idx_size)

    def drop_pages(self) -> None:
        """Let go of the index pages this process has read: ``madvise``
        MADV_DONTNEED on the read-only mapping, so they leave this process's
        resident memory and the next lookup reads them again from the page
        cache (the file is unchanged).  For a long import, whose lookups
        would otherwise keep every pack index resident as the store grows.
        Version 3: the frames of the blocks it keeps go too.  Never raises."""
        if self.version >= 3:
            self._blocks = {}
        if self._zr is not None and self._zr.chunks is not None:
            self._zr.chunks.drop()
        if self._mm is not None and hasattr(mmap, "MADV_DONTNEED"):
            try:
                self._mm.madvise(mmap.MADV_DONTNEED)
            except (OSError, ValueError):
                pass

    def close(self) -> None:
        """Release the mmap and the pack file descriptor.  Idempotent; a
        closed pack raises ValueError on use."""
        if self._mm is not None:
            self._mm.close()
        if self._pf is not None:
            self._pf.close()

    def __enter__(self) -> Pack:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Pack({str(self.idx_path)!r}, count={getattr(self, 'count', '?')})"
