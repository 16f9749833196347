"""Pack files: many objects in one file plus a sorted, mmapped index.

The model is git's packfile design (``gitformat-pack(5)``: a ``.pack`` of
entries named by its own trailing checksum, and a ``.idx`` with a 256-entry
fan-out table, sorted ids and offsets, written *last* so that its presence
marks the pack complete).  Unlike git there are no deltas and no type/size
varint header per entry: an entry is a length prefix and the compressed
bytes of one frame (``docs/format.md``, "Frame"), so it is read with one
``pread`` of a length the index gives.

**Versions.**  This doc gives version 1 byte by byte (a zlib stream per
entry).  Version 2 differs only in the pack file: after the 12-byte header
come D (u32) and a preset dictionary of D bytes (at most 32 KiB), then the
entries, each a raw DEFLATE stream (RFC 1951, no zlib header or trailer)
compressed with that dictionary as zlib's preset dictionary (RFC 1950
§2.2, ``deflateSetDictionary``); the index has the same layout with
version 2.  Version 3 has the same header and dictionary, but an entry is
a *block*: the raw DEFLATE stream (with the dictionary) of ``u32 K``, K ``u32`` frame lengths and K frames
back to back, closed once its frames hold BLOCK_BYTES (64 KiB); its index
gives each object, after the ids, its block number (``u32``) and its
position in the block (``u16``), then the number of blocks B and the
blocks' offsets (``u64``) and entry lengths (``u32``).  A read
inflates its block only up to the end of its frame; a damaged byte of a
block loses the objects of that block from the damaged one on.  Version
4, which new packs are written in, is version 3 whose block content has,
after the lengths, a u16 *parent reference* per frame: a frame whose
parent id (the 32 bytes after its last PARENT_MARK) is the id of an
earlier frame ``j`` of the block is stored without it, reference ``j + 1``
(the frames and ids are unchanged: a read puts it back before hashing);
its index adds each block's first body position and, per body position,
the object's place in the id table, so that a read takes the parent id
from the index.  All versions use the standard library's zlib only.
``docs/format.md`` ("Packs") specifies the four, with a worked example
of each.

Packs live in ``<store>/objects/pack/``:

```
objects/pack/pack-<name>.pack   the entries                 (written first)
objects/pack/pack-<name>.idx    the index; marks it complete (written last)
objects/pack/tmp-pack-<pid>-<n>       a pack being written (or a crash leftover)
objects/pack/tmp-pack-<pid>-<n>.idx   an index being written (or a crash leftover)
```

`<name>` is the pack checksum (the pack file's trailer) in 64 lowercase hex
digits, so a pack is content-named like a loose object.  All integers are
unsigned big-endian (network order, as in git).  All checksums are BLAKE3
(default hash mode, 32 bytes), like object ids.

### Pack file `pack-<name>.pack`

| offset | size | content |
|---|---|---|
| 0 | 4 | magic `MPAK` (`4d 50 41 4b`) |
| 4 | 4 | pack format version, `00 00 00 01` |
| 8 | 4 | N, the number of entries (u32) |
| 12 | … | N entries, back to back, in the order they were written |
| size − 32 | 32 | pack checksum: blake3 of every preceding byte (0 … size − 33) |

An entry at offset `o`:

| offset | size | content |
|---|---|---|
| o | 4 | L, the length of the zlib stream (u32) |
| o + 4 | L | the zlib stream (RFC 1950) of one frame |

The *entry length* is `4 + L`.  An object's id is blake3 of the
decompressed frame, as for a loose object; the pack does not store ids (the
index does), so a lost index can be rebuilt from the pack alone.  One pack
holds an id at most once.  Entry order is unspecified (writer order).  The
writer uses level 6 with the window sized to the frame (`wbits` = bit length
of `len − 1`, clamped to 9…15; `memLevel` = `wbits − 7`), which compresses
small frames as well as the defaults at a fraction of the cost; readers
accept any valid zlib stream.

### Index file `pack-<name>.idx`

For N objects the index is exactly `1100 + 44·N` bytes:

| offset | size | content |
|---|---|---|
| 0 | 4 | magic `MIDX` (`4d 49 44 58`) |
| 4 | 4 | index format version, `00 00 00 01` |
| 8 | 4 | N (u32), equal to the pack header's N |
| 12 | 1024 | fan-out: 256 × u32; entry `b` = number of ids whose first byte is ≤ `b`; entry 255 = N |
| 1036 | 32·N | the N raw ids, sorted ascending bytewise, no duplicates |
| 1036 + 32·N | 8·N | entry offsets in the pack (u64), in id order |
| 1036 + 40·N | 4·N | entry lengths `4 + L` (u32), in id order |
| 1036 + 44·N | 32 | the pack checksum (= the pack's trailer = `<name>`) |
| 1068 + 44·N | 32 | index checksum: blake3 of every preceding byte of the index |

**Lookup** of id `x` (O(log N), nothing loaded up front): the ids starting
with byte `x[0]` are positions `[fanout[x[0]-1], fanout[x[0]])` (lower bound
0 for `x[0] = 0`); binary search that range of the id table, then read
the offset and length at the same position and ``pread`` the entry.
Abbreviated ids use the same range and a lower-bound search.

**Checks.**  Opening a pack reads only the index header, the fan-out, the
recorded pack checksum and the pack's header and trailer: the index size must
be `1100 + 44·N`, the fan-out non-decreasing and ending at N, the recorded
checksum equal to `<name>` and to the pack's trailer, and the pack header's N
equal to the index's (a truncated pack loses its trailer, so it fails here).
A version other than 1 in either file is refused as unsupported (exit 14);
any other failure is corruption (exit 13), with the file named.
Every read of an entry checks its bounds and length prefix, decompresses it
and re-hashes the frame against the id.  A full ``verify`` also recomputes
both checksums, the fan-out and the id order, and checks that the entries
tile the pack body exactly.

### Writing (crash safety)

1. Entries are streamed to `tmp-pack-<pid>-<n>` after a header with N = 0;
   only the id (32 bytes), offset and length of each entry stay in memory
   (~60 bytes per object with the dedup table).
2. The real N is written into the header, the file is hashed, the checksum
   appended, the file fsynced once and renamed to `pack-<name>.pack`; the
   directory is fsynced (so the pack's name is durable before its index can be).
3. The index is written to `tmp-pack-<pid>-<n>.idx`, fsynced, renamed to
   `pack-<name>.idx` (**last**), and the directory fsynced again.

A `.pack` without its `.idx` is incomplete: readers ignore it and gc may
delete it (after its grace period, since a writer may be between steps 2
and 3).  `tmp-pack-*` files are never read.

**Removal** deletes the `.idx` first (the pack vanishes for new readers
atomically), fsyncs the directory, then deletes the `.pack` and fsyncs again.
The reverse order would leave a window, or after a crash a state, in which an
index names a missing pack, which readers must report as corruption.  On
POSIX a reader that already opened the pack keeps reading the unlinked
files.  The caller (gc, repack) must make sure the pack's objects live
elsewhere before removing it.

### Worked example

The golden fact of the objects' worked example (228-byte frame, id
`85b1bef7…cc5e`) alone in a pack.  With zlib 1.2.13 at level 6 its stream is
L = 177 bytes (`18 95 …`: a 512-byte window); another zlib build may
compress differently, which changes L, the checksums and the name, but
nothing else:

```
pack-4bb10fd5…0564f690.pack, 225 bytes:
  0000  4d50414b 00000001 00000001              "MPAK", version 1, N = 1
  000c  000000b1 1895…(177 bytes)               entry: L = 177, zlib stream
  00c1  4bb10fd5…0564f690 (32 bytes)            blake3 of bytes 0x00-0xc0 = <name>

pack-4bb10fd5…0564f690.idx, 1144 bytes (1100 + 44·1):
  0000  4d494458 00000001 00000001              "MIDX", version 1, N = 1
  000c  00000000 × 133                          fan-out[0x00..0x84] = 0
  0220  00000001 × 123                          fan-out[0x85..0xff] = 1
  040c  85b1bef7…ee22cc5e (32 bytes)            the id
  042c  00000000 0000000c                       its entry's offset: 12
  0434  000000b5                                its entry's length: 4 + 177 = 181
  0438  4bb10fd5…0564f690 (32 bytes)            pack checksum
  0458  7d5892ec…91e8ec5c (32 bytes)            blake3 of idx bytes 0x000-0x457
```

(`tests/core/test_pack.py::test_worked_example_layout` checks this layout.)

This module holds the format and the readers (:class:`Pack`,
:class:`PackSet`); :mod:`objstore.core.packwriter` writes packs
(:class:`~objstore.core.packwriter.PackWriter`, ``write_pack``).
"""

