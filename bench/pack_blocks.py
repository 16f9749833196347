"""Pack block size and DEFLATE level on the same frames: bytes, write CPU, read CPU.

    python bench/pack_blocks.py STORE [--rounds 5] [--reads 3000] [--form 65536:6 --form 131072:8 ...]

Reads every frame of STORE's packs (pack by pack, in body order), then per
round, the forms in turn (order rotating each round): writes each pack's
frames again as a version-5 pack whose writer closes blocks at SIZE bytes
and compresses them at LEVEL (``--form SIZE:LEVEL``; default the writer's
values, 64 KiB at level 6, and 128 KiB blocks at level 6: docs/benchmarks.md, Session 15)
into a scratch folder (CPU of ``write_pack``, ``time.process_time``; the
writer's compressing thread's CPU counts too), then opens the packs and
reads ``--reads`` ids in a random order (the same for every form) with a
new reader per pack and round (``Pack.get``: lookup, the block inflated up
to the frame, parent put back, hash; the 4-block cache kept across the
round's reads, as in one process).  Prints each form's pack bytes (packs +
indexes, apparent) and the medians.  Nothing in STORE is written.
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

from objstore.core import packformat, packwriter  # noqa: E402
from objstore.core.pack import Pack  # noqa: E402
from objstore.core.packwriter import write_pack  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reads", type=int, default=3000)
    ap.add_argument("--form", action="append", metavar="SIZE:LEVEL")
    a = ap.parse_args()
    forms = [tuple(map(int, f.split(":"))) for f in (a.form or ["65536:6", "131072:6"])]
    packs: list[list[bytes]] = []
    ids: list[tuple[int, str]] = []
    for idx in sorted((a.store / "objects" / "pack").glob("pack-*.idx")):
        frames = []
        with Pack(idx) as p:
            for oid, f in p.frames_in_body_order():
                if isinstance(f, bytes):
                    frames.append(f)
                    ids.append((len(packs), oid))
        packs.append(frames)
    rnd = random.Random(15)
    want = rnd.sample(ids, min(a.reads, len(ids)))
    tmp = Path(tempfile.mkdtemp(prefix="objs15-blocks-"))
    write_cpu = {f: [] for f in forms}
    read_cpu = {f: [] for f in forms}
    size = {}
    try:
        for r in range(a.rounds):
            order = forms[r % len(forms):] + forms[:r % len(forms)]
            for form in order:
                packwriter.BLOCK_BYTES, packwriter.BLOCK_LEVEL = form  # the writer's module globals
                d = tmp / f"r{r}-{form[0]}-{form[1]}"
                t = time.process_time()
                infos = [write_pack(d, frames) for frames in packs]
                write_cpu[form].append(time.process_time() - t)
                size[form] = sum(i.size + i.idx_size for i in infos)
                readers = [Pack(i.idx_path) for i in infos]
                t = time.process_time()
                for k, oid in want:
                    readers[k].get(oid)
                read_cpu[form].append((time.process_time() - t) / len(want) * 1e6)
                for p in readers:
                    p.close()
                shutil.rmtree(d)
    finally:
        packwriter.BLOCK_BYTES, packwriter.BLOCK_LEVEL = packformat.BLOCK_BYTES, packformat.BLOCK_LEVEL
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(ids)} objects in {len(packs)} packs, {sum(map(len, (f for fs in packs for f in fs))):,} bytes of frames; "
          f"{a.rounds} rounds in turn, {len(want)} random reads a round")
    for form in forms:
        w, rd = write_cpu[form], read_cpu[form]
        print(f"blocks {form[0]:>7,} B, level {form[1]}: packs+idx {size[form]:>11,} B  "
              f"write CPU median {statistics.median(w):.3f} s ({min(w):.3f}-{max(w):.3f})  "
              f"read median {statistics.median(rd):.1f} us ({min(rd):.1f}-{max(rd):.1f})")


if __name__ == "__main__":
    main()
