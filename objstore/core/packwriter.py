"""Writing packs: :class:`PackWriter` streams frames into a new pack.

The format and the crash-safe write order ("Writing") are in
:mod:`objstore.core.packformat`, the readers in :mod:`objstore.core.packfile`
and :mod:`objstore.core.pack`; this module only produces files they open.
"""

from __future__ import annotations

import itertools
import os
import sys
import zlib
from array import array
from collections.abc import Iterable
from pathlib import Path

from blake3 import blake3

from objstore.core.atomic import fsync_dir
from objstore.core.errors import CodecMissing, InvalidInput
from objstore.core.packfile import PackInfo
from objstore.core.packrecord import record_packs
from objstore.core.packlines import LINES_VERSION, LinePass, deflate_chunk_block
from objstore.core.packsources import split_sources
from objstore.core.packencode import deflate_block, deflate_stored, dict_bytes, make_dictionary, split_parents
from objstore.core.packformat import (
    BLOCK_BYTES, BLOCK_LEVEL, BLOCK_MEMLEVEL, BLOCK_OBJECTS, DEFLATE_LEVEL, DEFLATE_MEMLEVEL, DICT_MIN_BYTES,
    FRAME_MAGIC, HEADER, HEADER_LEN, ID_LEN, IDX5_ID_LEN, IDX_MAGIC, MAX_ENTRY, MAX_OBJECTS, PACK_MAGIC,
    PACK_VERSION, READ_VERSIONS, SUM_LEN, TEMP_PREFIX, TRAIN_BYTES, TRAIN_FRAMES, U32, ZSTD_VERSION,
    body_version,
    idx_size,
    pos_width,
    uint_bytes,
)

assert array("H").itemsize == 2 and array("I").itemsize == 4 and array("Q").itemsize == 8
_SWAP = sys.byteorder == "little"  # arrays are native-endian, the files big-endian
_BUF = 1 << 20
#: version 3: blocks are compressed in a thread of the writer's own, at most
#: INFLIGHT_BLOCKS (each ≤ BLOCK_BYTES of frames) ahead of the file, so that an
#: import's main thread only collects frames (zlib releases the GIL)
DEFLATE_THREAD = True
INFLIGHT_BLOCKS = 2
_tmp_counter = itertools.count()
#: bytes of a finished pack read back at a time for its checksum (:func:`_hash_file`)
HASH_CHUNK = 4 << 20


def _hash_file(fd: int) -> bytes:
    """The blake3 digest (32 bytes) of the whole file open on ``fd`` (read
    and write), read back HASH_CHUNK bytes at a time with ``pread``.  Not
    through one mapping of the file: every page of a mapping read stays in
    this process's resident memory until it is closed, so a merge's 32 MB
    pack added 32 MB to its peak RSS (docs/benchmarks.md, "Session 30
    (branch `rss30`)").  Raises OSError."""
    h = blake3(max_threads=blake3.AUTO)
    off = 0
    while chunk := os.pread(fd, HASH_CHUNK, off):
        h.update(chunk)
        off += len(chunk)
    return h.digest()


def _compress(frame: bytes, level: int) -> bytes:
    """zlib stream of ``frame`` with the window sized to it (wbits 9-15,
    memLevel 2-8): same ratio for small frames, but several times cheaper than
    ``zlib.compress``, whose 256 KiB of state per call dominates for
    100-byte objects.  Any zlib stream decompresses with the default window."""
    wbits = min(15, max(9, (len(frame) - 1).bit_length()))
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, wbits - 7)
    return c.compress(frame) + c.flush()


def _be(a: array) -> bytes:
    if _SWAP:
        a = array(a.typecode, a)
        a.byteswap()
    return a.tobytes()


