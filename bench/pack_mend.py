#!/usr/bin/env python3
"""CPU of ``mem fsck --repair``'s search for one flipped bit in a pack
(``objstore.core.packmend.find_flip``, docs/benchmarks.md, Session 35
(branch ``dmg35``)).

    PYTHONPATH=. python bench/pack_mend.py STORE [--flips 12] [--seed 1]

Takes the largest pack of ``STORE`` (a store built by ``mem import`` of
``bench/gen_corpus.py``'s corpus, then ``mem gc --prune=now``), copies it
and its index to a scratch folder, and for ``--flips`` seeded places in
its frame blocks flips one bit, counts the objects that no longer read,
and times ``find_flip`` (CPU, ``time.process_time``).  Prints one line per
flip (offset, objects lost, found or not, CPU ms) and the median and
largest CPU.  Nothing in ``STORE`` is changed.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from objstore.core.errors import CorruptObject
from objstore.core.packfile import Pack
from objstore.core.packmend import find_flip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--flips", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    pack = max((a.store / "objects" / "pack").glob("pack-*.pack"), key=lambda p: p.stat().st_size)
    with tempfile.TemporaryDirectory() as tmp:
        dst = Path(tmp) / pack.name
        idx = dst.with_suffix(".idx")
        shutil.copy(pack.with_suffix(".idx"), idx)
        good = pack.read_bytes()
        with Pack(pack.with_suffix(".idx")) as p:
            blocks = p.block_offsets()
            print(f"pack {pack.name[5:21]}: {len(good):,} bytes, {len(p):,} objects, {len(blocks)} frame blocks")
        rng = random.Random(a.seed)
        cpu = []
        for _ in range(a.flips):
            b = rng.choice(blocks)
            n = int.from_bytes(good[b:b + 4], "big")
            at, bit = b + 4 + rng.randrange(n), rng.randrange(8)
            data = bytearray(good)
            data[at] ^= 1 << bit
            dst.write_bytes(bytes(data))
            with Pack(idx) as p:
                lost = sum(isinstance(f, CorruptObject) for _o, f in p.frames_in_body_order())
                t = time.process_time()
                got = find_flip(p)
                ms = (time.process_time() - t) * 1000
            cpu.append(ms)
            print(f"  byte {at:>8} bit {bit}: {lost:>4} objects lost, "
                  f"{'found' if got == (at, bit) else 'not found' if lost else 'nothing lost'}, {ms:8.1f} ms CPU")
        print(f"median {statistics.median(cpu):.1f} ms, max {max(cpu):.1f} ms CPU")


if __name__ == "__main__":
    main()
