"""Forget in a version-8 pack: the chunk scrub (``docs/format.md``, "Packs",
"A scrubbed chunk").

A forget rewrites each pack that holds a forgotten object
(:meth:`objstore.core.repack.PackRewrites.delete_objects`).  For versions
3 to 7 it copies the compressed blocks that keep all their objects and
writes again only the blocks that lose one (``_copy_blocks``).  A
version-8 block names chunks of its own pack's table of repeated lines
(:mod:`objstore.core.packlines`), so a block is copied only into a pack
whose table numbers the chunks the same: :func:`copy_scrubbed` writes the
new pack with the old pack's chunk blocks, in the same numbering, and

* every frame block that keeps all its objects copied as it is (its
  compressed bytes: only the few bytes of its head up to the end of its
  line-reference area are inflated, to learn which chunks it names);
* the kept frames of a block that loses an object written again whole
  (a new block with no line reference: :class:`ScrubWriter`);
* every chunk that no kept frame names (the forgotten frames', and any an
  earlier scrub left unnamed when it wrote a kept frame again whole)
  *scrubbed*: its line is left out, only its ``\\n`` stays, so no byte
  of it is in any file and the numbers of the chunks after it, which the
  copied blocks name, stay valid.  A chunk block holding no chunk to
  scrub is copied as it is; one holding one is written again.  A chunk a
  kept frame names stays: its line is that kept frame's text too.

Everything the caller cannot check this way (a damaged block or chunk
block where a chunk must be emptied, a block whose head does not read)
raises :class:`ScrubRefused` before the writer is finished: the caller
aborts it and falls back to writing every kept frame again
(``PackRewrites.repack``), which never copies a block.
"""

from __future__ import annotations

from collections.abc import Callable
from bisect import bisect_right
from itertools import accumulate

from objstore.core.errors import CorruptObject
from objstore.core.ids import hash_bytes
from objstore.core.packencode import deflate_stored, split_parents
from objstore.core.packformat import U32, DeflateReader, HexIds, Inflate
from objstore.core.packlines import LINES_VERSION, chunk_block, deflate_chunk_block, inflate_chunk_block, varint_values
from objstore.core.packsources import column_len, split_sources
from objstore.core.packwriter import PackWriter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from objstore.core.pack import Pack


class ScrubRefused(Exception):
    """The chunk scrub cannot prove its copy safe (damage where it must
    look): the caller aborts the writer and writes every kept frame again."""


class ScrubWriter(PackWriter):
    """A version-8 :class:`PackWriter` that copies another version-8 pack's
    blocks and chunk table instead of making a table of its own: the
    frames it is given (:meth:`add`) are stored whole in blocks with no
    line reference (each frame's count 0: one zero byte in the area), the
    copied frame blocks (:meth:`add_block`) keep theirs, and the chunk
    blocks are the caller's (:meth:`add_chunk_block`, in chunk order, the
    first beginning at chunk 0).  Give it the source pack's dictionary."""

    _own_lines = False

    def _lines_block(self, c, frames: list[bytes] | None, ids: list[bytes] | None) -> tuple[bytes | None, list]:
        """A block's DEFLATE stream with an empty line-reference area (no
        line pass, no chunk made); the pack's end (``frames`` None): nothing."""
        if frames is None:
            return None, []
        frames, refs = split_parents(frames, ids)
        frames, codes, column = split_sources(frames)
        return deflate_stored(c, frames, refs, codes, column, bytes(len(frames))), []

    def add_chunk_block(self, first: int, data: bytes) -> None:
        """Write one chunk block: ``data`` its raw DEFLATE stream (without
        the length prefix), ``first`` the number of its first chunk; the
        block being filled is written first.  Raises as :meth:`add`."""
        self._check_open()
        self._fix_dictionary()
        self._flush_block()
        self._write_inflight(every=True)
        self._put_block(data, ~first)


def ref_area(zr: DeflateReader, data) -> tuple[int, bytes]:
    """``(frame count, line-reference area)`` of the version-8 block
    ``data`` (its raw DEFLATE stream), inflating only the block's head up
    to the end of its reference area (count, lengths, parent references,
    source codes and column, the area).  ValueError when that head does
    not read."""
    inf = Inflate(zr.decompressor(), data)
    (count,) = U32.unpack(inf.take(4))
    inf.take(6 * count)  # the frame lengths (u32) and parent references (u16)
    codes = inf.take(count)
    if any(codes):
        inf.take(column_len(codes))
    return count, inf.take(U32.unpack(inf.take(4))[0])


_UNZIG: list[int] = []  # a zigzag of one or two bytes -> 1 + the number it codes (_unzig1), made on the first use


def _unzig1(z: int) -> int:
    return (z >> 1) + 1 if not z & 1 else 1 - ((z + 1) >> 1)


