"""Pack version 8: the per-pack table of repeated lines (``docs/format.md``, "Packs").

A *line* is the bytes of a stored frame up to and with a ``\\n`` (the text
after the last ``\\n`` is no line).  The writer (:class:`LinePass`) makes
a line of LINE_MIN bytes or more a *chunk* of the pack's table once it
meets it again in a later block than the one it was first seen in; from
then on a stored frame holding it leaves it out and its block names the
chunk instead (a *line reference*: the offset in the stored frame where
the line goes back, and the chunk's number).  The chunks live, in the
order they were made, in *chunk blocks* (raw DEFLATE, no dictionary) in
the pack body beside the frame blocks; the index lists them.  On the
bench corpus the store takes −1.2 MB (docs/benchmarks.md, Session 31
(branch `sz31`)).

This module holds the parts of version 8 that are its own: the writer's
line pass, the line references' bytes and their splice back into a
stored frame, the chunk blocks' content, and :class:`ChunkTable`, a
pack's chunks read through its index.  The rest of a version-8 block is
version 6's (:mod:`objstore.core.packformat`).  Standard-library zlib
only; deterministic (the same frames give the same pack bytes in every
process: the line map is keyed by a line's CRC-32 and length, never
``hash()``; a collision only stores a line as it is, or makes it a chunk
a block early: the table holds the bytes, compared on every match).
"""

from __future__ import annotations

import struct
import zlib
from array import array
from bisect import bisect_right
from itertools import accumulate, chain

from objstore.core.text import LazyPattern

#: the version whose blocks carry line references and whose pack holds chunk blocks
LINES_VERSION = 8
#: a line shorter than this (with its ``\n``) is never a chunk: a reference costs ~2-3 bytes
LINE_MIN = 16
#: the writer closes a chunk block once its chunks hold this many bytes
CHUNK_BLOCK_BYTES = 64 * 1024
#: the writer's line map holds at most this many lines (a gc'd pack of the 1M-turn store meets
#: ~4M; uncapped that map took ~88 MB, docs/benchmarks.md, Session 30 (branch `sz30`)): once it
#: is full, a line not in it yet is stored as it is (a smaller gain, never a wrong byte); 1 << 20
#: took the 1M import's peak RSS from 281 to 332 MB in its end merges (session 32), 1 << 18 leaves
#: the bench store's bytes as they were (16.6 MB: its packs meet fewer lines)
LINE_MAP_MAX = 1 << 18
#: the line map's first size in slots (a power of two; it doubles at two thirds full)
_MAP_START = 1 << 18
_U32 = struct.Struct(">I")
_CHUNK_HEAD = struct.Struct(">III")  # 0 (no frame block has 0 objects), first chunk, chunk count


def _varint(n: int, out: bytearray) -> None:
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _read_varint(buf, pos: int) -> tuple[int, int]:
    """(value, next position) of the LEB128 varint at ``pos`` of ``buf``;
    ValueError when it runs past the end or over 5 bytes."""
    n = shift = 0
    for k in range(5):
        if pos >= len(buf):
            raise ValueError("a line reference runs past its area")
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            return n, pos
        shift += 7
    raise ValueError("a line reference's number is over 5 bytes")


