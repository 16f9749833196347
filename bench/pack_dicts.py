"""A pack's preset dictionary, other ways of making it: bytes of the same blocks.

    python bench/pack_dicts.py STORE [--block 131072] [--level 6]

Reads every frame of STORE's packs (pack by pack, in body order, with its
id), then for each dictionary form compresses each pack's frames again as
the writer does (version-4/5 blocks closed at ``--block`` bytes of frames,
``--level``, each block a copy of a compressor primed with the pack's
dictionary; a pack of fewer than 1,000 frames gets none, as the writer's
DICT_MIN_BYTES rule mostly does) and prints the bytes of the dictionaries
and block entries (the part of a pack a dictionary changes; the index and
header are the same for all forms), the CPU of making the dictionaries and
of the whole pass (``time.process_time``).  The forms: no dictionary; the
writer's (``make_dictionary``: the first 512 bytes of 200 frames spread
over the first 2,000, the last 32 KiB of them); that one cut to its last
24, 16 or 8 KiB; heads of other widths (400 x 256, 800 x 128, 64 x 1024
bytes); the last 32 KiB of 100 consecutive frames; and a frequency-ranked
one (64-byte pieces of the first 2,000 frames scored by how many frames
hold their 8-byte substrings, the best last, as zstd's COVER trainer
does).  Nothing in STORE is written.  docs/benchmarks.md, Session 16.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from objstore.core.pack import Pack  # noqa: E402
from objstore.core.packformat import BLOCK_BYTES, BLOCK_LEVEL, BLOCK_MEMLEVEL, DICT_BYTES  # noqa: E402
from objstore.core.packencode import deflate_block, make_dictionary  # noqa: E402


def heads(n: int, width: int, train: int = 2000):
    def make(frames: list[bytes]) -> bytes:
        fr = frames[:train]
        return b"".join(x[:width] for x in fr[::max(1, len(fr) // n)])[-DICT_BYTES:]
    return make


def cut(keep: int):
    return lambda frames: make_dictionary(frames)[-keep:]


def consecutive(frames: list[bytes]) -> bytes:
    return b"".join(frames[500:600])[-DICT_BYTES:]


def ranked(frames: list[bytes], seg: int = 64, k: int = 8, sample: int = 2000) -> bytes:
    fr = frames[:sample]
    df: collections.Counter = collections.Counter()
    for x in fr:
        df.update({x[i:i + k] for i in range(len(x) - k)})
    pieces = [(sum(df[x[o + i:o + i + k]] for i in range(0, seg - k, 4)), x[o:o + seg])
              for x in fr for o in range(0, len(x) - seg, seg)]
    pieces.sort(key=lambda t: -t[0])
    out, seen, n = [], set(), 0
    for _score, p in pieces:
        if p not in seen:
            seen.add(p)
            out.append(p)
            n += len(p)
            if n >= DICT_BYTES:
                break
    return b"".join(reversed(out))[-DICT_BYTES:]


FORMS = {"none": lambda frames: b"", "writer (200 x 512)": make_dictionary, "writer, last 24 KiB": cut(24576),
         "writer, last 16 KiB": cut(16384), "writer, last 8 KiB": cut(8192), "heads 400 x 256": heads(400, 256),
         "heads 800 x 128": heads(800, 128), "heads 64 x 1024": heads(64, 1024),
         "100 consecutive frames": consecutive, "frequency-ranked pieces": ranked}


def blocks(pairs, size: int):
    cur, n = [], 0
    for pair in pairs:
        cur.append(pair)
        n += len(pair[1])
        if n >= size:
            yield cur
            cur, n = [], 0
    if cur:
        yield cur


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--block", type=int, default=BLOCK_BYTES)
    ap.add_argument("--level", type=int, default=BLOCK_LEVEL)
    a = ap.parse_args()
    packs = []
    for idx in sorted((a.store / "objects" / "pack").glob("pack-*.idx")):
        with Pack(idx) as p:
            packs.append([(bytes.fromhex(o), f) for o, f in p.frames_in_body_order() if isinstance(f, bytes)])
    print(f"{sum(map(len, packs))} objects in {len(packs)} packs; blocks of {a.block:,} B at level {a.level}")
    base = None
    for name, make in FORMS.items():
        total, t, t_dict = 0, time.process_time(), 0.0
        for pairs in packs:
            frames = [f for _i, f in pairs]
            t0 = time.process_time()
            d = make(frames) if len(frames) >= 1000 else b""
            t_dict += time.process_time() - t0
            c = zlib.compressobj(a.level, zlib.DEFLATED, -15, BLOCK_MEMLEVEL, zlib.Z_DEFAULT_STRATEGY,
                                 *((d,) if d else ()))
            total += 4 + len(d)
            for b in blocks(pairs, a.block):
                total += 4 + len(deflate_block(c.copy(), [f for _i, f in b], [i for i, _f in b]))
        base = total if base is None else base
        print(f"{name:<26} {total:>12,} B  {total - base:>+10,} vs none  dictionary CPU {t_dict:6.3f} s  "
              f"all {time.process_time() - t:6.3f} s")


if __name__ == "__main__":
    main()
