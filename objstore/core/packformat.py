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
back to back, closed once its frames hold BLOCK_BYTES (128 KiB; 64 KiB before session 16); its index
gives each object, after the ids, its block number (``u32``) and its
position in the block (``u16``), then the number of blocks B and the
blocks' offsets (``u64``) and entry lengths (``u32``).  A read
inflates its block only up to the end of its frame; a damaged byte of a
block loses the objects of that block from the damaged one on (a changed
literal the stream still inflates past: those its change reaches).  Version
4 is version 3 whose block content has,
after the lengths, a u16 *parent reference* per frame: a frame whose
parent id (the 32 bytes after its last PARENT_MARK) is the id of an
earlier frame ``j`` of the block is stored without it, reference ``j + 1``
(the frames and ids are unchanged: a read puts it back before hashing);
its index adds each block's first body position and, per body position,
the object's place in the id table, so that a read takes the parent id
from the index.  Version 5, which new packs are written in, is version
4's pack file with a smaller index: ids without their first byte (the
fan-out gives it), one body position per object instead of a block
number and position, positions and places :func:`pos_width` bytes wide
(35 bytes an object instead of 42 up to 65,536 objects).  Version 6,
which new packs are written in, has version 5's index; its block content
adds, after the references, a u8 *source code* per frame and a *source
column*: a turn's source that begins as one of packsources.SOURCE_RULES says (a
Claude Code uuid, ``msg_`` id, prompt hash) is stored without the id's
characters, their bytes in the column (:mod:`objstore.core.packsources`).  All versions use the standard library's zlib
only.  ``docs/format.md`` ("Packs") specifies the six, with a worked
example of the first five.

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