def named_chunks(area: bytes, count: int, skip: set[int] | frozenset = frozenset()) -> set[int]:
    """The chunk numbers the block's frames name (``count`` frames, their
    reference ``area``: ``packlines.LinePass.strip``'s varints), those of
    the frames at the positions in ``skip`` left out.  ValueError when the
    area does not hold exactly ``count`` frames' references."""
    if not _UNZIG:
        _UNZIG.extend(map(_unzig1, range(1 << 14)))
    vals = varint_values(area)
    out: set[int] = set()
    pos = 0
    for f in range(count):
        if pos >= len(vals):
            raise ValueError("a line-reference area ends before its frames")
        n = vals[pos]
        pos += 1
        if n and f not in skip:   # chunk k = chunk k-1 + 1 + zigzag(z_k), chunk -1 = -1
            zs = vals[pos + 1:pos + 2 * n:2]
            try:
                out.update(accumulate(map(_UNZIG.__getitem__, zs), initial=-1))
            except IndexError:  # a zigzag of three bytes or more
                out.update(accumulate(map(_unzig1, zs), initial=-1))
        pos += 2 * n
    if pos != len(vals):
        raise ValueError("a line-reference area holds more than its frames' references")
    out.discard(-1)
    return out


def add_kept(pack: Pack, ids: list[str], frames: list[bytes], keeps: list[bool], w: PackWriter,
             damaged: dict[str, str]) -> None:
    """Add to ``w`` the objects ``ids`` of one block of ``pack`` whose
    ``keeps`` flag is true: from ``frames`` (the block's frames as far as
    they inflated) when the frame hashes to its id, else as a get reads
    it (the block's bounds, positions or stream are damaged), else left
    out and noted in ``damaged`` (id -> message).  For the block copies of
    a pack rewrite (``repack``'s ``_copy_blocks``, :func:`copy_scrubbed`)."""
    for k, oid in enumerate(ids):
        if not keeps[k]:
            continue
        if k < len(frames) and frames[k] is not None and hash_bytes(frames[k]) == oid:
            w.add(frames[k])
            continue
        try:
            w.add(pack.get(oid))
        except CorruptObject as e:
            damaged.setdefault(oid, str(e))


def copy_scrubbed(pack: Pack, keep: Callable[[Pack, str], bool], w: ScrubWriter, damaged: dict[str, str]) -> int:
    """Copy the version-8 ``pack`` into ``w`` (a :class:`ScrubWriter` with
    the pack's dictionary) without the objects ``keep(pack, id)`` drops,
    as the module says: whole frame blocks and chunk blocks copied in the
    old body order, the blocks losing an object written again, the chunks
    their frames named scrubbed unless a copied block names them
    (:func:`unnamed_chunks`).  A kept object whose block's frames do not
    read is read as a get reads it, or left out and noted in ``damaged``
    (id -> message), as ``_copy_blocks`` does.  Holds the pack's blocks
    (its compressed bytes) in memory while it works.  Returns the number
    of chunks scrubbed.  Raises ScrubRefused (the writer must then be
    aborted) for damage that leaves unknown which chunks a frame names, or
    where a chunk must be scrubbed; OSError as the writer."""
    if pack.version != LINES_VERSION:
        raise ScrubRefused(f"{pack.pack_path}: version {pack.version}, not {LINES_VERSION}")
    table = pack.chunk_table()
    zr = DeflateReader(w.dictionary, pack.version)
    zr.chunks = table
    blocks = list(pack.raw_blocks_in_body_order())
    offs = pack.block_offsets()
    coffs, firsts, nb = list(table.offsets), list(table.firsts), len(table.firsts)
    if len(offs) != len(blocks) or coffs != sorted(coffs) or firsts != sorted(firsts):
        raise ScrubRefused(f"{pack.pack_path}: its block tables do not agree")
    touched: dict[int, list[bool]] = {}   # block -> which of its objects are kept
    named: set[int] = set()               # the chunks the touched blocks' frames name
    for k, (ids, data) in enumerate(blocks):
        if isinstance(data, CorruptObject):
            raise ScrubRefused(str(data))
        keeps = [keep(pack, oid) for oid in ids]
        if not all(keeps):
            touched[k] = keeps
            named |= _named(pack, zr, ids, data)
    scrub = unnamed_chunks(pack, zr, named, blocks, offs, touched, coffs, firsts)
    hit = {bisect_right(firsts, c) - 1 for c in scrub}
    ci = 0
    for k, (ids, data) in enumerate(blocks):
        while ci < nb and coffs[ci] < offs[k]:   # the chunk blocks keep their places among the frame blocks
            _put_chunk_block(pack, table, w, ci, scrub if ci in hit else None)
            ci += 1
        keeps = touched.get(k)
        if keeps is None and w.add_block(ids, data, pack.version):
            continue  # copied as stored (damage in its frames stays for fsck to find)
        add_kept(pack, ids, zr.block_frames(data, None, HexIds(ids))[0], keeps or [True] * len(ids), w, damaged)
    for b in range(ci, nb):
        _put_chunk_block(pack, table, w, b, scrub if b in hit else None)
    return len(scrub)