class LinePass:
    """The version-8 writer's line pass over a pack's blocks, in order.

    :meth:`strip` takes a block's stored frames (after version 4's parent
    ids and version 6's sources are left out) and returns them without
    their chunk lines, and the block's line-reference area; the chunks it
    made wait in :attr:`table` until :meth:`chunk_blocks` hands them out
    as chunk block contents.  Memory: the map (two arrays of 12 bytes a
    slot, _MAP_START slots, doubled at two thirds full: 3 MB up to 174,762
    lines, 6 MB up to LINE_MAP_MAX) and the chunks' text, until the pack
    ends."""

    def __init__(self) -> None:
        # the line map, open addressing with linear probing in two arrays (no object per line: a dict
        # of 101,160 lines and its keys took ~8.6 MB, these 3 MB): a slot's key, CRC-32 | length << 32 (never 0:
        # a line has LINE_MIN - 1 bytes or more), 0 when empty; its value, the chunk number (>= 0), or
        # ~(the block the line was first seen in)
        self._keys = array("Q", [0]) * _MAP_START
        self._vals = array("i", [0]) * _MAP_START
        self._used = 0                   # keys in the map (at most LINE_MAP_MAX)
        self.table: list[bytes] = []     # the chunks without their \n, by number
        self._block = 0
        self._flushed = 0                # chunks already handed out in chunk blocks
        self._pending = 0                # bytes of the chunks not handed out yet

    def strip(self, frames: list[bytes]) -> tuple[list[bytes], bytes]:
        """``(stored frames, reference area)`` of the next block, whose
        stored frames are ``frames`` (block order): each line of LINE_MIN
        bytes or more that is a chunk, or was seen in an earlier block
        (it becomes a chunk now), is left out; the area holds, per frame, a
        varint count of its references and, per reference, varints of the
        offset in the stored frame (from the previous reference's) and of
        the chunk number (zigzag of its difference from the previous
        reference's chunk + 1)."""
        keys, vals, table, b = self._keys, self._vals, self.table, self._block
        mask = len(keys) - 1
        nb = ~b
        self._block += 1
        out_frames: list[bytes] = []
        area = bytearray()
        room = LINE_MAP_MAX - self._used
        grow = len(keys) * 2 // 3  # the map doubles when it holds more keys than this (room left then)
        crc, short = zlib.crc32, LINE_MIN - 1
        for f in frames:
            if b"\n" not in f:
                out_frames.append(f)
                area.append(0)
                continue
            parts = f.split(b"\n")
            pieces: list[bytes] = []
            refs: list[tuple[int, int]] = []
            run = olen = 0  # the first line not yet in pieces; the stored frame's bytes in pieces
            for i in range(len(parts) - 1):
                p = parts[i]
                lp = len(p)
                if lp < short:
                    continue
                key = crc(p) | lp << 32  # the line without its \n: CRC-32 and length
                s = key & mask
                k = keys[s]
                while k and k != key:
                    s = (s + 1) & mask
                    k = keys[s]
                if not k:
                    if room > 0:
                        keys[s] = key
                        vals[s] = nb
                        room -= 1
                        if LINE_MAP_MAX - room > grow:
                            keys, vals = self._grow(keys, vals)
                            mask, grow = len(keys) - 1, len(keys) * 2 // 3
                    continue
                v = vals[s]
                if v >= 0:
                    if table[v] != p:
                        continue
                    c = v
                elif v != nb:
                    c = vals[s] = len(table)
                    table.append(p)
                    self._pending += lp + 1
                else:
                    continue
                if i > run:
                    lit = b"\n".join(parts[run:i]) + b"\n"
                    pieces.append(lit)
                    olen += len(lit)
                refs.append((olen, c))
                run = i + 1
            if not refs:
                out_frames.append(f)
                area.append(0)
                continue
            pieces.append(b"\n".join(parts[run:]))
            out_frames.append(b"".join(pieces))
            _varint(len(refs), area)
            lo, lc = 0, -1
            for o, c in refs:   # (imp41) the two varints, a one-byte one (most) appended here
                x = o - lo
                if x < 0x80:
                    area.append(x)
                else:
                    _varint(x, area)
                d = c - lc - 1
                x = d * 2 if d >= 0 else -d * 2 - 1
                if x < 0x80:
                    area.append(x)
                else:
                    _varint(x, area)
                lo, lc = o, c
        self._used = LINE_MAP_MAX - room
        return out_frames, bytes(area)

    def _grow(self, keys: array, vals: array) -> tuple[array, array]:
        """The line map in arrays of twice as many slots (every key placed
        again by the same probing), kept as the pass's; returns them."""
        nk = array("Q", [0]) * (2 * len(keys))
        nv = array("i", [0]) * (2 * len(keys))
        mask = len(nk) - 1
        for key, v in zip(keys, vals):
            if key:
                s = key & mask
                while nk[s]:
                    s = (s + 1) & mask
                nk[s] = key
                nv[s] = v
        self._keys, self._vals = nk, nv
        return nk, nv

    def chunk_blocks(self, final: bool = False) -> list[tuple[int, bytes]]:
        """``(first chunk, content)`` of the chunk blocks ready to be
        written (in chunk order): one per CHUNK_BLOCK_BYTES of chunks not
        handed out yet, and with ``final`` the rest too."""
        out = []
        table = self.table
        while self._flushed < len(table) and (final or self._pending >= CHUNK_BLOCK_BYTES):
            first, n, size = self._flushed, 0, 0
            while first + n < len(table) and size < CHUNK_BLOCK_BYTES:
                size += len(table[first + n]) + 1
                n += 1
            out.append((first, chunk_block(first, [ln + b"\n" for ln in table[first:first + n]])))
            self._flushed += n
            self._pending -= size
        return out