def _create_temp(pack_dir: Path, suffix: str = "") -> tuple[Path, int]:
    while True:
        p = pack_dir / f"{TEMP_PREFIX}{os.getpid()}-{next(_tmp_counter)}{suffix}"
        try:
            return p, os.open(p, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # a leftover of a dead process with our pid
            continue


class PackWriter:
    """Stream frames into a new pack (see the module doc for the format).

    Usage::

        with PackWriter(store / "objects" / "pack") as w:
            for frame in frames:
                w.add(frame)
        info = w.info          # PackInfo, or None when nothing was added

    or call :meth:`finish` / :meth:`abort` explicitly.  Leaving the ``with``
    block normally finishes the pack (unless already finished or aborted);
    leaving it by an exception aborts it, removing the temp file.

    Memory: only each object's raw id, offset and length (44 bytes;
    versions 3, 4: id, block number and position, 38, and 12 per block;
    version 4: 16) plus a
    4-byte-slot open-addressing table for deduplication stay in memory,
    about 60 bytes per object; frames are compressed and written as they
    come, except (versions 2-4) the first ones, kept until the pack's
    dictionary is trained on them (TRAIN_FRAMES frames or TRAIN_BYTES),
    and (versions 3, 4) those of the block being filled (BLOCK_BYTES).
    Durability: two file fsyncs and two directory fsyncs per pack, none per
    object.  Not thread-safe: use one writer per thread.  Versions 3, 4: each
    full block is compressed in a thread of the writer's own (started with
    the first block, ended by :meth:`finish` or :meth:`abort`), at most
    INFLIGHT_BLOCKS ahead of the file, which the caller's thread writes in
    order; the bytes are the same as compressing inline.

    Args:
        pack_dir: ``<store>/objects/pack``; created if missing.
        level: version 1: zlib level 0-9 (default 6, as loose objects);
            version 2: DEFLATE level 0-9 (default DEFLATE_LEVEL, 4);
            versions 3-6: DEFLATE level 0-9 (default BLOCK_LEVEL, 6).
        version: the pack format to write (7: version 6's blocks as zstd
            frames, a store's when it asks for it, :func:`write_version`;
            default PACK_VERSION, 6: the
            index of version 5, blocks whose frames leave the ids of
            their sources to a column (SOURCE_RULES); 5: the
            pack of version 4 with the smaller index; 4: raw
            DEFLATE blocks of up to BLOCK_BYTES of frames with the pack's
            preset dictionary, a frame's parent id left out when it is an
            earlier frame's of its block; 3: the same blocks, every frame
            whole; 2: a raw DEFLATE stream per object with that
            dictionary; 1: a zlib stream per object).
        dictionary: versions 2-4: the dictionary to use (raw bytes, at
            most 32 KiB, ``b""`` for none) instead of making one, so that
            entries (versions 3, 4: blocks) of a pack with this dictionary can
            be copied with :meth:`add_entry` (:meth:`add_block`).
    """

    #: version 8: the writer makes its own table of repeated lines (packscrub.ScrubWriter: False)
    _own_lines = True

    def __init__(self, pack_dir: Path | str, *, level: int | None = None, version: int = PACK_VERSION,
                 dictionary: bytes | None = None) -> None:
        if version not in READ_VERSIONS:
            raise InvalidInput(f"pack version must be one of {READ_VERSIONS}, not {version}")
        if level is None:
            level = {1: 6, 2: DEFLATE_LEVEL}.get(version, BLOCK_LEVEL)
        if not 0 <= level <= 9:
            raise InvalidInput(f"zlib level must be 0..9, not {level}")
        most = dict_bytes(version)
        if dictionary is not None and len(dictionary) > most:
            raise InvalidInput(f"a pack dictionary holds at most {most} bytes, not {len(dictionary)}")
        self.pack_dir = Path(pack_dir)
        self.level = level
        self.version = version
        #: version 2: the pack's dictionary once fixed (trained, or given)
        self.dictionary: bytes | None = dictionary
        self._pending: list[bytes] = []  # version 2: frames added before the dictionary is fixed
        self._pending_bytes = 0
        self._zc = None  # version 2: a compressor primed with the dictionary, copied per object
        #: the finished pack (set by :meth:`finish`), else None.
        self.info: PackInfo | None = None
        self._ids = bytearray()  # 32 bytes per object, in write order
        self._offsets = array("Q")
        self._lengths = array("I")  # entry length 4 + L
        self._ordinals = array("H")  # version 3: each object's position in its block
        self._bnos = array("I")  # version 3: each object's block number
        self._boffs = array("Q")  # version 3: each block's offset ...
        self._blens = array("I")  # ... and entry length 4 + L
        self._bfirst = array("I")  # version 4: each block's first object, by write (= body) position
        self._lines = None  # version 8: the line pass (packlines.LinePass), made with the first block
        self._coffs, self._clens, self._cfirst = array("Q"), array("I"), array("I")  # version 8: chunk blocks
        self._blk: list[bytes] = []  # version 3: frames of the block being filled
        self._blk_ids: list[bytes] = []  # version 4: their raw ids
        self._blk_bytes = 0
        self._pool = None  # version 3: the thread compressing blocks (started with the first)
        self._inflight: list = []  # version 3: (future, objects, raw bytes) of blocks being compressed
        self._inflight_bytes = 0
        self._table = array("I", bytes(4 * 1024))  # slot -> index + 1; 0 = empty
        self._mask = 1023
        self._file = None
        self._tmp: Path | None = None
        self._idx_tmp: Path | None = None  # the index written by finish(install=False), until install
        self._pos = HEADER_LEN
        self._state = "open"

    # -- adding -------------------------------------------------------------

    @property
    def count(self) -> int:
        """Number of distinct objects added so far."""
        return len(self._ids) // ID_LEN

    @property
    def size(self) -> int:
        """Bytes of the pack so far (header and entries written, plus the
        raw size of frames held until the dictionary is fixed): what
        :meth:`objstore.core.store.Store.repack` rolls its packs on."""
        return self._pos + self._pending_bytes + self._blk_bytes + self._inflight_bytes

    def _check_open(self) -> None:
        if self._state != "open":
            raise ValueError(f"pack writer is {self._state}")

    def _lookup(self, digest: bytes) -> tuple[int, int]:
        """(index of ``digest`` or -1, its slot or the free slot for it)."""
        t, mask, ids = self._table, self._mask, self._ids
        s = int.from_bytes(digest[8:16], "little") & mask
        while True:
            v = t[s]
            if v == 0:
                return -1, s
            o = (v - 1) * ID_LEN
            if ids[o:o + ID_LEN] == digest:
                return v - 1, s
            s = (s + 1) & mask

    def reserve(self, count: int) -> None:
        """Size the id table for ``count`` objects in all, so that adding
        them does not grow it step by step (each growth re-inserts every id
        added so far): for a copy of a pack whose size is known
        (``Store._copy_pack``).  Only grows; raises as :meth:`add` when the
        writer is not open."""
        self._check_open()
        cap = len(self._table)
        while 2 * count > cap:
            cap *= 2
        if cap > len(self._table):
            self._grow(cap)

    def _grow(self, cap: int | None = None) -> None:
        cap = cap or len(self._table) * 2
        t = array("I", bytes(4 * cap))
        mask = cap - 1
        ids = self._ids
        for i in range(self.count):
            o = i * ID_LEN
            s = int.from_bytes(ids[o + 8:o + 16], "little") & mask
            while t[s]:
                s = (s + 1) & mask
            t[s] = i + 1
        self._table, self._mask = t, mask

    def add(self, frame: bytes, digest: bytes | None = None) -> str:
        """Add one frame; return its id (64 hex).  ``digest``: the frame's
        BLAKE3 (32 bytes) when the caller computed it already (``mem
        import``'s parse worker: ``sessions.TurnForecast``); it is not
        checked, so only code that hashed this very frame passes it.

        A frame whose id is already in this writer is not stored again.

        Raises:
            InvalidInput: not a frame (no ``MEMO`` magic), an entry over
                4 GiB, or a pack already holding 2**32 - 1 objects.
            ValueError: the writer is finished or aborted.
            OSError: writing the temp file failed (the writer is then
                unusable: call :meth:`abort`, or use it as a context manager).
        """
        self._check_open()
        if frame[:4] != FRAME_MAGIC:
            raise InvalidInput("not an object frame (no MEMO magic)")
        if digest is None:
            digest = blake3(frame).digest()
        idx, slot = self._lookup(digest)
        if idx >= 0:
            return digest.hex()
        if self.version >= 2:
            self._add_framed(digest, slot, frame)
        else:
            self._append(digest, slot, _compress(frame, self.level))
        return digest.hex()

    def _open_file(self) -> None:
        if self._file is None:
            self.pack_dir.mkdir(parents=True, exist_ok=True)
            self._tmp, fd = _create_temp(self.pack_dir)
            self._file = open(fd, "wb", buffering=_BUF)
            self._file.write(HEADER.pack(PACK_MAGIC, self.version, 0))

    def _add_framed(self, digest: bytes, slot: int, frame: bytes) -> None:
        """Versions 2 and 3: record one frame; compress and write it
        (version 3: into the block being filled), or keep it until the
        dictionary is trained."""
        n = self.count
        if n >= MAX_OBJECTS:
            raise InvalidInput(f"a pack holds at most {MAX_OBJECTS} objects; finish it and start another")
        self._open_file()  # the temp file exists from the first object on, as in version 1
        self._ids += digest
        self._table[slot] = n + 1
        if 2 * (n + 1) > len(self._table):
            self._grow()
        if self._zc is not None:
            if self.version >= 3:
                self._block_add(frame, digest)
            else:
                self._write_entry(digest, self._deflate(frame))
            return
        self._pending.append(frame)
        self._pending_bytes += len(frame)
        if self.dictionary is not None or len(self._pending) >= TRAIN_FRAMES or self._pending_bytes >= TRAIN_BYTES:
            self._fix_dictionary()

    def _fix_dictionary(self, final: bool = False) -> None:
        """Versions 2-4: make the dictionary from the frames kept so far
        (none when they are too few or too small to give one; version 4:
        none either when they are all the pack's frames, ``final``, and
        total under DICT_MIN_BYTES), write it after the header, then
        compress and write the kept frames."""
        if self._zc is not None:
            return
        d = self.dictionary
        if d is None:
            small = final and self.version >= 4 and self._pending_bytes < DICT_MIN_BYTES
            d = self.dictionary = b"" if small else make_dictionary(self._pending, dict_bytes(self.version))
        mem = BLOCK_MEMLEVEL if self.version >= 3 else DEFLATE_MEMLEVEL
        if self.version == ZSTD_VERSION:  # zstd blocks (packzstd): ZSTD_LEVEL, not the zlib level
            from objstore.core.packzstd import ZstdBlockCompressor  # deferred: zstd for version 7 only
            self._zc = ZstdBlockCompressor(d)
        else:
            self._zc = zlib.compressobj(self.level, zlib.DEFLATED, -15, mem, zlib.Z_DEFAULT_STRATEGY,
                                        *((d,) if d else ()))
        self._open_file()
        self._file.write(U32.pack(len(d)))
        self._file.write(d)
        self._pos += 4 + len(d)
        pending, self._pending, self._pending_bytes = self._pending, [], 0
        first = self.count - len(pending)
        if self.version >= 3:
            for k, frame in enumerate(pending):
                o = (first + k) * ID_LEN
                self._block_add(frame, bytes(self._ids[o:o + ID_LEN]))
            return
        for k, frame in enumerate(pending):
            o = (first + k) * ID_LEN
            self._write_entry(bytes(self._ids[o:o + ID_LEN]), self._deflate(frame))

    def _deflate(self, frame: bytes) -> bytes:
        """Version 2: the raw DEFLATE stream of ``frame`` with the pack's
        preset dictionary (a copy of the primed compressor: the dictionary
        is hashed once per pack, not once per object)."""
        c = self._zc.copy()
        return c.compress(frame) + c.flush()

    def _block_add(self, frame: bytes, digest: bytes) -> None:
        """Versions 3 and 4: put the next frame (in add order; ``digest`` its
        raw id) into the block being filled; write the block once it holds
        BLOCK_BYTES or BLOCK_OBJECTS."""
        self._blk.append(frame)
        self._blk_ids.append(digest)
        self._blk_bytes += len(frame)
        if self._blk_bytes >= BLOCK_BYTES or len(self._blk) >= BLOCK_OBJECTS:
            self._flush_block()

    def _flush_block(self) -> None:
        """Versions 3 and 4: compress and write the block being filled (its
        content: u32 K, K × u32 frame lengths, version 4: K × u16 parent
        references, the K frames), recording its offset, entry length and
        each object's position in it."""
        frames, ids, n = self._blk, self._blk_ids, self._blk_bytes
        if not frames:
            return
        k = len(frames)
        self._blk, self._blk_ids, self._blk_bytes = [], [], 0
        if self.version < 4:
            ids = None
        sources = self.version >= 6
        if self.version >= LINES_VERSION:  # the line pass and DEFLATE in the writer's one thread, in block order
            self._queue(self._lines_block, (self._zc.copy(), frames, ids), k, n)
            return
        if not DEFLATE_THREAD:
            self._put_block(deflate_block(self._zc.copy(), frames, ids, sources), k)
            return
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor  # deferred: only a writer of blocks needs it
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="pack-deflate")
        self._inflight.append((self._pool.submit(deflate_block, self._zc.copy(), frames, ids, sources), k, n))
        self._inflight_bytes += n
        while len(self._inflight) > INFLIGHT_BLOCKS:
            self._write_inflight()

    def _lines_block(self, c, frames: list[bytes] | None, ids: list[bytes] | None) -> tuple[bytes | None, list]:
        """Version 8: ``(the block's DEFLATE stream, [(first chunk, a chunk
        block's DEFLATE stream)...])``: the block's frames (None: none, the
        pack's end: every chunk block left) through the line pass with
        ``c``, a copy of the pack's primed compressor, then the chunk blocks
        the pass has ready.  Runs in the writer's one thread (its tasks run
        in the order given: the line pass sees the blocks in body order)."""
        if self._lines is None:
            self._lines = LinePass()
        data = None
        if frames is not None:
            frames, refs = split_parents(frames, ids)
            frames, codes, column = split_sources(frames)
            frames, area = self._lines.strip(frames)
            data = deflate_stored(c, frames, refs, codes, column, area)
        return data, [(first, deflate_chunk_block(content))
                      for first, content in self._lines.chunk_blocks(final=frames is None)]

    def _queue(self, fn, args, k: int, n: int) -> None:
        """Compress ``fn(*args)`` in the writer's thread (inline without
        DEFLATE_THREAD); ``k`` the block's object count, or ``~first`` for
        a chunk block."""
        if not DEFLATE_THREAD:
            self._put_result(fn(*args), k)
            return
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor  # deferred: only a writer of blocks needs it
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="pack-deflate")
        self._inflight.append((self._pool.submit(fn, *args), k, n))
        self._inflight_bytes += n
        while len(self._inflight) > INFLIGHT_BLOCKS:
            self._write_inflight()

    def _write_inflight(self, every: bool = False) -> None:
        """Version 3: write the oldest block the compressing thread was
        given (``every``: all of them), in order."""
        while self._inflight:
            fut, k, n = self._inflight.pop(0)
            self._inflight_bytes -= n
            self._put_result(fut.result(), k)
            if not every:
                return

    def _put_result(self, got, k: int) -> None:
        """Write what a block's compression gave: its stream (``k``
        objects), or (version 8, :meth:`_lines_block`) its stream, if any,
        and then the chunk blocks ready."""
        if not isinstance(got, tuple):
            self._put_block(got, k)
            return
        data, chunks = got
        if data is not None:
            self._put_block(data, k)
        for first, cdata in chunks:
            self._put_block(cdata, ~first)

    def _put_block(self, data: bytes, k: int) -> None:
        """Version 3: write one block entry of ``k`` objects, the next ``k``
        in add order (version 8: ``k`` = ``~first``, a chunk block)."""
        length = 4 + len(data)
        if length > MAX_ENTRY:
            raise InvalidInput(f"a block of {k} objects is too large for a pack entry ({len(data)} bytes)")
        self._file.write(U32.pack(len(data)))
        self._file.write(data)
        if k < 0:
            self._cfirst.append(~k)
            self._coffs.append(self._pos)
            self._clens.append(length)
            self._pos += length
            return
        self._bfirst.append(len(self._bnos))
        self._bnos.extend([len(self._boffs)] * k)
        self._boffs.append(self._pos)
        self._blens.append(length)
        self._ordinals.extend(range(k))
        self._pos += length

    def _write_entry(self, digest: bytes, data: bytes) -> None:
        """Version 2: write the entry of the next object in add order."""
        length = 4 + len(data)
        if length > MAX_ENTRY:
            raise InvalidInput(f"object {digest.hex()} is too large for a pack entry ({len(data)} compressed bytes)")
        self._file.write(U32.pack(len(data)))
        self._file.write(data)
        self._offsets.append(self._pos)
        self._lengths.append(length)
        self._pos += length

    def _append(self, digest: bytes, slot: int, data: bytes) -> None:
        """Version 1: write one entry (``data`` = the zlib stream) and record it."""
        n = len(self._offsets)
        if n >= MAX_OBJECTS:
            raise InvalidInput(f"a pack holds at most {MAX_OBJECTS} objects; finish it and start another")
        length = 4 + len(data)
        if length > MAX_ENTRY:
            raise InvalidInput(f"object {digest.hex()} is too large for a pack entry ({len(data)} compressed bytes)")
        self._open_file()
        self._file.write(U32.pack(len(data)))
        self._file.write(data)
        self._ids += digest
        self._offsets.append(self._pos)
        self._lengths.append(length)
        self._pos += length
        self._table[slot] = n + 1
        if 2 * (n + 1) > len(self._table):
            self._grow()

    def add_entry(self, oid: str, zstream: bytes) -> str:
        """Add an object given as an already-compressed zlib stream (as
        :meth:`Pack.raw_entry` returns it), without decompressing: for
        rewriting packs (gc, forget), where re-compression would dominate.
        The stream is not re-verified here (``fsck``/``verify`` do that).
        Raises as :meth:`add`, and InvalidInput on a version-3 writer
        (whose entries are blocks: :meth:`add_block`)."""
        self._check_open()
        if self.version >= 3:
            raise InvalidInput(f"a version-{self.version} pack's entries are blocks: add_block, not add_entry")
        digest = bytes.fromhex(oid)
        idx, slot = self._lookup(digest)
        if idx >= 0:
            return oid
        if self.version == 2:  # a raw DEFLATE stream made with this writer's (given) dictionary
            if self.dictionary is None:
                raise InvalidInput("add_entry on a version-2 writer needs the source pack's dictionary "
                                   "(PackWriter(dictionary=pack.dictionary()))")
            self._fix_dictionary()
            n = self.count
            if n >= MAX_OBJECTS:
                raise InvalidInput(f"a pack holds at most {MAX_OBJECTS} objects; finish it and start another")
            self._open_file()
            self._ids += digest
            self._table[slot] = n + 1
            if 2 * (n + 1) > len(self._table):
                self._grow()
            self._write_entry(digest, zstream)
            return oid
        self._append(digest, slot, zstream)
        return oid

    def add_block(self, oids: list[str], data: bytes, version: int | None = None) -> bool:
        """Versions 3 to 5: add a whole block as it is stored (``data``,
        its raw DEFLATE stream, as :meth:`Pack.raw_blocks_in_body_order`
        gives it; ``oids`` its objects in block order), without
        decompressing: for rewriting packs (``forget``), where
        re-compression would dominate.  The writer must use the source
        pack's dictionary (``dictionary=``) and a version with its pack body
        (a block's content differs between versions 3 and 4; 4 and 5 share
        it: :func:`~objstore.core.packformat.body_version`); ``version``,
        the source pack's, is checked when given.  The block is not re-verified here (``fsck``
        does that).  Returns False, adding nothing, when one of ``oids`` is
        already in this writer or ``version`` is not the writer's (the
        caller adds the block's frames instead).  Raises as :meth:`add`,
        and InvalidInput for a version-1 or -2 writer or without the
        dictionary."""
        self._check_open()
        if self.version >= LINES_VERSION and self._own_lines:
            return False  # its blocks name chunks of their own pack's table (copied only by packscrub)
        if self.version < 3 or self.dictionary is None:
            raise InvalidInput("add_block needs a version-3 to -5 writer with the source pack's dictionary "
                               "(PackWriter(dictionary=pack.dictionary(), version=pack.version))")
        raws = [bytes.fromhex(o) for o in oids]
        if (version is not None and body_version(version) != body_version(self.version)) or not raws or len(raws) > BLOCK_OBJECTS \
                or len(set(raws)) != len(raws):
            return False
        found = [self._lookup(r) for r in raws]
        if any(i >= 0 for i, _slot in found):
            return False
        n = self.count
        if n + len(raws) > MAX_OBJECTS:
            raise InvalidInput(f"a pack holds at most {MAX_OBJECTS} objects; finish it and start another")
        self._fix_dictionary()
        self._flush_block()
        self._write_inflight(every=True)
        slots = [slot for _i, slot in found]
        # the free slots found above stay right while they differ (each probe stopped at the first
        # empty slot, so no id takes a slot on another's path) and the table does not grow
        if len(set(slots)) == len(slots) and 2 * (n + len(raws)) <= len(self._table):
            t = self._table
            for k, slot in enumerate(slots, n + 1):
                t[slot] = k
            self._ids += b"".join(raws)
        else:
            for r in raws:
                _i, slot = self._lookup(r)
                self._table[slot] = self.count + 1
                self._ids += r
                if 2 * self.count > len(self._table):
                    self._grow()
        self._put_block(data, len(raws))
        return True

    def add_many(self, frames: Iterable[bytes]) -> int:
        """Add every frame of ``frames`` (consumed lazily); return how many
        were new to this writer.  Raises as :meth:`add`."""
        before = self.count
        for frame in frames:
            self.add(frame)
        return self.count - before

    # -- finishing ----------------------------------------------------------

    def finish(self, *, install: bool = True) -> PackInfo | None:
        """Complete the pack: header count, checksum, fsync, its index
        written and fsynced (both still temp files), then :meth:`install`.

        ``install`` False stops before :meth:`install`: the pack and its
        index are durable but nothing can read them (``prepared``) until the
        caller calls it, so that it can note what they hold first (an
        import's ``N`` journal lines, ``TurnAppender.publish``) after the
        costly part is done; :meth:`abort` then removes both temp files.

        Returns:
            The :class:`PackInfo` (also stored in :attr:`info`; with
            ``install`` False its files are not there yet), or None when
            no object was added (no file is left behind).
        Raises:
            ValueError: already finished or aborted.
            OSError: the temp files are removed before it propagates; if the
                failure came after the ``.pack`` rename, an incomplete pack
                (no ``.idx``) remains for gc.
        """
        self._check_open()
        if self.version >= 2 and self.count:
            try:
                self._fix_dictionary(final=True)
                self._flush_block()
                if self.version >= LINES_VERSION:  # the chunk blocks left
                    self._queue(self._lines_block, (None, None, None), 0, 0)
                self._write_inflight(every=True)
                self._stop_pool()
            except BaseException:
                self.abort()
                raise
        n = self.count
        if n == 0:
            self.abort()
            self._state = "finished"
            return None
        try:
            f = self._file
            f.flush()
            fd = f.fileno()
            os.pwrite(fd, HEADER.pack(PACK_MAGIC, self.version, n), 0)
            checksum = _hash_file(fd)
            f.write(checksum)
            f.flush()
            os.fsync(fd)
            f.close()
            self._file = None
            name = checksum.hex()
            self._idx_tmp, ifd = _create_temp(self.pack_dir, ".idx")
            with open(ifd, "wb", buffering=_BUF) as idx_file:
                self._write_idx(idx_file, checksum)
                idx_file.flush()
                os.fsync(idx_file.fileno())
        except BaseException:
            self.abort()
            raise
        self.info = PackInfo(name=name, pack_path=self.pack_dir / f"pack-{name}.pack",
                             idx_path=self.pack_dir / f"pack-{name}.idx", count=n, size=self._pos + SUM_LEN,
                             idx_size=idx_size(n, self.version, len(self._boffs), len(self._coffs)))
        self._state = "prepared"
        self._release()
        if install:
            self.install()
        return self.info

    def install(self) -> PackInfo:
        """Make a pack :meth:`finish` ``(install=False)`` prepared readable:
        the ``.pack`` renamed into place, the directory fsynced, then the
        ``.idx`` (a reader opens a pack by its index: never one without its
        pack), the directory fsynced.  Returns :attr:`info`.

        Raises:
            ValueError: not prepared.
            OSError: the temp files left are removed before it propagates;
                if the failure came after the ``.pack`` rename, an
                incomplete pack (no ``.idx``) remains for gc.
        """
        if self._state != "prepared":
            raise ValueError(f"pack writer is {self._state}, not prepared")
        try:
            os.replace(self._tmp, self.info.pack_path)
            self._tmp = None
            fsync_dir(self.pack_dir)
            os.replace(self._idx_tmp, self.info.idx_path)
            self._idx_tmp = None
            fsync_dir(self.pack_dir)
        except BaseException:
            self._state = "open"
            self.abort()
            raise
        self._state = "finished"
        record_packs(self.pack_dir, [f"pack-{self.info.name}"])   # after its .idx: objects/info/packs (fresh42 F3)
        return self.info

    def _write_idx(self, f, pack_checksum: bytes) -> None:
        ids, offsets, lengths = self._ids, self._offsets, self._lengths
        n = self.count
        # Bucket by first byte (the fan-out), then sort each small bucket:
        # never more than n/256 sort keys alive at once.
        buckets = [array("I") for _ in range(256)]
        for i, b in enumerate(ids[::ID_LEN]):
            buckets[b].append(i)
        order = array("I")
        fanout = array("I")
        for b in range(256):
            bucket = buckets[b]
            buckets[b] = None  # type: ignore[call-overload]
            if len(bucket) > 1:
                bucket = sorted(bucket, key=lambda i: ids[i * ID_LEN:(i + 1) * ID_LEN])
            order.extend(bucket)
            fanout.append(len(order))
        h = blake3()

        def put(data) -> None:
            h.update(data)
            f.write(data)

        put(HEADER.pack(IDX_MAGIC, self.version, n))
        put(_be(fanout))
        step = 4096  # bounded temporaries: ~4096 small objects per chunk
        skip = ID_LEN - IDX5_ID_LEN if self.version >= 5 else 0  # version 5: the fan-out gives the first byte
        for s in range(0, n, step):
            put(b"".join([ids[i * ID_LEN + skip:(i + 1) * ID_LEN] for i in order[s:s + step]]))
        if self.version >= 5:  # body positions (= write positions), the block table, each body position's place
            w = pos_width(n)
            for s in range(0, n, step):
                put(uint_bytes(order[s:s + step], w))
            put(U32.pack(len(self._boffs)))
            put(_be(self._boffs))
            put(_be(self._blens))
            put(_be(self._bfirst))
            inv = array("I", bytes(4 * n))
            for s, i in enumerate(order):
                inv[i] = s
            for s in range(0, n, step):
                put(uint_bytes(inv[s:s + step], w))
            if self.version >= LINES_VERSION:  # the chunk blocks: count, offsets, lengths, first chunks
                put(U32.pack(len(self._coffs)))
                put(_be(self._coffs))
                put(_be(self._clens))
                put(_be(self._cfirst))
        elif self.version >= 3:  # block numbers, positions, then the block table
            bnos, ordinals = self._bnos, self._ordinals
            for s in range(0, n, step):
                put(_be(array("I", [bnos[i] for i in order[s:s + step]])))
            for s in range(0, n, step):
                put(_be(array("H", [ordinals[i] for i in order[s:s + step]])))
            put(U32.pack(len(self._boffs)))
            put(_be(self._boffs))
            put(_be(self._blens))
            if self.version >= 4:  # each block's first body position, each body position's id
                put(_be(self._bfirst))
                inv = array("I", bytes(4 * n))
                for s, w in enumerate(order):
                    inv[w] = s
                put(_be(inv))
        else:
            for s in range(0, n, step):
                put(_be(array("Q", [offsets[i] for i in order[s:s + step]])))
            for s in range(0, n, step):
                put(_be(array("I", [lengths[i] for i in order[s:s + step]])))
        put(pack_checksum)
        f.write(h.digest())

    def _release(self) -> None:
        self._ids = bytearray()
        self._offsets = array("Q")
        self._lengths = array("I")
        self._ordinals = array("H")
        self._bnos, self._boffs, self._blens, self._bfirst = array("I"), array("Q"), array("I"), array("I")
        self._coffs, self._clens, self._cfirst, self._lines = array("Q"), array("I"), array("I"), None
        self._table = array("I")
        self._pending = []
        self._blk, self._blk_ids, self._blk_bytes = [], [], 0

    def _stop_pool(self) -> None:
        """Version 3: end the compressing thread (after the blocks it holds)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def abort(self) -> None:
        """Discard the pack being written (or prepared: :meth:`finish`
        ``install=False``): close and delete its temp files.  Idempotent; a
        no-op after :meth:`finish` or :meth:`install`."""
        if self._state not in ("open", "prepared"):
            return
        self._state = "aborted"
        self._stop_pool()
        self._inflight, self._inflight_bytes = [], 0
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass
            self._file = None
        for tmp in (self._tmp, self._idx_tmp):
            if tmp is not None:
                tmp.unlink(missing_ok=True)
        self._tmp = self._idx_tmp = None
        self._release()

    def __enter__(self) -> PackWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.abort()
        elif self._state == "open":
            self.finish()


def write_version(root: Path | str) -> int:
    """The pack version the store at ``root`` writes new packs in (import,
    capture, gc): LINES_VERSION (8: version 6's DEFLATE blocks and a
    table of the pack's repeated lines, ``objstore.core.packlines``; since
    session 31, before it PACK_VERSION, 6) unless its config.toml
    sets ``store.pack_codec = "zstd"``: ZSTD_VERSION (7, zstd blocks,
    ``objstore.core.packzstd``).  Raises CodecMissing (exit 14) when it
    asks for zstd and the codec does not import (never a silent version 6
    the person did not choose; called before a pack is begun, so nothing
    is written), InvalidInput for a config.toml that does not parse or a
    value that is not deflate or zstd (``settings.value``)."""
    from objstore.core.settings import value  # deferred: readers never write a pack
    if value(root, "store.pack_codec") != "zstd":
        return LINES_VERSION
    from objstore.core.packzstd import missing  # deferred: only a zstd store needs the codec
    problem = missing(f'store.pack_codec = "zstd" in {Path(root) / "config.toml"}')
    if problem is not None:
        raise CodecMissing(f"{problem.message}; nothing was written", hint=f"{problem.hint}; or write "
                           "version 6 again: mem config store.pack_codec deflate")
    return ZSTD_VERSION


def write_pack(pack_dir: Path | str, frames: Iterable[bytes], *, level: int | None = None,
               version: int = PACK_VERSION) -> PackInfo | None:
    """Write ``frames`` (an iterable, consumed once, lazily) as one pack.

    Returns the :class:`PackInfo`, or None when ``frames`` is empty.  Raises as
    :meth:`PackWriter.add` and :meth:`PackWriter.finish`; on any error no
    temp file is left behind.
    """
    w = PackWriter(pack_dir, level=level, version=version)
    try:
        w.add_many(frames)
        return w.finish()
    except BaseException:
        w.abort()
        raise