def _named(pack: Pack, zr: DeflateReader, ids: list[str], data, skip: set[int] | frozenset = frozenset()) -> set[int]:
    """:func:`named_chunks` of the block ``data`` (objects ``ids``); ScrubRefused when its head does not read."""
    try:
        count, area = ref_area(zr, data)
        if count != len(ids):
            raise ValueError(f"a block of {len(ids)} objects holds {count}")
        return named_chunks(area, count, skip)
    except ValueError as e:
        raise ScrubRefused(f"{pack.pack_path}: a block's head does not read ({e})") from None


#: the blocks before the first touched one that the search back reads before it looks for the
#: creating block of each chunk still unnamed (:func:`unnamed_chunks`; speed only, not the result)
LOOKBACK = 32


def unnamed_chunks(pack: Pack, zr: DeflateReader, named: set[int], blocks: list, offs: list[int],
                   touched: dict[int, list[bool]], coffs: list[int], firsts: list[int]) -> set[int]:
    """The chunks of ``named`` (those the touched blocks' frames name) that
    no other frame block of the pack names.  A frame block names only
    chunks below the end of the first chunk block after the frame block
    that follows it (the writer makes a chunk in the block that meets its
    line again; after each frame block it writes chunk blocks while the
    chunks not yet written hold 64 KiB or more, leaving less, which the
    next chunk block written takes whole: ``docs/format.md``, version 8):
    so a chunk can be named only from the first block whose bound passes
    it, and a chunk is unnamed when no other block from there to the end
    names it.  The blocks are read (each at most once) in an order that
    finds a naming block early: first back from the last block to
    LOOKBACK blocks before the first touched one (the common lines, named
    again and again), stopping at the first block (going back) below which
    none of the chunks still unnamed can be named; then, for each chunk
    still unnamed (the oldest first), the block that made it, found by a
    bisection of the blocks between its first possible one and its chunk
    block on the largest chunk each names (a block before the one that
    made a chunk names none as large); and when that block does not name
    it (its frame forgotten, or written again whole by an earlier scrub)
    every block from its first possible one on.  ScrubRefused when a block
    read names a chunk past its bound (not a layout this mem writes)."""
    left = set(named)
    n, nb = len(blocks), len(firsts)
    inf = firsts[-1] + (1 << 62) if nb else 1 << 62
    bounds = []  # per block: the chunks it can name are below this (inf: any)
    for k in range(n):
        # the first chunk block after frame block k + 1 holds the last chunk block k can name
        b = bisect_right(coffs, offs[k + 1]) if k + 1 < n else nb
        bounds.append(firsts[b + 1] if b + 1 < nb else inf)
    largest: dict[int, int] = {}  # a block read -> the largest chunk it names (-1: none)

    def read(k: int) -> int:
        if k not in largest:
            got = set() if k in touched else _named(pack, zr, *blocks[k])
            top = max(got, default=-1)
            if top >= bounds[k]:
                raise ScrubRefused(f"{pack.pack_path}: a block names chunk {top}, past the {bounds[k]} it can")
            largest[k] = top
            left.difference_update(got)
        return largest[k]

    for k in range(n - 1, max(0, min(touched, default=0) - LOOKBACK) - 1, -1):
        if not left or min(left) >= bounds[k]:
            return left
        read(k)
    for c in sorted(left):
        if c not in left:
            continue
        lo = bisect_right(bounds, c)  # the first block that can name c
        hi = max(lo, min(n - 1, bisect_right(offs, coffs[bisect_right(firsts, c) - 1]) - 1))
        while lo < hi:  # the first block naming a chunk as large as c: the one that made it, unless damaged or gone
            m = (lo + hi) // 2
            if read(m) >= c:
                hi = m
            else:
                lo = m + 1
        if lo < n:
            read(lo)
        for k in range(bisect_right(bounds, c), n):
            if c not in left:
                break
            read(k)
    return left


def _put_chunk_block(pack: Pack, table, w: ScrubWriter, b: int, scrub: set[int] | None) -> None:
    """Write chunk block ``b`` of ``pack`` into ``w``: as stored, or (``scrub``
    holds one of its chunks) again with those chunks scrubbed."""
    first = table.firsts[b]
    raw = table.raw(b)
    if raw is None:
        raise ScrubRefused(f"{pack.pack_path}: chunk block {b}: bad bounds or length prefix")
    if scrub is None:
        w.add_chunk_block(first, raw)  # copied as stored (damage in its stream stays for fsck to find)
        return
    try:
        at, lines = inflate_chunk_block(raw)
    except ValueError as e:
        raise ScrubRefused(f"{pack.pack_path}: chunk block {b} holds a chunk to scrub and does not read ({e})") from None
    if at != first:
        raise ScrubRefused(f"{pack.pack_path}: chunk block {b} begins at chunk {at}, its index says {first}")
    w.add_chunk_block(first, deflate_chunk_block(chunk_block(
        first, [b"\n" if first + k in scrub else ln + b"\n" for k, ln in enumerate(lines)])))
