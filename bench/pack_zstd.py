"""Pack block codecs compared on one store's objects: version 6's raw
DEFLATE blocks against zstd frames of the same block contents, by zstd
level and dictionary size (the choice behind pack version 7).

    python bench/pack_zstd.py STORE [--levels 3,9,15] [--dicts 32,64,112]

Reads every frame of STORE's packs in body order, cuts them into blocks as
the writer does (BLOCK_BYTES of frames, version 6's content: parent
references and source column), and prints the bytes of dictionaries plus
block entries (4 + L each) and the CPU seconds of compressing them: DEFLATE
level 6 with the 32 KiB dictionary (version 6), then zstd with a raw
content dictionary of each size (the first 512 bytes of frames spread
over the pack, ``make_dictionary``'s rule; a pack under 1,000 frames has
none) at each level, a zstd block ended after the codes and after the
column, and for each the CPU microseconds of decoding one whole block
(median block).  Nothing in STORE is written.  docs/benchmarks.md, Session 26
(branch sz26).
"""

from __future__ import annotations

import argparse
import statistics
import struct
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from objstore.core.pack import Pack  # noqa: E402
from objstore.core.packformat import BLOCK_BYTES, BLOCK_LEVEL, BLOCK_MEMLEVEL, DICT_BYTES  # noqa: E402
from objstore.core.packsources import split_sources  # noqa: E402
from objstore.core.packencode import make_dictionary, split_parents  # noqa: E402
from objstore.core.packzstd import ZSTD_WINDOW_LOG, zstd as z  # noqa: E402

U32 = struct.Struct(">I")


def blocks(pairs: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes, bytes]]:
    """The version-6 contents (head, source column, frames) of the blocks the writer makes of ``pairs``."""
    out, block, n = [], [], 0
    for pair in [*pairs, None]:
        if pair is not None:
            block.append(pair)
            n += len(pair[1])
        if block and (pair is None or n >= BLOCK_BYTES):
            frames, refs = split_parents([f for _i, f in block], [i for i, _f in block])
            k = len(frames)
            frames, codes, column = split_sources(frames)
            head = U32.pack(k) + struct.pack(f">{k}I", *map(len, frames)) + struct.pack(f">{k}H", *refs) + codes
            out.append((head, column, b"".join(frames)))
            block, n = [], 0
    return out


def deflate(packs) -> tuple[int, float, float]:
    total, t, decode = 0, time.process_time(), []
    for frames, bl in packs:
        d = make_dictionary(frames) if len(frames) >= 1000 else b""
        c = zlib.compressobj(BLOCK_LEVEL, zlib.DEFLATED, -15, BLOCK_MEMLEVEL, zlib.Z_DEFAULT_STRATEGY,
                             *((d,) if d else ()))
        total += 4 + len(d)
        for head, col, body in bl:
            cc = c.copy()
            parts = [cc.compress(head), cc.flush(zlib.Z_BLOCK)]
            if col:
                parts += [cc.compress(col), cc.flush(zlib.Z_BLOCK)]
            parts += [cc.compress(body), cc.flush()]
            out = b"".join(parts)
            total += 4 + len(out)
            t0 = time.process_time()
            (zlib.decompressobj(-15, zdict=d) if d else zlib.decompressobj(-15)).decompress(out)
            decode.append(time.process_time() - t0)
    return total, time.process_time() - t - sum(decode), statistics.median(decode)


def zstd(packs, level: int, dict_bytes: int) -> tuple[int, float, float]:
    total, t, decode = 0, time.process_time(), []
    opts = {z.CompressionParameter.compression_level: level, z.CompressionParameter.window_log: ZSTD_WINDOW_LOG}
    for frames, bl in packs:
        d = make_dictionary(frames, dict_bytes) if len(frames) >= 1000 else b""
        zd = z.ZstdDict(d, is_raw=True) if d else None
        total += 4 + len(d)
        for head, col, body in bl:
            c = z.ZstdCompressor(options=opts, zstd_dict=zd) if zd else z.ZstdCompressor(options=opts)
            out = c.compress(head) + c.flush(c.FLUSH_BLOCK)
            if col:
                out += c.compress(col) + c.flush(c.FLUSH_BLOCK)
            out += c.compress(body) + c.flush(c.FLUSH_FRAME)
            total += 4 + len(out)
            t0 = time.process_time()
            (z.ZstdDecompressor(zstd_dict=zd) if zd else z.ZstdDecompressor()).decompress(out)
            decode.append(time.process_time() - t0)
    return total, time.process_time() - t - sum(decode), statistics.median(decode)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--levels", default="3,9,15")
    ap.add_argument("--dicts", default="32,64,112", help="dictionary sizes in KiB")
    a = ap.parse_args()
    packs = []
    for idx in sorted((a.store / "objects" / "pack").glob("pack-*.idx")):
        with Pack(idx) as p:
            pairs = [(bytes.fromhex(o), f) for o, f in p.frames_in_body_order() if isinstance(f, bytes)]
        packs.append(([f for _i, f in pairs], blocks(pairs)))
    print(f"{sum(len(f) for f, _b in packs)} objects, {sum(len(b) for _f, b in packs)} blocks, "
          f"{sum(len(h) + len(c) + len(b) for _f, bl in packs for h, c, b in bl):,} B of block content")
    n, cpu, dec = deflate(packs)
    print(f"deflate level {BLOCK_LEVEL}, {DICT_BYTES // 1024} KiB dictionary: {n:,} B, {cpu:.2f} s, "
          f"decode {dec * 1e6:.0f} us a block", flush=True)
    for kib in map(int, a.dicts.split(",")):
        for level in map(int, a.levels.split(",")):
            n2, cpu, dec = zstd(packs, level, kib * 1024)
            print(f"zstd level {level:>2}, {kib:>3} KiB dictionary: {n2:,} B ({n2 - n:+,}), {cpu:.2f} s, "
                  f"decode {dec * 1e6:.0f} us a block", flush=True)


if __name__ == "__main__":
    main()