from __future__ import annotations

import itertools
import mmap
import os
import re
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

from blake3 import blake3

from objstore.core.atomic import fsync_dir
from objstore.core.errors import AmbiguousId, CorruptObject, InvalidInput, MemError, NotFound, UnsupportedVersion
from objstore.core.ids import check_prefix, is_full_id
from objstore.core.record import Frozen, set_fields

PACK_MAGIC = b"MPAK"
IDX_MAGIC = b"MIDX"
#: the version new packs and indexes are written in (1: a zlib stream per
#: object; 2: a raw DEFLATE stream per object, compressed with the pack's own
#: preset dictionary; 3: raw DEFLATE blocks of several objects with that
#: dictionary; 4: the blocks of version 3, each frame's parent id left out
#: when it is the id of an earlier frame of its block); all four are read
PACK_VERSION = 4
IDX_VERSION = 4
READ_VERSIONS = (1, 2, 3, 4)
#: version 2: the DEFLATE level and zlib memLevel new entries are written at
#: (level 4, memLevel 6: 2.4 s and 18.2 MB for the bench corpus's 43.7 MB of
#: frames, against 4.6 s and 17.5 MB at 6/8; docs/benchmarks.md)
DEFLATE_LEVEL = 4
DEFLATE_MEMLEVEL = 6
#: version 3: a block is closed once its frames hold BLOCK_BYTES (or it holds
#: BLOCK_OBJECTS frames), and compressed at this level and memLevel (the bench
#: corpus: 12.8 MB in 0.95 s of CPU, against 18.0 MB in 1.3 s per object in
#: version 2; docs/benchmarks.md, Session 7)
BLOCK_BYTES = 64 * 1024
BLOCK_OBJECTS = 0xFFFF
BLOCK_LEVEL = 6
BLOCK_MEMLEVEL = 8
#: version 4: the 9 bytes before a parent id in a frame: the canonical CBOR of
#: the map key "parent" (``66 70 61 72 65 6e 74``) and the head of a 32-byte
#: byte string (``58 20``).  A block leaves out the 32 bytes after the last
#: occurrence of these bytes in a frame when they are the id of an earlier
#: frame of the block, and names that frame instead (``docs/format.md``,
#: "Packs"): a turn's parent is most often the turn before it.
PARENT_MARK = b"\x66parent\x58\x20"
#: version 3: a pack keeps the frames of the last this many blocks it read
#: (at most 64 KiB each, plus one frame larger than that; dropped by
#: :meth:`Pack.drop_pages`): a walk up a chain reads one block at a time
BLOCK_CACHE = 4
#: versions 2 and 3: the dictionary is taken from the first frames of a pack, up to
#: this many frames or bytes, and is at most DICT_BYTES long (zlib's window:
#: a preset dictionary longer than 32 KiB is not used)
TRAIN_FRAMES = 2000
TRAIN_BYTES = 4 << 20
DICT_BYTES = 32 * 1024
#: version 4: a pack whose frames, all of them, total under this many bytes
#: is written without a dictionary (stored raw, up to 32 KiB, it outweighs
#: what it saves: a pack of 50 corpus turns takes 43.7 KB with one, 24.3 KB
#: without; the two meet at about 1.2 MB of frames; docs/benchmarks.md)
DICT_MIN_BYTES = 1 << 20

# The layout constants below without a leading underscore are shared with the
# writer (objstore.core.packwriter); the sizes are those of the tables above.
HEADER = struct.Struct(">4sII")  # magic, version, count: 12 bytes in both files
HEADER_LEN = HEADER.size
_FANOUT = struct.Struct(">256I")
_FANOUT_LEN = _FANOUT.size  # 1024
U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
SUM_LEN = 32  # blake3 checksum
ID_LEN = 32
_IDX_FIXED = HEADER_LEN + _FANOUT_LEN + 2 * SUM_LEN  # 1100
_IDX_PER_OBJECT = ID_LEN + 8 + 4  # 44, in versions 1 and 2
_IDX3_PER_OBJECT = ID_LEN + 4 + 2  # 38 in version 3: id, block number, position; + 4 (B) + 12 per block
_U16 = struct.Struct(">H")
_DICT_AT = HEADER_LEN + 4  # versions 2, 3: the dictionary follows its u32 length at offset 12
_PACK_MIN = HEADER_LEN + SUM_LEN  # 44
FRAME_MAGIC = b"MEMO"  # codec.MAGIC; not imported to keep this module free of cbor2
MAX_OBJECTS = 2**32 - 1
MAX_ENTRY = 2**32 - 1  # entry length 4 + L is a u32

_IDX_NAME = re.compile(r"pack-([0-9a-f]{64})\.idx")
_PACK_NAME = re.compile(r"pack-([0-9a-f]{64})\.pack")
TEMP_PREFIX = "tmp-pack-"
_UPGRADE = "a newer mem wrote it: upgrade mem to read it"


def idx_size(count: int, version: int = IDX_VERSION, blocks: int = 0) -> int:
    """Exact size in bytes of the index of a pack of ``count`` objects
    (``1100 + 44·count`` in versions 1 and 2; in version 3, whose objects
    lie in ``blocks`` blocks, ``1104 + 38·count + 12·blocks``; in version 4
    ``1104 + 42·count + 16·blocks``: each block's first body position and
    each body position's place in the id table too)."""
    if version >= 4:
        return _IDX_FIXED + 4 + (_IDX3_PER_OBJECT + 4) * count + 16 * blocks
    if version >= 3:
        return _IDX_FIXED + 4 + _IDX3_PER_OBJECT * count + 12 * blocks
    return _IDX_FIXED + _IDX_PER_OBJECT * count