def chunk_block(first: int, lines: list[bytes]) -> bytes:
    """The content of a chunk block holding chunks ``first`` … ``first +
    len(lines) - 1`` (each a line: one ``\n``, at its end): u32 0, u32
    first, u32 count, the chunks back to back (their ``\n`` ends them: no
    lengths)."""
    return _CHUNK_HEAD.pack(0, first, len(lines)) + b"".join(lines)


def parse_chunk_block(content: bytes) -> tuple[int, list[bytes]]:
    """``(first chunk number, chunks without their ending \n)`` of a
    chunk block's content (:func:`chunk_block`'s inverse: one split, in C).
    ValueError when it is not one, or its chunks are not ``count`` lines
    ending exactly at its end."""
    if len(content) < _CHUNK_HEAD.size:
        raise ValueError("a chunk block shorter than its head")
    zero, first, count = _CHUNK_HEAD.unpack_from(content, 0)
    if zero != 0:
        raise ValueError("not a chunk block")
    parts = bytes(content[_CHUNK_HEAD.size:]).split(b"\n")
    if parts[-1] or len(parts) != count + 1:
        raise ValueError(f"a chunk block of {count} chunks holds {len(parts) - 1} lines")
    parts.pop()
    return first, parts


def is_chunk_block(content_head: bytes) -> bool:
    """True when a block's content begins as a chunk block's (u32 0: a
    frame block holds 1 … 65535 objects)."""
    return len(content_head) >= 4 and content_head[:4] == b"\0\0\0\0"


def parse_refs(area, count: int, upto: int | None = None) -> list[list[tuple[int, int]]]:
    """The line references of a block's ``count`` frames from its
    reference area (:meth:`LinePass.strip`): per frame, a list of
    ``(offset in the stored frame, chunk number)``; ``upto``: of the first
    ``upto`` frames only (a read of one frame).  ValueError when the
    area is damaged (runs short, has bytes left, a negative chunk).

    The area's varints are read at once (:func:`varint_values`) and summed
    a frame at a time (slices, ``accumulate``), not read a byte at a time:
    every read of a version-8 frame parses the references of the frames
    before it in its block (docs/benchmarks.md, "Session 36 (branch
    `lat36`)").  Anything out of the ordinary (a varint over 5 bytes, an
    area that runs short or has bytes left, a negative chunk) is parsed
    again byte by byte, which raises the error at the place it is."""
    area = bytes(area)
    frames = count if upto is None else min(upto, count)
    try:
        vals = varint_values(area)
    except ValueError:
        return _parse_refs_bytewise(area, count, upto)
    out: list[list[tuple[int, int]]] = []
    i, nv = 0, len(vals)
    for _ in range(frames):
        if i >= nv:
            return _parse_refs_bytewise(area, count, upto)
        n = vals[i]
        j = i + 1 + 2 * n
        if j > nv:
            return _parse_refs_bytewise(area, count, upto)
        if n:
            seg = vals[i + 1:j]
            zs = seg[1::2]
            lcs = list(accumulate([1 + ((z >> 1) if not z & 1 else -((z + 1) >> 1)) for z in zs], initial=-1))
            del lcs[0]
            if min(lcs) < 0:
                return _parse_refs_bytewise(area, count, upto)
            out.append(list(zip(accumulate(seg[0::2]), lcs)))
        else:
            out.append([])
        i = j
    if upto is None and (i != nv or (area and area[-1] >= 0x80)):
        return _parse_refs_bytewise(area, count, upto)
    return out



