"""Pack index versions 4 and 5 on the same frames: bytes, write CPU, read CPU.

    python bench/pack_idx.py STORE [--rounds 5] [--reads 5000]

Reads every frame of STORE's packs (in body order), then per round, the
two versions in turn (order alternating): writes one pack of all frames in
version 4 and in version 5 into a scratch folder (CPU of ``write_pack``,
``time.process_time``: compression dominates, the index is a small part),
then opens each and reads ``--reads`` ids in a random order (the same ids
for both) with a new reader (``Pack.get``: lookup, block, parent put
back, hash).  Prints the index sizes and the medians.  Nothing in STORE
is written.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from objstore.core.pack import Pack  # noqa: E402
from objstore.core.packwriter import write_pack  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reads", type=int, default=5000)
    a = ap.parse_args()
    frames: list[bytes] = []
    ids: list[str] = []
    for idx in sorted((a.store / "objects" / "pack").glob("pack-*.idx")):
        with Pack(idx) as p:
            for oid, f in p.frames_in_body_order():
                if isinstance(f, bytes):
                    frames.append(f)
                    ids.append(oid)
    rnd = random.Random(14)
    want = rnd.sample(ids, min(a.reads, len(ids)))
    tmp = Path(tempfile.mkdtemp(prefix="idx14-packidx-"))
    write_cpu: dict[int, list[float]] = {4: [], 5: []}
    read_cpu: dict[int, list[float]] = {4: [], 5: []}
    size: dict[int, int] = {}
    try:
        for r in range(a.rounds):
            for v in ((4, 5) if r % 2 == 0 else (5, 4)):
                d = tmp / f"r{r}v{v}"
                t = time.process_time()
                info = write_pack(d, frames, version=v)
                write_cpu[v].append(time.process_time() - t)
                size[v] = info.idx_size
                t = time.process_time()
                with Pack(info.idx_path) as p:
                    for oid in want:
                        p.get(oid)
                read_cpu[v].append(time.process_time() - t)
                shutil.rmtree(d)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    n = len(frames)
    print(f"{n} objects, one pack; {a.rounds} rounds, versions in turn")
    for v in (4, 5):
        print(f"version {v}: index {size[v]:,} B ({size[v] / n:.1f} B/object); write_pack CPU median "
              f"{statistics.median(write_cpu[v]):.3f} s {[round(x, 3) for x in write_cpu[v]]}; "
              f"{len(want)} reads CPU median {statistics.median(read_cpu[v]) * 1e6 / len(want):.1f} µs/read "
              f"{[round(x, 3) for x in read_cpu[v]]}")


if __name__ == "__main__":
    main()