class DeflateReader:
    """Decompresses the raw DEFLATE streams (RFC 1951) of one version-2,
    version-3 or version-4 pack with its preset dictionary (``dict_data``,
    raw bytes, at most 32 KiB; empty: none); ``version`` is the pack's
    (version 4: a block's frames are given back with the parent ids it
    left out put back).  Standard-library zlib; safe from several threads
    (a new decompressor per call: setting a preset dictionary on inflate is
    a copy into its window)."""

    def __init__(self, dict_data: bytes, version: int = 3) -> None:
        if len(dict_data) > DICT_BYTES:
            raise ValueError(f"a preset dictionary of {len(dict_data)} bytes (at most {DICT_BYTES})")
        self._dict = bytes(dict_data)
        self.version = version

    def _new(self):
        return zlib.decompressobj(-15, zdict=self._dict) if self._dict else zlib.decompressobj(-15)

    def decompress(self, data, limit: int) -> bytes:
        """The content of the raw DEFLATE stream ``data``, at most ``limit``
        bytes.  Raises ValueError for damaged data, a stream that does not
        end where ``data`` ends, or content over ``limit`` bytes."""
        d = self._new()
        try:
            out = d.decompress(data, limit)
        except zlib.error as e:
            raise ValueError(str(e)) from None
        if not d.eof:
            raise ValueError(f"DEFLATE stream truncated or over {limit} bytes")
        if d.unused_data:
            raise ValueError("DEFLATE stream followed by garbage")
        return out

    def block_frame(self, data, k: int) -> bytes:
        """Versions 3 and 4: frame ``k`` (0-based) of the block whose raw
        DEFLATE stream is ``data`` (its content: u32 K, K × u32 frame
        lengths, version 4: K × u16 parent references, the K frames;
        ``docs/format.md``, "Packs").  Inflates only up to the end of that
        frame: the frames before a damaged byte still read.  Raises
        ValueError (damaged stream, ``k`` ≥ K, a stream that ends early, a
        parent reference that cannot be put back)."""
        return self.block_prefix(data, k)[k]

    def block_prefix(self, data, k: int) -> list[bytes]:
        """Versions 3 and 4: frames 0 … ``k`` of the block ``data``
        (inflated up to the end of frame ``k``, no further).  Raises as
        :meth:`block_frame`."""
        out, refs = self.stored_prefix(data, k)
        if refs is not None:
            err = join_parents(out, refs)
            if err:
                raise ValueError(err)
        return out

    def stored_prefix(self, data, k: int) -> tuple[list[bytes], tuple[int, ...] | None]:
        """``(frames, refs)``: frames 0 … ``k`` of the block ``data`` as
        stored (version 4: without the parent ids the block left out) and
        the block's K parent references (None before version 4), inflated
        up to the end of frame ``k``.  Raises as :meth:`block_frame`."""
        inf = _Inflate(self._new(), data)
        (count,) = U32.unpack(inf.take(4))
        if k >= count:
            raise ValueError(f"object {k} of a block of {count}")
        lens = struct.unpack(f">{count}I", inf.take(4 * count))
        refs = struct.unpack(f">{count}H", inf.take(2 * count)) if self.version >= 4 else None
        body = inf.take(sum(lens[:k + 1]))
        out, pos = [], 0
        for n in lens[:k + 1]:
            out.append(body[pos:pos + n])
            pos += n
        return out, refs

    def block_frames(self, data, digests: dict[int, bytes] | None = None) -> tuple[list[bytes], str | None]:
        """Versions 3 and 4: ``(frames, error)``: the frames of the block
        ``data`` in order, as far as its stream inflates (version 4: and
        their parents can be put back), and None when the whole stream is
        sound (it ends exactly where ``data`` ends, with nothing after its K
        frames), else why it is not (the frames before the damage are still
        returned).  ``digests`` (version 4), a dict, receives the raw ids of
        the frames whose ids were computed to put a parent back, by their
        position.  Never raises."""
        inf = _Inflate(self._new(), data)
        frames: list[bytes] = []
        refs = None
        try:
            (count,) = U32.unpack(inf.take(4))
            if count == 0 or count > BLOCK_OBJECTS:
                return frames, f"a block of {count} objects"
            lens = struct.unpack(f">{count}I", inf.take(4 * count))
            if self.version >= 4:
                refs = struct.unpack(f">{count}H", inf.take(2 * count))
            for n in lens:
                frames.append(inf.take(n))
            inf.end()
        except ValueError as e:
            if refs is not None:
                join_parents(frames, refs, digests)  # cuts the list at a frame that cannot be put back
            return frames, str(e)
        if refs is not None:
            err = join_parents(frames, refs, digests)
            if err:
                return frames, err
        return frames, None


def join_parents(frames: list[bytes], refs, digests: dict[int, bytes] | None = None) -> str | None:
    """Version 4: put back, in place, the parent ids a block left out of
    ``frames`` (its stored frames, in block order; ``refs`` its K u16
    parent references: 0 none, ``j + 1`` the id of frame ``j`` < this one,
    inserted after the last PARENT_MARK of the stored frame), each parent's
    id computed as its BLAKE3 (into ``digests``, by position).  Returns
    None, or why a reference cannot be put back, the list then cut before
    that frame (a damaged block: the frames before it are sound)."""
    if digests is None:
        digests = {}
    for i, s in enumerate(frames):
        r = refs[i]
        if not r:
            continue
        j = r - 1
        p = s.rfind(PARENT_MARK)
        if j >= i or p < 0:
            del frames[i:]
            return (f"object {i} of the block names object {j} as its parent" if j >= i
                    else f"object {i} of the block has no parent field to put its parent back into")
        d = digests.get(j)
        if d is None:
            d = digests[j] = blake3(frames[j]).digest()
        frames[i] = put_parent(s, p, d)
    return None


def put_parent(stored: bytes, mark: int, parent: bytes) -> bytes:
    """Version 4: the frame ``stored`` with the raw id ``parent`` put back
    after the PARENT_MARK at offset ``mark``."""
    p = mark + len(PARENT_MARK)
    return stored[:p] + parent + stored[p:]


class _Inflate:
    """Incremental inflate of one raw DEFLATE stream: :meth:`take` returns
    exactly the next ``n`` bytes of content (ValueError when the stream is
    damaged or ends before)."""

    __slots__ = ("d", "tail")

    def __init__(self, d, data) -> None:
        self.d, self.tail = d, data

    def take(self, n: int) -> bytes:
        parts, need = [], n
        while need > 0:
            try:
                got = self.d.decompress(self.tail, need)
            except zlib.error as e:
                raise ValueError(str(e)) from None
            self.tail = self.d.unconsumed_tail
            if not got:
                raise ValueError("DEFLATE stream ends inside the block" if self.d.eof or not self.tail
                                 else "DEFLATE stream makes no progress")
            parts.append(got)
            need -= len(got)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def end(self) -> None:
        """Check that the stream ends here, exactly where its data ends."""
        try:
            extra = self.d.decompress(self.tail, 1)
            if not extra and not self.d.eof:
                extra = self.d.flush()
        except zlib.error as e:
            raise ValueError(str(e)) from None
        if extra:
            raise ValueError("the block holds more than its frames")
        if not self.d.eof:
            raise ValueError("DEFLATE stream truncated")
        if self.d.unused_data or self.d.unconsumed_tail:
            raise ValueError("DEFLATE stream followed by garbage")