def first_frames_refs(area, count: int, upto: int) -> "list[list[tuple[int, int]]] | FrameRefs":
    """The line references of a block's first ``upto`` frames (as
    :func:`parse_refs` with ``upto``) for a read of frame ``upto - 1``:
    the area's varints are read at once (of a frame short of the block's
    last: the area's first ``upto / count`` part, cut between two varints,
    and the rest only when the frames run past it; docs/benchmarks.md,
    "Session 41 (branch `rec41`)") and the frames' places in them found,
    but a frame's list is made only when it is asked for
    (:class:`FrameRefs`): a read of frame ``k`` makes frame ``k``'s
    alone, not the ``k`` lists before it that :func:`parse_refs` makes
    and the read never uses (docs/benchmarks.md, "Session 40 (branch
    `rec40`)").  ValueError as :func:`parse_refs` when the area does not
    split into varints or runs short of the first ``upto`` frames (then
    parsed again byte by byte, which raises at the place); a frame whose
    references name a negative chunk raises ValueError when it is asked
    for."""
    area = bytes(area)
    frames = min(upto, count)
    cut = _varint_end(area, len(area) * frames // count) if frames < count else len(area)
    try:
        vals = varint_values(area[:cut] if cut < len(area) else area)
    except ValueError:
        return _parse_refs_bytewise(area, count, upto)
    starts = []
    i, nv = 0, len(vals)
    for _ in range(frames):
        j = i + 1 + 2 * vals[i] if i < nv else i + 1
        if j > nv and cut < len(area):   # the frames run past the part read: read the rest of the area too
            try:
                vals += varint_values(area[cut:])
            except ValueError:
                return _parse_refs_bytewise(area, count, upto)
            cut, nv = len(area), len(vals)
            j = i + 1 + 2 * vals[i] if i < nv else i + 1
        if j > nv:
            return _parse_refs_bytewise(area, count, upto)
        starts.append(i)
        i = j
    return FrameRefs(vals, starts)


def _varint_end(area: bytes, at: int) -> int:
    """Where the varint of ``area`` holding byte ``at`` ends (every byte
    below 0x80 ends one): a place to cut the area between two varints, so
    that its first part reads as the same varints (:func:`varint_values`);
    ``len(area)`` when no such byte is within five bytes (the area's end,
    or a run that is no varint, which the whole area's read refuses)."""
    for i in range(at, min(at + 5, len(area))):
        if area[i] < 0x80:
            return i + 1
    return len(area)


class FrameRefs:
    """:func:`first_frames_refs`' answer: ``refs[k]``, frame ``k``'s list
    of ``(offset in the stored frame, chunk number)``, made on first use
    (the same list :func:`parse_refs` gives it); ``len``: the frames.
    ValueError for a frame whose references name a negative chunk."""

    __slots__ = ("_vals", "_starts", "_made")

    def __init__(self, vals: list[int], starts: list[int]) -> None:
        self._vals, self._starts, self._made = vals, starts, {}

    def __len__(self) -> int:
        return len(self._starts)

    def __getitem__(self, k: int) -> list[tuple[int, int]]:
        got = self._made.get(k)
        if got is not None:
            return got
        i = self._starts[k]
        n = self._vals[i]
        if not n:
            return []
        seg = self._vals[i + 1:i + 1 + 2 * n]
        lcs = list(accumulate([1 + ((z >> 1) if not z & 1 else -((z + 1) >> 1)) for z in seg[1::2]], initial=-1))
        del lcs[0]
        if min(lcs) < 0:
            raise ValueError("a line reference names a negative chunk")
        got = self._made[k] = list(zip(accumulate(seg[0::2]), lcs))
        return got


#: a LEB128 varint of two to five bytes, as a group: re.split keeps it
_LONG_VARINT = LazyPattern(rb"([\x80-\xff]{1,4}[\x00-\x7f])")
_HIGH = bytes(range(128, 256))


def varint_values(area: bytes) -> list[int]:
    """Every LEB128 varint of ``area`` in order, as ints: the area split by
    one regular expression around its varints of two bytes or more, the
    one-byte ones between them taken as the bytes' values (a line-reference
    area's are mostly one byte; a read of each by :func:`_read_varint` is
    ~10 times slower).  ValueError when the area does not split into
    varints (a run of more than four bytes with the high bit set, or one
    at the end)."""
    parts = _LONG_VARINT.split(area)
    toks = parts[1::2]
    if sum(map(len, toks)) - len(toks) != len(area) - len(area.translate(None, _HIGH)):
        raise ValueError("a line-reference area that does not split into varints")
    parts[1::2] = [((t[0] & 0x7F) | (t[1] << 7),) if len(t) == 2 else
                   (sum((b & 0x7F) << (7 * i) for i, b in enumerate(t)),) for t in toks]
    return list(chain.from_iterable(parts))


def _parse_refs_bytewise(area, count: int, upto: int | None = None) -> list[list[tuple[int, int]]]:
    """:func:`parse_refs` a byte at a time: the same list, or the
    ValueError at the first damaged place."""
    out: list[list[tuple[int, int]]] = []
    pos = 0
    for _ in range(count if upto is None else min(upto, count)):
        n, pos = _read_varint(area, pos)
        refs = []
        lo, lc = 0, -1
        for _r in range(n):
            d, pos = _read_varint(area, pos)
            z, pos = _read_varint(area, pos)
            lo += d
            lc = lc + 1 + ((z >> 1) if not z & 1 else -((z + 1) >> 1))
            if lc < 0:
                raise ValueError("a line reference names a negative chunk")
            refs.append((lo, lc))
        out.append(refs)
    if upto is None and pos != len(area):
        raise ValueError("the line-reference area holds more than its frames' references")
    return out


def splice(stored: bytes, refs: list[tuple[int, int]], chunk) -> bytes:
    """The frame ``stored`` with the chunks its ``refs`` name put back at
    their offsets (``chunk(number)`` gives a chunk's bytes, ValueError for
    one the pack does not hold).  ValueError when an offset lies past the
    stored frame."""
    if not refs:
        return stored
    parts, at = [], 0
    for o, c in refs:
        if o > len(stored):
            raise ValueError(f"a line reference at {o} past its frame's {len(stored)} bytes")
        parts.append(stored[at:o])
        parts.append(chunk(c))
        at = o
    parts.append(stored[at:])
    return b"".join(parts)


class Spliced:
    """A block's first stored frames whose chunks are put back when a
    frame is first asked for (``[k]``, ``len``): a read of one frame
    loads only the chunk blocks that frame names, not those of the frames
    before it that its block read keeps.  A frame whose chunks cannot be
    put back (a damaged chunk block, a reference to a negative chunk)
    is given as stored: its hash check
    fails (why: :attr:`lost`, by position)."""

    __slots__ = ("_s", "_refs", "_chunk", "_done", "lost")

    def __init__(self, stored: list[bytes], refs: list[list[tuple[int, int]]], chunk) -> None:
        self._s, self._refs, self._chunk, self._done = stored, refs, chunk, set()
        self.lost: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._s)

    def __getitem__(self, k: int) -> bytes:
        if k < 0:
            k += len(self._s)
        if k not in self._done:
            try:   # the references of a FrameRefs are read here: a damaged one costs this frame only
                refs = self._refs[k]
                if refs:
                    self._s[k] = splice(self._s[k], refs, self._chunk)
            except ValueError as e:
                self.lost[k] = f"a line it names cannot be put back ({e})"
                return self._s[k]
            self._done.add(k)
        return self._s[k]


