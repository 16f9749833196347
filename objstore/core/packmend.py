"""Mend one flipped bit of a pack: ``mem fsck --repair``'s first step for a
damaged pack (test34b T24).

A block of a version-3 to -8 pack is one DEFLATE stream (docs/format.md,
"Packs"), and DEFLATE shares bytes between the objects of a block: a
frame's text is mostly copies of earlier text (LZ77 back-references) and
every symbol is decoded by the block's Huffman table.  So one flipped bit
in a literal that later frames copy, or in a Huffman table, makes every
object after it decode to wrong bytes (they still inflate: their hash
check fails), which cost a whole 12-key pack to one bit.

No format change is needed to get them back: the pack names its own
bytes.  The file's name is the BLAKE3 of its body (the trailer), and every
object's id is the BLAKE3 of its frame, so a guessed correction is proved,
never trusted.  :func:`find_flip` tries, for each block whose objects do
not read, every single-bit flip in the compressed bytes that could have
made its first wrong frame (those read before the stream's output passed
that frame's end), from the nearest back, at most :data:`MEND_TRIALS` a
block; a flip after which the frames up to that one hash to ids of the
pack, then the whole block, then the whole body to the pack's name, is the
damage.  The mended file is byte for byte the pack as written.  A damaged
byte (more than one bit), two flips, a flip in a chunk block, the
dictionary, a length prefix or the header are not mended (the repair sets
the pack aside as before).  Costs: one inflate up to the first wrong frame
per trial (a 2 KiB block: ~20 µs), and the body's BLAKE3 once per pack and
once per flip that passes the frame checks.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from pathlib import Path

from blake3 import blake3

from objstore.core.atomic import atomic_write
from objstore.core.errors import MemError
from objstore.core.ids import hash_bytes
from objstore.core.pack import PackSet
from objstore.core.packformat import ZSTD_VERSION, DeflateReader
from objstore.core.packsources import column_len

#: the most single-bit flips tried in one damaged block (64 Ki: 8 KiB of compressed bytes before its
#: first wrong frame's end; a farther flip, in a Huffman table far back, is not found)
MEND_TRIALS = 1 << 16
_U32 = struct.Struct(">I")
_SUM_LEN = 32
_STEP = 64   # input bytes fed at a time when mapping the stream's input to its output


def mend_packs(pack_dir: Path, keep: Callable[[Path], object]) -> list[tuple[str, int, int]]:
    """Mend every pack of ``pack_dir`` that :func:`find_flip` finds one
    flipped bit in: ``keep(path)`` is called first with the damaged
    ``.pack`` (the repair copies it into the quarantine), then the file is
    replaced (atomically, fsynced) by its bytes with the bit flipped back,
    which are the pack as it was written (its BLAKE3 is its name).  Returns
    ``(pack name, offset, bit)`` of each pack mended.  Call under the store
    lock.  Raises OSError if a pack cannot be read or written."""
    found = []
    ps = PackSet(pack_dir, skip_broken=True)
    try:
        for pack in ps.packs:
            try:
                flip = find_flip(pack)
            except (MemError, ValueError, struct.error):   # damage elsewhere (its dictionary): set aside as before
                flip = None
            if flip is not None:
                found.append((pack.pack_path, pack.name, *flip))
    finally:
        ps.close()
    for path, _name, at, bit in found:
        keep(path)
        data = bytearray(path.read_bytes())
        data[at] ^= 1 << bit
        atomic_write(path, bytes(data))
    return [(name, at, bit) for _path, name, at, bit in found]


def find_flip(pack, trials: int = MEND_TRIALS) -> tuple[int, int] | None:
    """``(offset, bit)`` of a single flipped bit in ``pack`` (a
    :class:`~objstore.core.packfile.Pack` of version 3 to 6 or 8: byte
    ``offset`` of the ``.pack`` file, ``bit`` 0-7, value ``1 << bit``)
    whose flip back makes the pack body hash to the pack's name again and
    every object of its damaged blocks read, else None (the body is sound,
    the damage is not one bit of a frame block's stream, or not found
    within ``trials`` flips per block).  Reads the whole ``.pack`` file;
    raises OSError if it cannot be read, nothing for damage."""
    if pack.version < 3 or pack.version == ZSTD_VERSION:   # zstd checks its own blocks
        return None
    data = bytearray(pack.pack_path.read_bytes())
    want = bytes.fromhex(pack.name)
    end = len(data) - _SUM_LEN
    if end <= 0 or blake3(data[:end], max_threads=blake3.AUTO).digest() == want:
        return None
    zr = DeflateReader(pack.dictionary(), pack.version)
    if pack.version >= 8:
        zr.chunks = pack.chunk_table()
    ids = set(pack)
    for off in pack.block_offsets():
        if off + 4 > end:
            continue
        (n,) = _U32.unpack_from(data, off)
        lo, hi = off + 4, off + 4 + n
        if hi > end:
            continue
        bad = _first_bad(zr, bytes(data[lo:hi]), ids)
        if bad is None:
            continue
        upto = _input_upto(zr, bytes(data[lo:hi]), bad, pack.version)
        tried = 0
        for at in range(lo + upto - 1, lo - 1, -1):
            for bit in range(8):
                if tried >= trials:
                    break
                tried += 1
                data[at] ^= 1 << bit
                if _reads(zr, bytes(data[lo:hi]), bad, ids) and \
                        blake3(data[:end], max_threads=blake3.AUTO).digest() == want:
                    return at, bit
                data[at] ^= 1 << bit
    return None


def _first_bad(zr: DeflateReader, stream: bytes, ids: set[str]) -> int | None:
    """The position of the first frame of the block ``stream`` that does
    not read as an object of the pack (``ids``), or None when all do."""
    frames, err = zr.block_frames(stream)
    for k, f in enumerate(frames):
        if f is None or hash_bytes(f) not in ids:
            return k
    return len(frames) if err else None


def _reads(zr: DeflateReader, stream: bytes, bad: int, ids: set[str]) -> bool:
    """True when the block ``stream`` reads whole, every frame an object of
    the pack: frames 0 … ``bad`` first (inflated only that far), then all."""
    try:
        if any(hash_bytes(f) not in ids for f in zr.block_prefix(stream, bad)):
            return False
    except ValueError:
        return False
    frames, err = zr.block_frames(stream)
    return err is None and all(f is not None and hash_bytes(f) in ids for f in frames)


def _input_upto(zr: DeflateReader, stream: bytes, bad: int, version: int) -> int:
    """How many bytes of the damaged ``stream`` are read before its output
    passes the end of frame ``bad`` (the flip lies among them: an output
    byte is made only after every input bit it depends on was read); the
    whole stream when the content's head cannot be parsed."""
    d = zr.decompressor()
    content = bytearray()
    marks: list[tuple[int, int]] = []
    for s in range(0, len(stream), _STEP):
        try:
            content += d.decompress(stream[s:s + _STEP])
        except (zlib.error, ValueError):
            break
        marks.append((min(s + _STEP, len(stream)), len(content)))
    try:
        (count,) = _U32.unpack_from(content, 0)
        lens = struct.unpack_from(f">{count}I", content, 4)
        h = 4 + 4 * count + (2 * count if version >= 4 else 0)
        if version >= 6:
            h += count + column_len(bytes(content[h:h + count]))
        if version >= 8:
            h += 4 + _U32.unpack_from(content, h)[0]
    except (struct.error, ValueError, IndexError):
        return len(stream)
    stop = h + sum(lens[:bad + 1])
    return next((i for i, total in marks if total >= stop), len(stream))
