"""A pack's dictionary and block content as the writer encodes them: the
preset dictionary from a pack's first frames (:func:`make_dictionary`,
:func:`dictionary_sources`, :func:`dict_bytes`), version 4's parent
references (:func:`split_parents`) and the raw DEFLATE stream of a block of
versions 3 to 6 (:func:`deflate_block`; ``docs/format.md``, "Packs").

Used by :class:`objstore.core.packwriter.PackWriter`, by a pack rewrite
that keeps a dictionary (:mod:`objstore.core.repack`) and by the bench
scripts that re-encode a store's frames.  Split from
:mod:`objstore.core.packwriter` (session 30), whose size is capped, so that
a later block version has room there.  Standard library and blake3-free;
never prints; readers never import it.
"""

from __future__ import annotations

import struct
import zlib

from objstore.core.packformat import DICT_BYTES, ID_LEN, PARENT_MARK, U32, ZSTD_DICT_BYTES
from objstore.core.packsources import split_sources


def make_dictionary(frames: list[bytes], size: int = DICT_BYTES) -> bytes:
    """A version-2 or version-3 pack's preset dictionary from its first ``frames``: the
    first 512 bytes of up to 200 frames spread evenly over them, the last
    DICT_BYTES (32 KiB) of that.  zlib's advice for a preset dictionary is
    "strings likely to be encountered later", the most common last; the
    heads of frames hold what every object repeats (the frame and CBOR
    headers, map keys, kinds, session and project names).  Empty when the
    frames are fewer than 16 or give under 4 KiB (too little to gain from).
    Standard-library zlib has no dictionary trainer; measured on the bench
    corpus this gives 18.2 MB against 25.0 MB for no dictionary
    (docs/benchmarks.md).  Version 7: ``size`` ZSTD_DICT_BYTES (64 KiB)."""
    return b"".join(frames[i][:512] for i in dictionary_sources(frames, size))[-size:]


def dictionary_sources(frames: list[bytes], size: int = DICT_BYTES) -> list[int]:
    """The indexes of the ``frames`` whose bytes :func:`make_dictionary`
    puts in the dictionary (none when it makes none): a pack rewrite that
    drops none of them may keep the dictionary (``Store.delete_objects``)."""
    if len(frames) < 16:
        return []
    step = max(1, len(frames) // (200 * size // DICT_BYTES))
    picked = list(range(0, len(frames), step))
    if sum(len(frames[i][:512]) for i in picked) < 4096:
        return []
    out, got = [], 0
    for i in reversed(picked):  # the last ``size`` bytes of the joined heads
        if got >= size:
            break
        out.append(i)
        got += len(frames[i][:512])
    return out[::-1]


def dict_bytes(version: int) -> int:
    """The most bytes a pack dictionary of ``version`` holds: DICT_BYTES
    (32 KiB, zlib's window), ZSTD_DICT_BYTES (64 KiB) from version 7."""
    return ZSTD_DICT_BYTES if version == 7 else DICT_BYTES


def deflate_block(c, frames: list[bytes], ids: list[bytes] | None, sources: bool = False) -> bytes:
    """Versions 3 to 6: the raw DEFLATE stream of a block's content (u32
    K, the K frame lengths, version 4 (``ids`` given: the frames' raw ids):
    the K parent references and each frame without a parent id that is an
    earlier frame's (:func:`split_parents`), version 6 (``sources``): the K
    source codes and the source column (:func:`~objstore.core.packsources.split_sources`),
    then the frames) with ``c``, a copy of the pack's primed compressor
    (zlib releases the GIL while it deflates, so this runs beside the
    caller's thread).  Version 6 ends a DEFLATE block (``Z_BLOCK``) after
    the codes and after the column: the ids' bytes get their own Huffman
    codes and leave the frames' text its own (the bench corpus's blocks:
    −0.50 MB against version 5, −0.37 MB with the column after the frames in
    one stream, −0.26 MB before them, −0.21 MB with the ids' bytes in the
    frames; ``bench/source_column.py``, docs/benchmarks.md, Session 21)."""
    k = len(frames)
    if ids is None:
        head = U32.pack(k) + struct.pack(f">{k}I", *map(len, frames))
        return c.compress(head + b"".join(frames)) + c.flush()
    frames, refs = split_parents(frames, ids)
    if not sources:
        head = U32.pack(k) + struct.pack(f">{k}I", *map(len, frames)) + struct.pack(f">{k}H", *refs)
        return c.compress(head + b"".join(frames)) + c.flush()
    frames, codes, column = split_sources(frames)
    return deflate_stored(c, frames, refs, codes, column)


def deflate_stored(c, frames: list[bytes], refs: list[int], codes: bytes, column: bytes,
                   lines: bytes | None = None) -> bytes:
    """Versions 6 and 8: the raw DEFLATE stream, with ``c`` (a copy of the
    pack's primed compressor), of a block's content from its stored
    ``frames``, parent ``refs``, source ``codes`` and ``column`` and
    (version 8) its line-reference area ``lines``
    (:meth:`objstore.core.packlines.LinePass.strip`), u32 its length
    first; a DEFLATE block (``Z_BLOCK``) ends after the codes, the column
    and the area."""
    k = len(frames)
    head = U32.pack(k) + struct.pack(f">{k}I", *map(len, frames)) + struct.pack(f">{k}H", *refs) + codes
    out = [c.compress(head), c.flush(zlib.Z_BLOCK)]
    if column:
        out += [c.compress(column), c.flush(zlib.Z_BLOCK)]
    if lines is not None:
        out += [c.compress(U32.pack(len(lines)) + lines), c.flush(zlib.Z_BLOCK)]
    out += [c.compress(b"".join(frames)), c.flush()]
    return b"".join(out)


def split_parents(frames: list[bytes], ids: list[bytes]) -> tuple[list[bytes], list[int]]:
    """Version 4: a block's stored frames and parent references from its
    ``frames`` and their raw ``ids`` (block order): where the 32 bytes after
    the last PARENT_MARK of a frame are the id of an earlier frame ``j`` of
    the block, the frame is stored without them and its reference is
    ``j + 1``; otherwise it is stored whole, reference 0.  The inverse of
    :func:`objstore.core.packformat.join_parents` (``docs/format.md``, "Packs")."""
    at = {d: j for j, d in enumerate(ids)}
    out, refs = [], []
    m = len(PARENT_MARK)
    for i, f in enumerate(frames):
        p = f.rfind(PARENT_MARK)
        j = at.get(f[p + m:p + m + ID_LEN], i) if p >= 0 else i
        if j < i:
            f = f[:p + m] + f[p + m + ID_LEN:]
            refs.append(j + 1)
        else:
            refs.append(0)
        out.append(f)
    return out, refs