def deflate_chunk_block(content: bytes, level: int = 6) -> bytes:
    """The raw DEFLATE stream (RFC 1951, no dictionary) of a chunk block's content."""
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 8)
    return c.compress(content) + c.flush()


def inflate_chunk_block(data) -> tuple[int, list[bytes]]:
    """:func:`parse_chunk_block` of the raw DEFLATE stream ``data``;
    ValueError when it is damaged or does not end where ``data`` ends."""
    d = zlib.decompressobj(-15)
    try:
        content = d.decompress(data)
    except zlib.error as e:
        raise ValueError(str(e)) from None
    if not d.eof or d.unused_data:
        raise ValueError("a chunk block's stream is truncated or followed by garbage")
    return parse_chunk_block(content)


def torn_chunk_lines(data) -> tuple[int, list[bytes]]:
    """``(first chunk number, the whole chunks before the cut)`` of a chunk
    block whose raw DEFLATE stream ``data`` was cut short (a pack cut at its
    end: test36b T5): the prefix it still inflates to, up to its last whole
    line.  ValueError when that prefix is no chunk block's head."""
    d = zlib.decompressobj(-15)
    try:
        content = d.decompress(data)
    except zlib.error:
        content = b""   # (what came out before the damage is not returned: nothing to keep)
    if len(content) < _CHUNK_HEAD.size:
        raise ValueError("a torn chunk block shorter than its head")
    zero, first, count = _CHUNK_HEAD.unpack_from(content, 0)
    if zero != 0:
        raise ValueError("not a chunk block")
    parts = bytes(content[_CHUNK_HEAD.size:]).split(b"\n")[:-1][:count]   # the last piece: cut, or empty
    return first, parts