This module holds the format: its constants and sizes, the file names, and
the decoding of a block (:class:`DeflateReader`), shared by the readers
(:mod:`objstore.core.packfile`: :class:`~objstore.core.packfile.Pack`, one
pack file, and :class:`~objstore.core.packbytes.PackBytes`, one held in
memory; :mod:`objstore.core.pack`: :class:`~objstore.core.pack.PackSet`, a
store's pack directory), the writer (:mod:`objstore.core.packwriter`) and
the salvage of damaged packs (:mod:`objstore.core.salvage`).
"""

from __future__ import annotations

import struct
import sys
import zlib
from array import array
from blake3 import blake3

from objstore.core.errors import CorruptObject, InvalidInput, MemError, UnsupportedVersion
from objstore.core.ids import is_full_id
from objstore.core.packlines import Spliced, first_frames_refs, parse_refs, splice
from objstore.core.packsources import BlockSources, column_len, join_sources

PACK_MAGIC = b"MPAK"
IDX_MAGIC = b"MIDX"
#: the version new packs and indexes are written in (1: a zlib stream per
#: object; 2: a raw DEFLATE stream per object, compressed with the pack's own
#: preset dictionary; 3: raw DEFLATE blocks of several objects with that
#: dictionary; 4: the blocks of version 3, each frame's parent id left out
#: when it is the id of an earlier frame of its block; 5: the pack of
#: version 4 with a smaller index: ids without their first byte, one body
#: position per object, positions POS_WIDTH bytes wide; 6: version 5 whose
#: blocks hold the turns' sources' ids as bytes, packsources.SOURCE_RULES; 7: version 6
#: whose blocks are zstd frames, objstore.core.packzstd, written only when the
#: store's config.toml asks for it, ZSTD_VERSION); all seven are read (7: with
#: the zstd codec, the extra memvcs[zstd]; without it, exit 14: readable()); 8: version 6
#: whose pack holds a table of repeated lines (objstore.core.packlines), the store's default
#: since session 31 (packwriter.write_version), PACK_VERSION staying the writer's own default
#: (a remote's bundles)
PACK_VERSION = 6
IDX_VERSION = 6
ZSTD_VERSION = 7
READ_VERSIONS = (1, 2, 3, 4, 5, 6, 7, 8)
#: version 2: the DEFLATE level and zlib memLevel new entries are written at
#: (level 4, memLevel 6: 2.4 s and 18.2 MB for the bench corpus's 43.7 MB of
#: frames, against 4.6 s and 17.5 MB at 6/8; docs/benchmarks.md)
DEFLATE_LEVEL = 4
DEFLATE_MEMLEVEL = 6
#: versions 3-5: the writer closes a block once its frames hold BLOCK_BYTES
#: (or it holds BLOCK_OBJECTS frames), and compresses it at this level and
#: memLevel (the bench corpus: 12.8 MB in 0.95 s of CPU, against 18.0 MB in
#: 1.3 s per object in version 2; docs/benchmarks.md, Session 7).  The
#: readers take any block size: 64 KiB up to session 15, 128 KiB since
#: (−0.21 MB of the corpus's 12.59 MB of objects, no more writer CPU, a random
#: read inflating twice as much; level 8 would take 0.08 MB more for +0.5 s
#: of writer CPU: docs/benchmarks.md, Sessions 15, 16)
BLOCK_BYTES = 128 * 1024
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
#: (at most BLOCK_BYTES each, plus one frame larger than that; dropped by
#: :meth:`Pack.drop_pages`): a walk up a chain reads one block at a time
BLOCK_CACHE = 4
#: the blocks the packs that the resident helper keeps open across requests
#: keep, together (``pack.KeptPacks``: shared out evenly, each at least
#: BLOCK_CACHE; at most BLOCK_BYTES each, ~16 MiB in all): a request reads the
#: blocks of the turns it shows, and the next request often the same ones
KEPT_BLOCKS = 128
#: versions 2 and 3: the dictionary is taken from the first frames of a pack, up to
#: this many frames or bytes, and is at most DICT_BYTES long (zlib's window:
#: a preset dictionary longer than 32 KiB is not used)
TRAIN_FRAMES = 2000
TRAIN_BYTES = 4 << 20
DICT_BYTES = 32 * 1024
#: version 7 (zstd blocks, objstore.core.packzstd): a dictionary of up to 64 KiB, made by the same rule
ZSTD_DICT_BYTES = 64 * 1024
#: version 4: a pack whose frames, all of them, total under this many bytes
#: is written without a dictionary (stored raw, up to 32 KiB, it outweighs
#: what it saves: a pack of 50 corpus turns takes 43.7 KB with one, 24.3 KB
#: without; the two meet at about 1.2 MB of frames; docs/benchmarks.md)
DICT_MIN_BYTES = 1 << 20

# The layout constants below are shared with the readers (objstore.core.packfile,
# objstore.core.pack) and the writer (objstore.core.packwriter); the sizes are
# those of the tables above.
HEADER = struct.Struct(">4sII")  # magic, version, count: 12 bytes in both files
HEADER_LEN = HEADER.size
FANOUT = struct.Struct(">256I")
FANOUT_LEN = FANOUT.size  # 1024
U32 = struct.Struct(">I")
U64 = struct.Struct(">Q")
SUM_LEN = 32  # blake3 checksum
ID_LEN = 32
IDX_FIXED = HEADER_LEN + FANOUT_LEN + 2 * SUM_LEN  # 1100
IDX_PER_OBJECT = ID_LEN + 8 + 4  # 44, in versions 1 and 2
IDX3_PER_OBJECT = ID_LEN + 4 + 2  # 38 in version 3: id, block number, position; + 4 (B) + 12 per block
#: version 5: bytes of an id in the id table (its first byte is the fan-out bucket it lies in)
IDX5_ID_LEN = ID_LEN - 1
U16 = struct.Struct(">H")
DICT_AT = HEADER_LEN + 4  # versions 2, 3: the dictionary follows its u32 length at offset 12
PACK_MIN = HEADER_LEN + SUM_LEN  # 44
FRAME_MAGIC = b"MEMO"  # codec.MAGIC; not imported to keep this module free of cbor2
MAX_OBJECTS = 2**32 - 1
MAX_ENTRY = 2**32 - 1  # entry length 4 + L is a u32



def pack_name_id(name: str, suffix: str) -> str | None:
    """The 64-hex checksum in a pack file's name ``pack-<64 hex><suffix>``
    (``suffix`` ``.idx`` or ``.pack``), or None for any other name.  A string
    test, not a regular expression: every reader lists the pack directory."""
    if len(name) != 69 + len(suffix) or not name.startswith("pack-") or not name.endswith(suffix):
        return None
    hex_id = name[5:69]
    return hex_id if is_full_id(hex_id) else None


TEMP_PREFIX = "tmp-pack-"
UPGRADE_HINT = "a newer mem wrote it: upgrade mem to read it"
#: the highest format version a header may hold and still be read as "a newer mem wrote
#: this": versions count up one at a time (4 after twelve sessions), so a larger one
#: (a flipped byte in the top three of the u32, ``00 ff 00 04``) is a damaged field:
#: an integrity error that ``mem fsck`` reports and ``--repair`` salvages (docs/format.md)
MAX_FORMAT_VERSION = 255


def version_problem(where: str, what: str, version: int, other: int | None = None) -> MemError:
    """The error for a header ``version`` this mem does not read (``what``:
    ``"pack"``, ``"pack index"``; ``where``: the file, for the message;
    ``other``: the version in the header of its pair, the pack's index or
    the index's pack, None when that cannot be read).  CorruptObject (exit
    13) above :data:`MAX_FORMAT_VERSION` or at 0 (no mem writes it: the
    field is damaged), or when ``other`` differs (every mem writes a pack
    and its index with one version: one of the two fields is damaged, e.g.
    4 -> 5 is one flipped bit); else UnsupportedVersion (exit 14, a newer
    mem wrote both).  Returned, not raised."""
    if version == 0 or version > MAX_FORMAT_VERSION:
        return CorruptObject(f"{where}: {what} version {version} is damaged (no mem writes a version "
                             f"above {MAX_FORMAT_VERSION}; this mem reads {', '.join(map(str, READ_VERSIONS))})")
    if other is not None and other != version:
        pair = "index" if what == "pack" else "pack"
        return CorruptObject(f"{where}: {what} version {version} is damaged: its {pair} has version {other} "
                             "(a mem writes a pack and its index with one version)")
    return UnsupportedVersion(f"{where}: {what} version {version} is not supported "
                              f"(this mem reads {', '.join(map(str, READ_VERSIONS))})", hint=UPGRADE_HINT)


def readable(where: str, what: str, version: int, other: int | None = None) -> MemError | None:
    """None when this mem reads a pack or index of header ``version``, else
    the error to raise: :func:`version_problem`'s for a version it does not
    know; CodecMissing (exit 14) for version 7 when the zstd codec does not
    import (``packzstd.missing``: a format it knows, on a Python without
    the extra ``memvcs[zstd]``; never damage)."""
    if version not in READ_VERSIONS:
        return version_problem(where, what, version, other)
    if version == ZSTD_VERSION:
        from objstore.core.packzstd import missing  # deferred: only a version-7 pack needs zstd
        return missing(where)
    return None


def header_version(path) -> int | None:
    """The version field of the header of the pack or pack index file at
    ``path`` (the u32 after the magic), or None when it cannot be read (a
    missing or cut short file)."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEADER_LEN)
    except OSError:
        return None
    return HEADER.unpack(head)[1] if len(head) == HEADER_LEN else None


def pos_width(count: int) -> int:
    """Version 5: the width in bytes W of a body position and of a place in
    the id table in the index of a pack of ``count`` objects: 2 up to 65,536
    objects, 3 up to 16,777,216, else 4 (each value is below ``count``)."""
    return 2 if count <= 1 << 16 else 3 if count <= 1 << 24 else 4


def body_version(version: int) -> int:
    """The version whose pack body (entries, blocks) a pack of ``version``
    has: version 5 differs from version 4 in its index only, so a block of
    one is copied into a pack of the other as it is (version 6 has version
    5's index and blocks of its own)."""
    return 4 if version == 5 else version


def idx_size(count: int, version: int = IDX_VERSION, blocks: int = 0, chunk_blocks: int = 0) -> int:
    """Exact size in bytes of the index of a pack of ``count`` objects
    (``1100 + 44·count`` in versions 1 and 2; in version 3, whose objects
    lie in ``blocks`` blocks, ``1104 + 38·count + 12·blocks``; in version 4
    ``1104 + 42·count + 16·blocks``: each block's first body position and
    each body position's place in the id table too; in version 5
    ``1104 + (31 + 2·W)·count + 16·blocks``, W = :func:`pos_width`; in
    version 8 ``4 + 16·chunk_blocks`` more: its chunk-block table)."""
    if version >= 8:
        return IDX_FIXED + 8 + (IDX5_ID_LEN + 2 * pos_width(count)) * count + 16 * (blocks + chunk_blocks)
    if version >= 5:
        return IDX_FIXED + 4 + (IDX5_ID_LEN + 2 * pos_width(count)) * count + 16 * blocks
    if version >= 4:
        return IDX_FIXED + 4 + (IDX3_PER_OBJECT + 4) * count + 16 * blocks
    if version >= 3:
        return IDX_FIXED + 4 + IDX3_PER_OBJECT * count + 12 * blocks
    return IDX_FIXED + IDX_PER_OBJECT * count


def int_table(buf, code: str, off: int, count: int) -> array:
    """``count`` big-endian integers of array type ``code`` (``"H"``,
    ``"I"``, ``"Q"``) at ``off`` of ``buf`` (the index mapping), as an
    array in this machine's order."""
    t = array(code)
    t.frombytes(buf[off:off + t.itemsize * count])
    if sys.byteorder == "little":
        t.byteswap()
    return t


def uint_table(buf, off: int, count: int, width: int) -> array:
    """``count`` unsigned big-endian integers of ``width`` bytes (2, 3 or 4)
    at ``off`` of ``buf`` (bytes, mmap), as an ``array("I")`` in this
    machine's order (the version-5 index's tables, read at once)."""
    src = buf[off:off + width * count]
    if width == 3:  # widened to 4 bytes: a zero byte before each value
        wide = bytearray(4 * count)
        wide[1::4], wide[2::4], wide[3::4] = src[0::3], src[1::3], src[2::3]
        src = wide
    t = array("H" if width == 2 else "I")
    t.frombytes(src)
    if sys.byteorder == "little":
        t.byteswap()
    return t if width != 2 else array("I", t)


def uint_bytes(values, width: int) -> bytes:
    """The big-endian bytes of the unsigned integers ``values`` (an
    iterable, each below 2**(8·``width``)), ``width`` bytes (2, 3 or 4)
    each: :func:`uint_table`'s inverse."""
    t = array("H" if width == 2 else "I", values)
    if sys.byteorder == "little":
        t.byteswap()
    b = t.tobytes()
    if width != 3:
        return b
    out = bytearray(3 * len(t))
    out[0::3], out[1::3], out[2::3] = b[1::4], b[2::4], b[3::4]
    return bytes(out)


class DeflateReader:
    """Decompresses the raw DEFLATE streams (RFC 1951) of one version-2,
    version-3 or version-4 pack with its preset dictionary (``dict_data``,
    raw bytes, at most 32 KiB; empty: none); ``version`` is the pack's
    (version 4: a block's frames are given back with the parent ids it
    left out put back).  Standard-library zlib; safe from several threads
    (a new decompressor per call: setting a preset dictionary on inflate is
    a copy into its window)."""

    def __init__(self, dict_data: bytes, version: int = 3) -> None:
        most = ZSTD_DICT_BYTES if version == ZSTD_VERSION else DICT_BYTES
        if len(dict_data) > most:
            raise ValueError(f"a preset dictionary of {len(dict_data)} bytes (at most {most})")
        self._dict = bytes(dict_data)
        self.version = version
        self._zd = None  # version 7: the zstd dictionary, loaded on the first block
        #: version 8: the pack's chunks (packlines.ChunkTable, or any callable from a chunk number
        #: to its bytes, ValueError for one it does not hold), set by the pack's reader
        self.chunks = None

    def decompressor(self):
        """A new ``zlib`` decompressor of raw DEFLATE (RFC 1951) with this
        pack's preset dictionary (none when it is empty); version 7: a
        ``packzstd.ZstdInflater`` of one zstd frame with it."""
        if self.version == ZSTD_VERSION:
            from objstore.core import packzstd  # deferred: only a version-7 pack needs zstd
            if self._zd is None and self._dict:
                self._zd = packzstd.prepared_dict(self._dict)
            return packzstd.ZstdInflater(self._zd)
        return zlib.decompressobj(-15, zdict=self._dict) if self._dict else zlib.decompressobj(-15)

    def decompress(self, data, limit: int) -> bytes:
        """The content of the raw DEFLATE stream ``data``, at most ``limit``
        bytes.  Raises ValueError for damaged data, a stream that does not
        end where ``data`` ends, or content over ``limit`` bytes."""
        d = self.decompressor()
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
        out, refs, src = self.stored_prefix(data, k)
        if src is not None:
            out = [src.frame(out, i) for i in range(len(out))]
        if refs is not None:
            err = join_parents(out, refs)
            if err:
                raise ValueError(err)
        return out

    def stored_prefix(self, data, k: int, lazy: bool = False) -> tuple[list[bytes], tuple[int, ...] | None,
                                                                      BlockSources | None]:
        """``(frames, refs, sources)``: frames 0 … ``k`` of the block
        ``data`` as stored (version 4: without the parent ids the block left
        out; version 6: and the characters of the sources' ids), the block's
        K parent references (None before version 4) and its source codes
        and column (None before version 6), inflated up to the end of frame
        ``k`` (version 8: with the chunks put back; ``lazy``: a
        ``packlines.Spliced`` that puts a frame's back when it is first
        asked for, its line references read then too:
        ``packlines.first_frames_refs``).  Raises as :meth:`block_frame`."""
        inf = Inflate(self.decompressor(), data)
        (count,) = U32.unpack(inf.take(4))
        if k >= count:
            raise ValueError(f"object {k} of a block of {count}")
        lens = struct.unpack(f">{count}I", inf.take(4 * count))
        refs = struct.unpack(f">{count}H", inf.take(2 * count)) if self.version >= 4 else None
        src = lines = None
        if self.version >= 6:
            codes = inf.take(count)
            src = BlockSources(codes, inf.take(column_len(codes)) if any(codes) else b"")
        if self.version >= 8:  # the line references (objstore.core.packlines; lazy: frame k's alone are made)
            area = inf.take(U32.unpack(inf.take(4))[0])
            lines = first_frames_refs(area, count, k + 1) if lazy else parse_refs(area, count, k + 1)
        body = inf.take(sum(lens[:k + 1]))
        out, pos = [], 0
        for n in lens[:k + 1]:
            out.append(body[pos:pos + n])
            pos += n
        if lines is not None:
            out = Spliced(out, lines, self._chunk) if lazy else \
                [splice(s, lines[i], self._chunk) for i, s in enumerate(out)]
        return out, refs, src

    def _chunk(self, c: int) -> bytes:
        """Version 8: chunk ``c`` of the pack (ValueError without a table or past it)."""
        if self.chunks is None:
            raise ValueError("a version-8 block read without its pack's chunk table")
        return self.chunks(c)

    def block_frames(self, data, digests: dict[int, bytes] | None = None, ids=None,
                     lost: dict[int, str] | None = None) -> tuple[list[bytes | None], str | None]:
        """Versions 3 and 4: ``(frames, error)``: the frames of the block
        ``data`` in order, as far as its stream inflates (version 4: and
        their parents can be put back), and None when the whole stream is
        sound (it ends exactly where ``data`` ends, with nothing after its K
        frames), else why it is not (the frames before the damage are still
        returned).  ``digests`` (version 4), a dict, receives the raw ids of
        the frames whose ids were computed to put a parent back, by their
        position.  Version 8: a frame whose chunks cannot be put back (a
        damaged chunk block) is None in the list, its position and why in
        ``lost`` (a dict, when given), and the reading goes on: a frame
        naming it as its parent takes the parent's id from ``ids`` (the
        block's K raw ids by the index, in block order; None: without an
        index that frame is lost too).  Never raises."""
        inf = Inflate(self.decompressor(), data)
        frames: list[bytes | None] = []
        refs = codes = lines = None
        column = b""
        gone: dict[int, str] = {} if lost is None else lost
        try:
            (count,) = U32.unpack(inf.take(4))
            if count == 0 or count > BLOCK_OBJECTS:
                return frames, f"a block of {count} objects"
            lens = struct.unpack(f">{count}I", inf.take(4 * count))
            if self.version >= 4:
                refs = struct.unpack(f">{count}H", inf.take(2 * count))
            if self.version >= 6:
                codes = inf.take(count)
                column = inf.take(column_len(codes)) if any(codes) else b""
            if self.version >= 8:
                lines = parse_refs(inf.take(U32.unpack(inf.take(4))[0]), count)
            for i, n in enumerate(lens):
                s = inf.take(n)
                if lines is not None and lines[i]:
                    try:
                        s = splice(s, lines[i], self._chunk)
                    except ValueError as e:  # a lost chunk costs this frame only: the stream reads on
                        gone[i], s = f"a line it names cannot be put back ({e})", None
                frames.append(s)
            inf.end()
        except ValueError as e:
            if codes is not None:
                join_sources(frames, codes, column)  # cuts the list at a frame that cannot be put back
            if refs is not None:
                join_parents(frames, refs, digests, ids, gone)  # cuts the list at a frame that cannot be put back
            return frames, str(e)
        if codes is not None:
            err = join_sources(frames, codes, column)
            if err:
                return frames, err
        if refs is not None:
            err = join_parents(frames, refs, digests, ids, gone)
            if err:
                return frames, err
        return frames, (f"object {min(gone)} of the block: {gone[min(gone)]}" if gone else None)


class HexIds:
    """A block's ids by the index (64-hex strings, block order) as raw ids on
    demand (``ids[j]``: 32 bytes): for :meth:`DeflateReader.block_frames`,
    which asks only for a lost frame's, to put it back as a parent."""

    __slots__ = ("hexes",)

    def __init__(self, hexes: list[str]) -> None:
        self.hexes = hexes

    def __getitem__(self, j: int) -> bytes:
        return bytes.fromhex(self.hexes[j])


def join_parents(frames: list[bytes | None], refs, digests: dict[int, bytes] | None = None, ids=None,
                 lost: dict[int, str] | None = None) -> str | None:
    """Version 4: put back, in place, the parent ids a block left out of
    ``frames`` (its stored frames, in block order; ``refs`` its K u16
    parent references: 0 none, ``j + 1`` the id of frame ``j`` < this one,
    inserted after the last PARENT_MARK of the stored frame), each parent's
    id computed as its BLAKE3 (into ``digests``, by position).  Returns
    None, or why a reference cannot be put back, the list then cut before
    that frame (a damaged block: the frames before it are sound).  A lost
    frame (None, version 8's :meth:`DeflateReader.block_frames`) stays
    None; a frame whose parent is lost takes the parent's id from ``ids``
    (raw ids by position), or without them is lost too (None, and why in
    ``lost``)."""
    if digests is None:
        digests = {}
    for i, s in enumerate(frames):
        r = refs[i]
        if not r or s is None:
            continue
        j = r - 1
        p = s.rfind(PARENT_MARK)
        if j >= i or p < 0:
            del frames[i:]
            return (f"object {i} of the block names object {j} as its parent" if j >= i
                    else f"object {i} of the block has no parent field to put its parent back into")
        d = digests.get(j)
        if d is None and frames[j] is None:
            if ids is None:
                frames[i] = None
                if lost is not None:
                    lost[i] = f"its parent, object {j} of the block, is lost"
                continue
            d = ids[j]
        elif d is None:
            d = digests[j] = blake3(frames[j]).digest()
        frames[i] = put_parent(s, p, d)
    return None


def put_parent(stored: bytes, mark: int, parent: bytes) -> bytes:
    """Version 4: the frame ``stored`` with the raw id ``parent`` put back
    after the PARENT_MARK at offset ``mark``."""
    p = mark + len(PARENT_MARK)
    return stored[:p] + parent + stored[p:]


class Inflate:
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


def raw_id(oid: str) -> bytes:
    if not isinstance(oid, str) or not is_full_id(oid):
        raise InvalidInput(f"not an object id: {oid!r} (want 64 lowercase hex characters)")
    return bytes.fromhex(oid)

