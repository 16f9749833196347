"""Pack blocks under the standard library's codecs: what a default store
(no zstd: the core dependencies are fixed) could gain by a block codec or
block size other than version 6's, and what a read would pay.

    python bench/pack_stdlib_codecs.py STORE [--only deflate,lzma,bz2]

Reads every frame of STORE's packs in body order and cuts them into blocks
as the writer does (``pack_zstd.blocks``: version 6's content, parent
references and source column), for block sizes of 128 KiB (version 6's)
and 256 KiB, then prints for each codec the bytes of dictionaries plus
block entries (4 + L each), the CPU seconds of compressing them all, and
the CPU microseconds of decoding one whole block (median block; a read of
one object decodes its block up to that object):

* DEFLATE with the pack's 32 KiB dictionary (``make_dictionary``) at level
  6 (version 6) and level 9;
* LZMA2 raw streams (``lzma.FORMAT_RAW``, no dictionary: Python's ``lzma``
  takes none) at presets 1, 2 and 6;
* bzip2 level 9 (``bz2.compress``).

Nothing in STORE is written.  docs/benchmarks.md, Session 27 (branch sz27).
"""

from __future__ import annotations

import argparse
import bz2
import lzma
import statistics
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pack_zstd  # noqa: E402
from objstore.core.pack import Pack  # noqa: E402
from objstore.core.packformat import BLOCK_MEMLEVEL  # noqa: E402
from objstore.core.packencode import make_dictionary  # noqa: E402


def measure(packs, block_bytes: int, codec: str, level: int) -> tuple[int, float, float]:
    """(bytes, compress CPU s, median whole-block decode CPU s) of ``packs``
    (lists of (raw id, frame) in body order) in blocks of ``block_bytes``."""
    pack_zstd.BLOCK_BYTES = block_bytes   # the writer's cut, at this size
    total, cpu, decode = 0, 0.0, []
    for pairs in packs:
        frames = [f for _i, f in pairs]
        d = make_dictionary(frames) if codec == "deflate" and len(frames) >= 1000 else b""
        total += len(d) + (4 if codec == "deflate" else 0)
        filters = [{"id": lzma.FILTER_LZMA2, "preset": level, "dict_size": 2 * block_bytes}]
        for head, col, body in pack_zstd.blocks(pairs):
            t0 = time.process_time()
            if codec == "deflate":
                c = zlib.compressobj(level, zlib.DEFLATED, -15, BLOCK_MEMLEVEL, zlib.Z_DEFAULT_STRATEGY,
                                     *((d,) if d else ()))
                parts = [c.compress(head), c.flush(zlib.Z_BLOCK)]
                if col:   # as the writer: a DEFLATE block ended after the codes, and after the column
                    parts += [c.compress(col), c.flush(zlib.Z_BLOCK)]
                out = b"".join([*parts, c.compress(body), c.flush()])
                undo = (lambda o: (zlib.decompressobj(-15, zdict=d) if d else zlib.decompressobj(-15)).decompress(o))
            elif codec == "lzma":
                out = lzma.compress(head + col + body, format=lzma.FORMAT_RAW, filters=filters)
                undo = (lambda o: lzma.decompress(o, format=lzma.FORMAT_RAW, filters=filters))
            else:
                out = bz2.compress(head + col + body, level)
                undo = bz2.decompress
            t1 = time.process_time()
            assert undo(out) == head + col + body
            decode.append(time.process_time() - t1)
            cpu += t1 - t0
            total += 4 + len(out)
    return total, cpu, statistics.median(decode)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--only", default="deflate,lzma,bz2")
    a = ap.parse_args()
    packs = []
    for idx in sorted((a.store / "objects" / "pack").glob("pack-*.idx")):
        with Pack(idx) as p:
            packs.append([(bytes.fromhex(o), f) for o, f in p.frames_in_body_order() if isinstance(f, bytes)])
    runs = {"deflate": (6, 9), "lzma": (1, 2, 6), "bz2": (9,)}
    base = None
    for kib in (128, 256):
        for codec in a.only.split(","):
            for level in runs[codec]:
                n, cpu, dec = measure(packs, kib * 1024, codec, level)
                base = n if base is None else base
                print(f"{kib:>3} KiB blocks, {codec:<7} level {level}: {n:>12,} B ({n - base:+,}), "
                      f"compress {cpu:.2f} s, decode {dec * 1e6:.0f} us a block", flush=True)


if __name__ == "__main__":
    main()