def _raw_id(oid: str) -> bytes:
    if not isinstance(oid, str) or not is_full_id(oid):
        raise InvalidInput(f"not an object id: {oid!r} (want 64 lowercase hex characters)")
    return bytes.fromhex(oid)


class PackInfo(Frozen):
    """A finished pack.

    Attributes:
        name: the pack checksum, 64 hex (the ``<name>`` of the file names).
        pack_path: ``<pack_dir>/pack-<name>.pack``.
        idx_path: ``<pack_dir>/pack-<name>.idx``.
        count: number of objects (distinct ids) in the pack.
        size: size of the ``.pack`` file in bytes.
        idx_size: size of the ``.idx`` file in bytes (``1100 + 44 * count``;
            version 3: ``1104 + 38 * count + 12 * blocks``).
    """

    __slots__ = ("name", "pack_path", "idx_path", "count", "size", "idx_size")

    def __init__(self, name: str, pack_path: Path, idx_path: Path, count: int, size: int, idx_size: int) -> None:
        set_fields(self, name, pack_path, idx_path, count, size, idx_size)


class Pack:
    """One complete pack, opened through its index.

    Opening is O(1) in the pack size: it mmaps the index (pages are read on
    demand), reads its header and fan-out (1 KiB) and the pack's header and
    trailer, and checks what the module doc lists under "Checks"; it does not
    read the ids.  Lookups are a fan-out range plus a binary search over the
    mmap, then one ``pread`` of the entry.  Reads are safe from several
    threads.

    Args:
        idx_path: ``.../pack-<64 hex>.idx``; the pack is the ``.pack`` beside it.

    Raises:
        InvalidInput: the file name is not ``pack-<64 hex>.idx``.
        NotFound: the index file does not exist.
        CorruptObject: the index or pack is truncated, damaged or missing
            (the message names the file).
        UnsupportedVersion: an index or pack format version other than 1,
            2, 3 or 4 (a newer mem's: exit 14, "upgrade mem").

    Attributes:
        name: the pack checksum, 64 hex.  idx_path, pack_path: the files.
        count: number of objects.  size: pack file size in bytes.
    """

    def __init__(self, idx_path: Path | str) -> None:
        self.idx_path = Path(idx_path)
        m = _IDX_NAME.fullmatch(self.idx_path.name)
        if not m:
            raise InvalidInput(f"{self.idx_path}: not a pack index name (want pack-<64 hex>.idx)")
        self.name = m.group(1)
        self.pack_path = self.idx_path.with_name(f"pack-{self.name}.pack")
        self._mm: mmap.mmap | None = None
        self._pf = None
        try:
            fd = os.open(self.idx_path, os.O_RDONLY)
        except FileNotFoundError:
            raise NotFound(f"no pack index {self.idx_path}") from None
        try:
            self._idx_size = os.fstat(fd).st_size
            if self._idx_size < _IDX_FIXED:
                raise CorruptObject(f"{self.idx_path}: truncated ({self._idx_size} bytes; "
                                    f"an index has at least {_IDX_FIXED})")
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
        if version not in READ_VERSIONS:
            raise UnsupportedVersion(f"{ip}: pack index version {version} is not supported "
                                     f"(this mem reads {', '.join(map(str, READ_VERSIONS))})", hint=_UPGRADE)
        self.version = version
        self._ids_off = HEADER_LEN + _FANOUT_LEN
        self._nblocks = 0
        if version >= 3:  # the block table's length B follows the positions
            self._bno_off = self._ids_off + ID_LEN * n
            self._ord_off = self._bno_off + 4 * n
            nb_off = self._ord_off + 2 * n
            if self._idx_size < nb_off + 4 + 2 * SUM_LEN:
                raise CorruptObject(f"{ip}: {self._idx_size} bytes, but {n} objects need at least "
                                    f"{nb_off + 4 + 2 * SUM_LEN} (truncated or damaged)")
            self._nblocks = U32.unpack_from(mm, nb_off)[0]
            if self._nblocks > n or (n > 0) != (self._nblocks > 0):
                raise CorruptObject(f"{ip}: {self._nblocks} blocks for {n} objects (damaged)")
            self._boffs_off = nb_off + 4
            self._blens_off = self._boffs_off + 8 * self._nblocks
            self._bfirst_off = self._blens_off + 4 * self._nblocks  # version 4
            self._inv_off = self._bfirst_off + 4 * self._nblocks  # version 4
        need = idx_size(n, version, self._nblocks)
        if self._idx_size != need:
            raise CorruptObject(f"{ip}: {self._idx_size} bytes, but {n} objects need {need} "
                                "(truncated or damaged)")
        fanout = _FANOUT.unpack_from(mm, HEADER_LEN)
        if fanout[255] != n or any(a > b for a, b in zip(fanout, fanout[1:])):
            raise CorruptObject(f"{ip}: fan-out table is damaged")
        self.count = n
        self._fanout = (0,) + fanout  # _fanout[b] = start of bucket b, _fanout[b + 1] = its end
        if version >= 4:
            self._sum_off = self._inv_off + 4 * n
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
        self._blocks: dict[int, tuple[list[bytes], tuple[int, ...] | None, int]] = {}
        recorded = mm[self._sum_off:self._sum_off + SUM_LEN]
        if recorded.hex() != self.name:
            raise CorruptObject(f"{ip}: records pack checksum {recorded.hex()}, but the file is named for {self.name}")
        pp = self.pack_path
        try:
            self._pf = open(pp, "rb", buffering=0)
        except FileNotFoundError:
            raise CorruptObject(f"{pp}: missing, but its index {ip.name} exists") from None
        fd = self._pf.fileno()
        self.size = os.fstat(fd).st_size
        if self.size < _PACK_MIN:
            raise CorruptObject(f"{pp}: truncated ({self.size} bytes)")
        magic, version, pn = HEADER.unpack(os.pread(fd, HEADER_LEN, 0))
        if magic != PACK_MAGIC:
            raise CorruptObject(f"{pp}: not a pack (bad magic {magic!r})")
        if version not in READ_VERSIONS:
            raise UnsupportedVersion(f"{pp}: pack version {version} is not supported "
                                     f"(this mem reads {', '.join(map(str, READ_VERSIONS))})", hint=_UPGRADE)
        if version != self.version:
            raise CorruptObject(f"{pp}: pack version {version}, but its index has version {self.version}")
        if pn != n:
            raise CorruptObject(f"{pp}: header says {pn} objects, its index {n}")
        if os.pread(fd, SUM_LEN, self.size - SUM_LEN) != recorded:
            raise CorruptObject(f"{pp}: trailer checksum does not match its index (truncated or damaged)")
        self._body_end = self.size - SUM_LEN
        self._body_start = HEADER_LEN  # where the entries begin
        if version >= 2:
            raw_len = os.pread(fd, 4, HEADER_LEN)
            d = U32.unpack(raw_len)[0] if len(raw_len) == 4 else -1
            if d < 0 or _DICT_AT + d > self._body_end:
                raise CorruptObject(f"{pp}: dictionary length {d} runs past the pack body")
            self._dict_len = d
            self._body_start = _DICT_AT + d

    def dictionary(self) -> bytes:
        """Versions 2 and 3: the pack's preset dictionary (raw bytes; empty
        when it has none).  Version 1: empty."""
        if self.version == 1 or not self._dict_len:
            return b""
        data = os.pread(self._pf.fileno(), self._dict_len, _DICT_AT)
        if len(data) != self._dict_len:
            raise CorruptObject(f"{self.pack_path}: short read of its dictionary")
        return data

    def _inflater(self) -> DeflateReader:
        zr = self._zr
        if zr is None:
            try:
                zr = self._zr = DeflateReader(self.dictionary(), self.version)
            except ValueError as e:  # a dictionary over 32 KiB
                raise CorruptObject(f"{self.pack_path}: its dictionary cannot be loaded ({e})") from None
        return zr

    # -- lookups ------------------------------------------------------------

    def _id_at(self, i: int) -> bytes:
        o = self._ids_off + i * ID_LEN
        return self._mm[o:o + ID_LEN]

    def _find(self, raw: bytes) -> int:
        """Position of raw id ``raw`` in the id table, or -1."""
        b = raw[0]
        lo, hi = self._fanout[b], self._fanout[b + 1]
        mm, base = self._mm, self._ids_off
        while lo < hi:
            mid = (lo + hi) >> 1
            o = base + mid * ID_LEN
            k = mm[o:o + ID_LEN]
            if k < raw:
                lo = mid + 1
            elif k == raw:
                return mid
            else:
                hi = mid
        return -1

    def _entry(self, i: int) -> tuple[int, int]:
        """(offset, length) of object ``i``'s entry (version 3: of its block;
        ``(0, 0)``, which no bounds check passes, for a block number past
        the block table)."""
        if self.version >= 3:
            return self._block(U32.unpack_from(self._mm, self._bno_off + 4 * i)[0])
        return (_U64.unpack_from(self._mm, self._offs_off + 8 * i)[0],
                U32.unpack_from(self._mm, self._lens_off + 4 * i)[0])

    def _block(self, b: int) -> tuple[int, int]:
        """Version 3: (offset, entry length) of block ``b`` (``(0, 0)`` past the table)."""
        if b >= self._nblocks:
            return 0, 0
        return (_U64.unpack_from(self._mm, self._boffs_off + 8 * b)[0],
                U32.unpack_from(self._mm, self._blens_off + 4 * b)[0])

    def _ordinal(self, i: int) -> int:
        """Version 3: the position of object ``i`` in its block (0 before)."""
        return _U16.unpack_from(self._mm, self._ord_off + 2 * i)[0] if self.version >= 3 else 0

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
        i = U32.unpack_from(self._mm, self._inv_off + 4 * o)[0]
        return self._id_at(i) if i < n else bytes(ID_LEN)

    def _cached_frame(self, got: tuple[list[bytes], tuple[int, ...] | None, int], k: int) -> bytes:
        """Frame ``k`` of a block read before (``got``, an entry of
        :attr:`_blocks`), its parent put back from the index (version 4)."""
        frames, refs, b = got
        s = frames[k]
        if refs is None or not refs[k]:
            return s
        p = s.rfind(PARENT_MARK)
        if p < 0 or refs[k] > k:
            return s  # damaged: the caller's hash check fails
        return put_parent(s, p, self._block_id(b, refs[k] - 1))

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

    def _read(self, i: int, raw: bytes) -> bytes:
        off, length = self._entry(i)
        if self.version >= 3:
            k = self._ordinal(i)
            got = self._blocks.get(off)
            if got is not None and k < len(got[0]):
                frame = self._cached_frame(got, k)
                if blake3(frame).digest() == raw:
                    return frame
        if off < self._body_start or length < 5 or off + length > self._body_end:
            raise CorruptObject(f"{self.idx_path}: object {raw.hex()}: entry offset {off} length {length} "
                                f"is outside the pack body")
        data = os.pread(self._pf.fileno(), length, off)
        if len(data) != length:
            raise CorruptObject(f"{self.pack_path}: object {raw.hex()}: short read (file truncated?)")
        if self.version >= 3:
            return self._read_block(data, raw, off, k, U32.unpack_from(self._mm, self._bno_off + 4 * i)[0])
        return self._decode_entry(data, raw)

    def _read_block(self, data: bytes, raw: bytes, off: int, k: int, b: int) -> bytes:
        """Versions 3, 4: frame ``k`` of block ``b``, the entry ``data`` at
        ``off``, verified (version 4: its parent id, when the block left it
        out, put back from the index, without hashing the frames before
        it); the frames before it are kept for the next reads
        (:attr:`_blocks`, the last BLOCK_CACHE blocks)."""
        oid = raw.hex()
        if U32.unpack_from(data, 0)[0] != len(data) - 4:
            raise CorruptObject(f"{self.pack_path}: object {oid}: length prefix does not match the index")
        try:
            frames, refs = self._inflater().stored_prefix(memoryview(data)[4:], k)
        except ValueError as e:
            raise CorruptObject(f"{self.pack_path}: object {oid}: cannot decompress object {k} of its "
                                f"block ({e})") from None
        entry = (frames, refs, b)
        frame = self._cached_frame(entry, k)
        got = blake3(frame).digest()
        if got != raw:
            raise CorruptObject(f"{self.pack_path}: object {oid}: content hashes to {got.hex()}")
        cache = self._blocks
        if len(cache) >= BLOCK_CACHE:
            try:
                cache.pop(next(iter(cache), None), None)  # the oldest
            except RuntimeError:  # another thread changed it meanwhile
                cache.clear()
        cache[off] = entry
        return frame

    def ids_in_body_order(self) -> list[str]:
        """Every id of the pack (64 hex) in the order of the pack body (the
        order the objects were written in), so that a rewrite
        (``Store.repack``) keeps objects written together together."""
        return [self._id_at(i).hex() for i in self._body_order()]

    def _body_order(self) -> list[int]:
        """Positions in the id table, in the order of the pack body (version
        3: by block, then by position in the block)."""
        if self.version >= 3:
            return sorted(range(self.count), key=lambda i: (self._entry(i)[0], self._ordinal(i)))
        return sorted(range(self.count), key=lambda i: self._entry(i)[0])

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
        blocks: dict[tuple[int, int], list[tuple[int, bytes]]] = {}
        for i in range(self.count):
            blocks.setdefault(self._entry(i), []).append((self._ordinal(i), self._id_at(i)))
        if not blocks:
            return
        with mmap.mmap(self._pf.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            for (off, length), members in sorted(blocks.items()):
                members.sort()
                ids = [raw.hex() for _k, raw in members]
                if off < self._body_start or length < 5 or off + length > self._body_end:
                    yield ids, CorruptObject(f"{self.idx_path}: block at {off}: entry outside the pack body")
                    continue
                if [k for k, _raw in members] != list(range(len(members))):
                    yield ids, CorruptObject(f"{self.idx_path}: block at {off}: its objects' positions are damaged")
                    continue
                data = mm[off:off + length]
                if U32.unpack_from(data, 0)[0] != length - 4:
                    yield ids, CorruptObject(f"{self.pack_path}: block at {off}: bad length prefix")
                    continue
                yield ids, data[4:]

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
                    yield raw.hex(), self._read(i, raw)
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
            frames, err = zr.block_frames(data, digests)
            if len(frames) > len(ids):
                err = err or f"the block holds {len(frames)} objects, its index {len(ids)}"
            for k, oid in enumerate(ids):
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

    def get(self, oid: str) -> bytes:
        """The verified frame of object ``oid`` (64 hex).

        Raises:
            InvalidInput: ``oid`` is not 64 lowercase hex.
            NotFound: not in this pack.
            CorruptObject: the entry is out of bounds, undecompressable, or
                hashes to another id (the message names the file).
        """
        raw = _raw_id(oid)
        i = self._find(raw)
        if i < 0:
            raise NotFound(f"no object {oid}")
        return self._read(i, raw)

    def raw_entry(self, oid: str) -> bytes:
        """The entry's compressed data (no decompression, no hash check):
        version 1, the zlib stream; version 2, the raw DEFLATE stream, which needs
        this pack's :meth:`dictionary`.  For copying into another pack with
        :meth:`PackWriter.add_entry` (a version-2 writer must use the same
        dictionary).  Raises NotFound, CorruptObject (bounds, length prefix),
        ValueError for a version-3 pack, whose entries are blocks."""
        raw = _raw_id(oid)
        if self.version >= 3:
            raise ValueError(f"{self.pack_path}: version-3 entries are blocks (raw_blocks_in_body_order)")
        i = self._find(raw)
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
        return isinstance(oid, str) and is_full_id(oid) and self._find(bytes.fromhex(oid)) >= 0

    __contains__ = contains

    def entry_size(self, oid: str) -> int:
        """Size in bytes of the object's compressed data in the pack (``L``:
        its zlib stream in version 1, its raw DEFLATE stream in version 2; the entry
        takes ``4 + L``; version 3: that of its whole block, shared with the
        block's other objects).  Raises InvalidInput or NotFound."""
        i = self._find(_raw_id(oid))
        if i < 0:
            raise NotFound(f"no object {oid}")
        return self._entry(i)[1] - 4

    def _iter_raw(self) -> Iterator[bytes]:
        for i in range(self.count):
            yield self._id_at(i)

    def __iter__(self) -> Iterator[str]:
        """Every id in the pack (64 hex), in ascending order."""
        for raw in self._iter_raw():
            yield raw.hex()

    def __len__(self) -> int:
        return self.count

    def resolve_prefix(self, prefix: str) -> list[str]:
        """Ids of this pack starting with ``prefix`` (4-64 hex), ascending.

        Uses the fan-out and a lower-bound binary search; reads only the
        matching ids.  Raises InvalidInput for a malformed prefix.
        """
        return [r.hex() for r in self._prefix_raw(check_prefix(prefix))]

    def _prefix_raw(self, p: str) -> list[bytes]:
        lo_raw = bytes.fromhex((p + "0" * 64)[:64])
        hi_raw = bytes.fromhex((p + "f" * 64)[:64])
        b = lo_raw[0]  # a prefix has >= 4 hex digits: lo and hi share byte 0
        lo, hi = self._fanout[b], self._fanout[b + 1]
        mm, base = self._mm, self._ids_off
        while lo < hi:
            mid = (lo + hi) >> 1
            o = base + mid * ID_LEN
            if mm[o:o + ID_LEN] < lo_raw:
                lo = mid + 1
            else:
                hi = mid
        out = []
        end = self._fanout[b + 1]
        while lo < end:
            k = self._id_at(lo)
            if k > hi_raw:
                break
            out.append(k)
            lo += 1
        return out

    # -- checking -----------------------------------------------------------

    def verify(self, *, max_problems: int = 100) -> list[str]:
        """Check everything; return a list of problems (empty = sound).

        Checks: the index checksum; the pack trailer against the pack bytes,
        the index's record and the file name; the header counts; the fan-out
        against the ids; strict id order; every entry in bounds, with a
        matching length prefix, decompressing and hashing to its id (version
        3: every block inflating to exactly the frames its index lists, at
        the positions it gives, and each lost object named); and that the
        entries (blocks) tile the pack body exactly (no gaps, overlap or garbage).
        Reads both files fully (O(size)); never raises for damage it finds.
        At most ``max_problems`` entry problems are listed, then a count.
        """
        problems: list[str] = []
        ip, pp = self.idx_path, self.pack_path
        mm, n = self._mm, self.count
        with memoryview(mm) as mv:
            if blake3(mv[:self._idx_size - SUM_LEN]).digest() != mv[self._idx_size - SUM_LEN:]:
                problems.append(f"{ip}: index checksum mismatch")
        recorded = mm[self._sum_off:self._sum_off + SUM_LEN]
        fd = self._pf.fileno()
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as pm, memoryview(pm) as pv:
            if len(pm) != self.size:
                problems.append(f"{pp}: size changed from {self.size} to {len(pm)} bytes since it was opened")
                return problems
            h = blake3(max_threads=blake3.AUTO)
            h.update(pv[:self._body_end])
            actual = h.digest()
            if actual != pv[self._body_end:]:
                problems.append(f"{pp}: pack checksum mismatch (trailer {pm[self._body_end:].hex()}, "
                                f"content {actual.hex()})")
            if recorded != pm[self._body_end:]:
                problems.append(f"{ip}: records pack checksum {recorded.hex()}, the pack's trailer is "
                                f"{pm[self._body_end:].hex()}")
            if recorded.hex() != self.name:
                problems.append(f"{ip}: records pack checksum {recorded.hex()}, the file is named for {self.name}")
            if HEADER.unpack_from(pm, 0) != (PACK_MAGIC, self.version, n):
                problems.append(f"{pp}: header does not match the index ({n} objects)")
            # fan-out and order
            counts = [0] * 256
            prev = b""
            order_ok = True
            for i in range(n):
                k = self._id_at(i)
                counts[k[0]] += 1
                if order_ok and k <= prev:
                    problems.append(f"{ip}: ids not strictly ascending at position {i}")
                    order_ok = False
                prev = k
            fan = list(itertools.accumulate(counts))
            if tuple(fan) != _FANOUT.unpack_from(mm, HEADER_LEN):
                problems.append(f"{ip}: fan-out table does not match the ids")
            # every entry
            bad = 0
            if self.version >= 3:
                for oid, got in self.frames_in_body_order():
                    if isinstance(got, CorruptObject):
                        bad += 1
                        if bad <= max_problems:
                            problems.append(str(got))
                entries = sorted(self._block(b) for b in range(self._nblocks))
                bnos = struct.unpack_from(f">{n}I", mm, self._bno_off)
                used = set(bnos)
                if self.version >= 4:
                    problems += self._verify_body_tables(bnos)
                if used != set(range(self._nblocks)):
                    problems.append(f"{ip}: objects name blocks {sorted(used - set(range(self._nblocks)))[:5]} "
                                    f"past the table, or blocks {sorted(set(range(self._nblocks)) - used)[:5]} "
                                    f"hold none of them")
                try:
                    zr = self._inflater()
                    for ids, data in self.raw_blocks_in_body_order():
                        if isinstance(data, CorruptObject):
                            continue  # named above, object by object
                        try:
                            k = U32.unpack(_Inflate(zr._new(), data).take(4))[0]
                        except ValueError:
                            continue  # damaged: named above
                        if k != len(ids):
                            problems.append(f"{pp}: the block at {self._entry(self._find(bytes.fromhex(ids[0])))[0]} "
                                            f"holds {k} objects, its index lists {len(ids)}")
                except CorruptObject as e:
                    problems.append(str(e))
            else:
                entries = []
                for i in range(n):
                    raw = self._id_at(i)
                    off, length = self._entry(i)
                    entries.append((off, length))
                    try:
                        if off < self._body_start or length < 5 or off + length > self._body_end:
                            raise CorruptObject(f"{ip}: object {raw.hex()}: entry offset {off} length {length} "
                                                f"is outside the pack body")
                        self._decode_entry(pm[off:off + length], raw)
                    except CorruptObject as e:
                        bad += 1
                        if bad <= max_problems:
                            problems.append(str(e))
            if bad > max_problems:
                problems.append(f"{pp}: {bad - max_problems} more damaged entries")
            # the entries (version 3: the blocks) tile the body: walk the length prefixes
            total = sum(length for _off, length in entries)
            pos, walked = self._body_start, 0
            while pos + 4 <= self._body_end and walked <= len(entries):
                pos += 4 + U32.unpack_from(pm, pos)[0]
                walked += 1
            if pos != self._body_end or walked != len(entries) or total != self._body_end - self._body_start:
                problems.append(f"{pp}: entries do not tile the pack body (walked {walked} entries to offset "
                                f"{pos}, body ends at {self._body_end}; index lengths sum to {total})")
        return problems

    def _verify_body_tables(self, bnos: tuple[int, ...]) -> list[str]:
        """Version 4: each block's first body position is the number of
        objects in the blocks before it, and each body position names the
        object at it in the id table (``bnos``: each object's block number,
        in id order)."""
        mm, n, nb = self._mm, self.count, self._nblocks
        per = [0] * nb
        for b in bnos:
            if b < nb:
                per[b] += 1
        firsts = list(struct.unpack_from(f">{nb}I", mm, self._bfirst_off))
        if firsts != (list(itertools.accumulate([0] + per[:-1])) if nb else []):
            return [f"{self.idx_path}: the blocks' first body positions do not match their objects"]
        ords = struct.unpack_from(f">{n}H", mm, self._ord_off)
        inv = struct.unpack_from(f">{n}I", mm, self._inv_off)
        for i, (b, k) in enumerate(zip(bnos, ords)):
            o = firsts[b] + k if b < nb else n
            if o >= n or inv[o] != i:
                return [f"{self.idx_path}: the body-position table does not name object {self._id_at(i).hex()} "
                        f"at its block and position"]
        return []

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


class PackBytes:
    """A pack and its index held in memory (a remote's bundle), read by id
    without writing them anywhere: the same layout and checks as
    :class:`Pack` for lookups, versions 1 to 4 (version 4: a left-out
    parent id put back by hashing the frame it names).

    Raises CorruptObject (a malformed header) or UnsupportedVersion."""

    def __init__(self, pack: bytes, idx: bytes) -> None:
        self.pack, self.idx = pack, idx
        if len(idx) < _IDX_FIXED or len(pack) < _PACK_MIN:
            raise CorruptObject("pack bundle: truncated")
        magic, version, n = HEADER.unpack_from(idx, 0)
        pmagic, pversion, pn = HEADER.unpack_from(pack, 0)
        if magic != IDX_MAGIC or pmagic != PACK_MAGIC or pn != n:
            raise CorruptObject("pack bundle: not a pack and its index")
        if version not in READ_VERSIONS or pversion not in READ_VERSIONS:
            raise UnsupportedVersion(f"pack bundle: pack version {pversion}, index version {version} "
                                     f"(this mem reads {', '.join(map(str, READ_VERSIONS))})", hint=_UPGRADE)
        if pversion != version:
            raise CorruptObject(f"pack bundle: pack version {pversion}, index version {version}")
        self._nblocks = U32.unpack_from(idx, 1036 + 38 * n)[0] if version >= 3 and len(idx) >= 1040 + 38 * n else 0
        if len(idx) != idx_size(n, version, self._nblocks):
            raise CorruptObject("pack bundle: not a pack and its index")
        self.version, self.count = version, n
        self._zr: DeflateReader | None = None

    def get(self, oid: str) -> bytes | None:
        """The verified frame of ``oid``, or None when the index does not
        list it.  Raises CorruptObject (bounds, decompression, hash)."""
        raw, idx, n = _raw_id(oid), self.idx, self.count
        lo, hi = 0, n
        while lo < hi:  # the id table is sorted
            mid = (lo + hi) // 2
            if idx[1036 + 32 * mid:1068 + 32 * mid] < raw:
                lo = mid + 1
            else:
                hi = mid
        if lo >= n or idx[1036 + 32 * lo:1068 + 32 * lo] != raw:
            return None
        if self.version >= 3:
            b, nb = U32.unpack_from(idx, 1036 + 32 * n + 4 * lo)[0], self._nblocks
            if b >= nb:
                raise CorruptObject(f"pack bundle: object {oid}: block {b} of {nb}")
            off = _U64.unpack_from(idx, 1040 + 38 * n + 8 * b)[0]
            length = U32.unpack_from(idx, 1040 + 38 * n + 8 * nb + 4 * b)[0]
        else:
            off = _U64.unpack_from(idx, 1036 + 32 * n + 8 * lo)[0]
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
                    self._zr = DeflateReader(bytes(self.pack[_DICT_AT:_DICT_AT + d]), self.version)
                if self.version == 2:
                    frame = self._zr.decompress(data, MAX_ENTRY)
                else:
                    k = _U16.unpack_from(idx, 1036 + 36 * n + 2 * lo)[0]
                    frame = self._zr.block_frame(data, k)
        except (zlib.error, ValueError) as e:
            raise CorruptObject(f"pack bundle: object {oid}: cannot decompress ({e})") from None
        if blake3(frame).digest() != raw:
            raise CorruptObject(f"pack bundle: object {oid} does not hash to its id")
        return frame


class PackSet:
    """All complete packs of a pack directory (those with a ``.idx``).

    A ``.pack`` without its ``.idx`` and ``tmp-pack-*`` files are ignored
    (see :meth:`incomplete_packs`, :meth:`temp_files`).  Packs are searched
    newest index first.

    **Damaged packs.**  By default opening raises :class:`CorruptObject` (or
    UnsupportedVersion) for the first complete pack that cannot be opened:
    an index is written last and removed first, so a damaged or pack-less
    index is never a normal state, and silently skipping it would turn
    "corrupt" into "not found" (and let gc believe objects are gone).  With
    ``skip_broken=True`` (for fsck, and for reading what is still readable)
    such packs are left out and listed in :attr:`broken` instead.  A pack
    removed by another process while it is being opened is skipped either way.

    Lookups may run in several threads at once; :meth:`reload`,
    :meth:`remove_pack` and :meth:`close` must not run concurrently with them.

    Args:
        pack_dir: ``<store>/objects/pack``; may be missing (no packs).
        skip_broken: see above.

    Attributes:
        broken: ``(idx path, error)`` of packs left out by ``skip_broken``.
    """

    def __init__(self, pack_dir: Path | str, *, skip_broken: bool = False) -> None:
        self.pack_dir = Path(pack_dir)
        self.skip_broken = skip_broken
        self.broken: list[tuple[Path, MemError]] = []
        self._packs: dict[str, Pack] = {}
        self._order: list[Pack] = []
        self._last: Pack | None = None  # the pack of the last hit (get)
        self.reload()

    def _scan(self) -> dict[str, tuple[float, Path]]:
        found: dict[str, tuple[float, Path]] = {}
        try:
            it = os.scandir(self.pack_dir)
        except (FileNotFoundError, NotADirectoryError):
            return found
        with it:
            for ent in it:
                m = _IDX_NAME.fullmatch(ent.name)
                if m:
                    try:
                        found[m.group(1)] = (ent.stat().st_mtime, Path(ent.path))
                    except FileNotFoundError:
                        pass
        return found

    def reload(self) -> None:
        """Re-scan the directory: open new packs, close and forget packs whose
        index is gone; packs already open are kept.  Raises as the constructor.
        """
        found = self._scan()
        for name in [k for k in self._packs if k not in found]:
            self._packs.pop(name).close()
        broken: list[tuple[Path, MemError]] = []
        try:
            for name, (_, idx) in found.items():
                if name in self._packs:
                    continue
                try:
                    self._packs[name] = Pack(idx)
                except NotFound:
                    continue  # removed since the scan
                except (CorruptObject, UnsupportedVersion) as e:
                    if not idx.exists():
                        continue  # removed while opening (index first, then pack)
                    if not self.skip_broken:
                        raise
                    broken.append((idx, e))
        finally:
            self.broken = broken
            mt = {k: v[0] for k, v in found.items()}
            self._order = sorted(self._packs.values(), key=lambda p: (-mt.get(p.name, 0.0), p.name))
            if self._last is not None and self._last.name not in self._packs:
                self._last = None

    def refuse_newer(self, doing: str) -> None:
        """Raise UnsupportedVersion (exit 14) when a pack left out as
        :attr:`broken` is of a version this mem does not read: a newer mem
        wrote it, and ``doing`` (fsck, repair) must neither call it damage
        nor set it aside (its objects would look lost: a repair would drop
        the sessions they hold)."""
        for idx, err in self.broken:
            if isinstance(err, UnsupportedVersion):
                raise UnsupportedVersion(f"{err.message}: a newer mem wrote this store's pack {idx.stem}; "
                                         f"{doing} changed nothing", hint=_UPGRADE)

    @property
    def packs(self) -> list[Pack]:
        """The open packs, newest index first."""
        return list(self._order)

    def get(self, oid: str) -> bytes:
        """The verified frame of ``oid`` from the first pack holding a sound copy.

        Raises:
            InvalidInput: ``oid`` is not 64 lowercase hex.
            NotFound: in no pack.
            CorruptObject: every copy found is damaged (the first error).
        """
        raw = _raw_id(oid)
        err: CorruptObject | None = None
        last = self._last  # objects read together were mostly written together: try that pack first
        if last is not None:
            i = last._find(raw)
            if i >= 0:
                try:
                    return last._read(i, raw)
                except CorruptObject as e:
                    err = e
        for p in self._order:
            if p is last:
                continue
            i = p._find(raw)
            if i >= 0:
                try:
                    frame = p._read(i, raw)
                    self._last = p
                    return frame
                except CorruptObject as e:
                    err = err or e
        if err is not None:
            raise err
        raise NotFound(f"no object {oid}")

    def contains(self, oid: str) -> bool:
        """True when some pack's index lists ``oid``."""
        return any(p.contains(oid) for p in self._order)

    __contains__ = contains

    def __iter__(self) -> Iterator[str]:
        """Every id in any pack, ascending, each once (a k-way merge of the
        packs' sorted indexes; O(number of packs) memory)."""
        import heapq   # here: a reader that looks objects up never merges (start-up)
        last = None
        for raw in heapq.merge(*(p._iter_raw() for p in self._order)):
            if raw != last:
                yield raw.hex()
                last = raw

    def resolve_prefix(self, prefix: str) -> list[str]:
        """Every id (ascending, each once) starting with ``prefix`` (4-64 hex).
        Raises InvalidInput for a malformed prefix."""
        p = check_prefix(prefix)
        out: set[bytes] = set()
        for pack in self._order:
            out.update(pack._prefix_raw(p))
        return [r.hex() for r in sorted(out)]

    def resolve(self, prefix: str) -> str:
        """The one id starting with ``prefix``.

        Raises InvalidInput (malformed), NotFound (none) or AmbiguousId (several).
        """
        hits = self.resolve_prefix(prefix)
        if not hits:
            raise NotFound(f"no object matches {prefix}")
        if len(hits) > 1:
            raise AmbiguousId(f"{prefix} is ambiguous: {len(hits)} objects match", hint="give more characters")
        return hits[0]

    def remove_pack(self, pack: Pack) -> None:
        """Close ``pack`` and delete its files: the ``.idx`` first, fsync the
        directory, then the ``.pack``, fsync again (see the module doc,
        "Removal").  The caller must hold the store lock and have the objects
        elsewhere.  Missing files are not an error."""
        self._packs.pop(pack.name, None)
        self._order = [p for p in self._order if p.name != pack.name]
        if self._last is not None and self._last.name == pack.name:
            self._last = None
        pack.close()
        pack.idx_path.unlink(missing_ok=True)
        fsync_dir(self.pack_dir)
        pack.pack_path.unlink(missing_ok=True)
        fsync_dir(self.pack_dir)

    def temp_files(self) -> list[Path]:
        """``tmp-pack-*`` files (packs and indexes being written, or crash
        leftovers), sorted.  gc may delete those older than its grace period."""
        return self._list(lambda name: name.startswith(TEMP_PREFIX))

    def incomplete_packs(self) -> list[Path]:
        """``pack-*.pack`` files without their ``.idx``, sorted: a crash between
        the two renames or between the two unlinks of a removal, or a writer
        between them right now.  gc may delete those older than its grace period."""
        def incomplete(name: str) -> bool:
            m = _PACK_NAME.fullmatch(name)
            return bool(m) and not (self.pack_dir / f"pack-{m.group(1)}.idx").exists()
        return self._list(incomplete)

    def _list(self, keep) -> list[Path]:
        try:
            names = os.listdir(self.pack_dir)
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(self.pack_dir / n for n in names if keep(n))

    def drop_pages(self) -> None:
        """:meth:`Pack.drop_pages` of every open pack."""
        for p in self._packs.values():
            p.drop_pages()

    def close(self) -> None:
        """Close every pack.  Idempotent."""
        for p in self._packs.values():
            p.close()
        self._packs.clear()
        self._order = []
        self._last = None

    def __enter__(self) -> PackSet:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
