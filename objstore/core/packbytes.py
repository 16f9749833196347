"""A pack and its index held in memory, read by id without writing them
anywhere: :class:`PackBytes` (a remote's bundle; ``mem fetch``/``pull``).

The same layout and checks as :class:`objstore.core.packfile.Pack` (the
format: :mod:`objstore.core.packformat`); split from ``packfile`` so that
module holds the on-disk pack only.
"""

from __future__ import annotations

import zlib

from blake3 import blake3

from objstore.core.errors import CorruptObject
from objstore.core.packformat import (
    DICT_AT, FANOUT, FANOUT_LEN, HEADER, HEADER_LEN, ID_LEN, IDX5_ID_LEN, IDX_FIXED, IDX_MAGIC, MAX_ENTRY,
    PACK_MAGIC, PACK_MIN, SUM_LEN, U16, U32, U64,
    DeflateReader,
    idx_size,
    int_table,
    pos_width,
    raw_id,
    readable,
)

from objstore.core.packlines import ChunkTable

_IDS = HEADER_LEN + FANOUT_LEN  # 1036: where the id table begins


class PackBytes:
    """A pack and its index held in memory (a remote's bundle), read by id
    without writing them anywhere: the same layout and checks as
    :class:`Pack` for lookups, versions 1 to 8 (versions 4 to 8: a left-out
    parent id put back by hashing the frame it names; 7: zstd blocks).

    Raises CorruptObject (a malformed header; a version of 0 or above
    ``MAX_FORMAT_VERSION``) or UnsupportedVersion (a version from 9 up to it)."""

    def __init__(self, pack: bytes, idx: bytes) -> None:
        self.pack, self.idx = pack, idx
        if len(idx) < IDX_FIXED or len(pack) < PACK_MIN:
            raise CorruptObject("pack bundle: truncated")
        magic, version, n = HEADER.unpack_from(idx, 0)
        pmagic, pversion, pn = HEADER.unpack_from(pack, 0)
        if magic != IDX_MAGIC or pmagic != PACK_MAGIC or pn != n:
            raise CorruptObject("pack bundle: not a pack and its index")
        for what, v, other in (("pack index", version, pversion), ("pack", pversion, version)):
            problem = readable("pack bundle", what, v, other=other)
            if problem is not None:
                raise problem
        if pversion != version:
            raise CorruptObject(f"pack bundle: pack version {pversion}, index version {version}")
        # version 5: ids without their first byte, then W-byte body positions; 3, 4: block numbers, positions
        self._idw = IDX5_ID_LEN if version >= 5 else ID_LEN
        self._w = pos_width(n) if version >= 5 else 0
        nb_off = _IDS + (self._idw + self._w) * n if version >= 5 else _IDS + 38 * n
        self._nblocks = U32.unpack_from(idx, nb_off)[0] if version >= 3 and len(idx) >= nb_off + 4 else 0
        self._boffs = nb_off + 4
        c_off = self._boffs + 16 * self._nblocks + self._w * n  # version 8: the chunk-block table
        self._nchunks = U32.unpack_from(idx, c_off)[0] if version >= 8 and len(idx) >= c_off + 4 else 0
        if len(idx) != idx_size(n, version, self._nblocks, self._nchunks):
            raise CorruptObject("pack bundle: not a pack and its index")
        self.version, self.count = version, n
        self._fanout = (0,) + FANOUT.unpack_from(idx, HEADER_LEN)
        self._zr: DeflateReader | None = None

    def get(self, oid: str) -> bytes | None:
        """The verified frame of ``oid``, or None when the index does not
        list it.  Raises CorruptObject (bounds, decompression, hash)."""
        raw, idx, n, idw = raw_id(oid), self.idx, self.count, self._idw
        key = raw[ID_LEN - idw:]  # version 5: the table holds the bytes after the first
        # the id table is sorted; version 5: the fan-out gives the range of the first byte
        lo, hi = (self._fanout[raw[0]], self._fanout[raw[0] + 1]) if self.version >= 5 else (0, n)
        end = hi
        while lo < hi:
            mid = (lo + hi) // 2
            if idx[_IDS + idw * mid:_IDS + idw * (mid + 1)] < key:
                lo = mid + 1
            else:
                hi = mid
        if lo >= min(n, end) or idx[_IDS + idw * lo:_IDS + idw * (lo + 1)] != key:
            return None
        nb = self._nblocks
        c_off = self._boffs + 16 * nb + self._w * n
        if self.version >= 5:
            w = self._w
            o = _IDS + idw * n + w * lo
            p = int.from_bytes(idx[o:o + w], "big")
            first = self._boffs + 12 * nb  # the blocks' first body positions
            blo, bhi = 0, nb
            while blo < bhi:  # the first block whose first body position is after p
                mid = (blo + bhi) // 2
                if U32.unpack_from(idx, first + 4 * mid)[0] <= p:
                    blo = mid + 1
                else:
                    bhi = mid
            b = blo - 1 if blo and p < n else nb
            k = p - U32.unpack_from(idx, first + 4 * b)[0] if b < nb else -1
        else:
            b = U32.unpack_from(idx, _IDS + 32 * n + 4 * lo)[0] if self.version >= 3 else 0
            k = U16.unpack_from(idx, _IDS + 36 * n + 2 * lo)[0] if self.version >= 3 else 0
        if self.version >= 3:
            if b >= nb or k < 0:
                raise CorruptObject(f"pack bundle: object {oid}: block {b} of {nb}")
            off = U64.unpack_from(idx, self._boffs + 8 * b)[0]
            length = U32.unpack_from(idx, self._boffs + 8 * nb + 4 * b)[0]
        else:
            off = U64.unpack_from(idx, 1036 + 32 * n + 8 * lo)[0]
            length = U32.unpack_from(idx, 1036 + 40 * n + 4 * lo)[0]
        if off < HEADER_LEN or length < 5 or off + length > len(self.pack) - SUM_LEN:
            raise CorruptObject(f"pack bundle: object {oid}: entry outside the pack body")
        data = memoryview(self.pack)[off + 4:off + length]
        try:
            if self.version == 1:
                frame = zlib.decompress(data)
            else:
                if self._zr is None:
                    d = U32.unpack_from(self.pack, HEADER_LEN)[0]
                    self._zr = DeflateReader(bytes(self.pack[DICT_AT:DICT_AT + d]), self.version)
                    if self.version >= 8:
                        self._zr.chunks = self._chunk_table(c_off)
                if self.version == 2:
                    frame = self._zr.decompress(data, MAX_ENTRY)
                else:
                    frame = self._zr.block_frame(data, k)
        except (zlib.error, ValueError) as e:
            raise CorruptObject(f"pack bundle: object {oid}: cannot decompress ({e})") from None
        if blake3(frame).digest() != raw:
            raise CorruptObject(f"pack bundle: object {oid} does not hash to its id")
        return frame

    def _chunk_table(self, c_off: int):
        """Version 8: the bundle's chunks (``objstore.core.packlines.ChunkTable``)
        from the index's chunk-block table at ``c_off``."""
        c, o, pack, end = self._nchunks, c_off + 4, self.pack, len(self.pack) - SUM_LEN
        return ChunkTable(int_table(self.idx, "Q", o, c), int_table(self.idx, "I", o + 8 * c, c),
                          int_table(self.idx, "I", o + 12 * c, c),
                          lambda off, k: bytes(pack[off:off + k]) if HEADER_LEN <= off and off + k <= end else b"")