def body_chunks(data, off: int, end: int, torn: bool = False):
    """``(offset, first chunk, chunks without their \n)`` of every chunk block in the pack
    body ``data[off:end]`` (a whole pack file's bytes) that still reads,
    walked by the entries' length prefixes without the index (a chunk
    block is an entry whose stream inflates without a dictionary to a
    content that begins with u32 0): for salvage and for the search of
    a forgotten value in every byte a pack holds.  Stops at a length that
    runs past ``end``; never raises for damaged content.  ``torn``: the
    body was cut at ``end`` (salvage of a pack cut short), so an entry that
    runs past it gives the whole chunks before the cut
    (:func:`torn_chunk_lines`)."""
    while off + 4 < end:
        (n,) = _U32.unpack_from(data, off)
        cut = torn and n and off + 4 + n > end
        if n == 0 or (off + 4 + n > end and not cut):
            return
        try:
            first, lines = (torn_chunk_lines(data[off + 4:end]) if cut else
                            inflate_chunk_block(data[off + 4:off + 4 + n]))
        except ValueError:
            first = -1
        if cut:
            if first >= 0:
                yield off, first, lines
            return
        if first >= 0:
            yield off, first, lines
        off += 4 + n


class ChunkTable:
    """A version-8 pack's chunks, read through its index's chunk-block
    table (``offsets``, entry ``lengths``, ``firsts``: arrays by chunk
    block) from ``read(offset, length)`` (the entry's bytes), the last
    CACHE chunk blocks kept.  Calling it with a chunk number gives the
    chunk's bytes; ValueError for a number past the table or a damaged
    chunk block (the frame that names it then fails its hash check)."""

    CACHE = 16

    def __init__(self, offsets, lengths, firsts, read) -> None:
        self.offsets, self.lengths, self.firsts, self._read = offsets, lengths, firsts, read
        self._cache: dict[int, tuple[int, list[bytes]]] = {}
        self._bad: dict[int, str] = {}  # a damaged chunk block's problem: read and inflated once, not per frame

    def block_of(self, c: int) -> int:
        """The chunk block holding chunk ``c`` by the index (-1: none)."""
        return bisect_right(self.firsts, c) - 1

    def load(self, b: int) -> tuple[int, list[bytes]]:
        """``(first, chunks without their \n)`` of chunk block ``b``; ValueError when damaged."""
        got = self._cache.get(b)
        if got is None:
            if b in self._bad:
                raise ValueError(self._bad[b])
            try:
                got = self._inflate(b)
            except ValueError as e:
                self._bad[b] = f"chunk block {b} (at {self.offsets[b]}): {e}"
                raise ValueError(self._bad[b]) from None
            if len(self._cache) >= self.CACHE:
                self._cache.pop(next(iter(self._cache)), None)
            self._cache[b] = got
        return got

    def _inflate(self, b: int) -> tuple[int, list[bytes]]:
        data = self._read(self.offsets[b], self.lengths[b])
        if len(data) != self.lengths[b] or len(data) < 5 or _U32.unpack_from(data, 0)[0] != len(data) - 4:
            raise ValueError("bad length prefix or short read")
        got = inflate_chunk_block(memoryview(data)[4:])
        if got[0] != self.firsts[b]:
            raise ValueError(f"begins at chunk {got[0]}, its index says {self.firsts[b]}")
        return got

    def raw(self, b: int) -> bytes | None:
        """Chunk block ``b``'s raw DEFLATE stream as stored (not inflated:
        for a copy, ``objstore.core.packscrub``), or None when its entry
        lies outside the body or its length prefix does not match the index."""
        data = self._read(self.offsets[b], self.lengths[b])
        if len(data) != self.lengths[b] or len(data) < 5 or _U32.unpack_from(data, 0)[0] != len(data) - 4:
            return None
        return bytes(data[4:])

    def __call__(self, c: int) -> bytes:
        b = self.block_of(c)
        if b < 0:
            raise ValueError(f"chunk {c} is in no chunk block")
        first, lines = self.load(b)
        if c - first >= len(lines):
            raise ValueError(f"chunk {c} is past its chunk block's {len(lines)}")
        return lines[c - first] + b"\n"

    def drop(self) -> None:
        """Let go of the chunk blocks kept."""
        self._cache = {}
