"""Pack version 8 (the per-pack table of repeated lines) on a store's packs: bytes and read CPU.

Usage::

    python bench/pack_v8.py STORE [--reencode OUT | --in-place] [--reads 400]

Reads STORE's packs (never writes them) and prints, in process:

* the median and mean CPU of a cold random object read (``Pack.get`` after
  ``drop_pages``: no block or chunk block kept), ``--reads`` ids picked
  with a fixed seed, and the CPU of reading every frame in body order (as
  gc, fsck and a forget's rewrite do);
* with ``--reencode OUT``: every pack's frames written again as version 8
  by :class:`PackWriter` into OUT (streaming, as an import or gc writes;
  each new pack deleted once measured), pack + index bytes before and after,
  per pack and in all, and this process's peak RSS (the line map's bound);
  ``--in-place``: the same, written into STORE's own pack folder (STORE
  must be a copy: its old packs are removed), making a store of version-8
  packs (docs/benchmarks.md, Session 32 (branch `scrub32`): the one-turn
  forget at 2.07M turns).

Run it with ``PYTHONPATH`` set to the tree to measure (a base tree reads
its own versions; ``--reencode`` needs version 8).
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import time
from pathlib import Path

from objstore.core.packfile import Pack


def read_cost(store: Path, reads: int) -> str:
    packs = [Pack(p) for p in sorted((store / "objects" / "pack").glob("*.idx"))]
    ids = [(p, o) for p in packs for o in p]
    ts = []
    for p, o in random.Random(7).sample(ids, min(reads, len(ids))):
        p.drop_pages()
        t = time.process_time_ns()
        p.get(o)
        ts.append(time.process_time_ns() - t)
    t = time.process_time()
    for p in packs:
        for _o, _f in p.frames_in_body_order():
            pass
    whole = time.process_time() - t
    return (f"versions {sorted({p.version for p in packs})}: cold random read median {statistics.median(ts) / 1000:.0f} µs, "
            f"mean {statistics.mean(ts) / 1000:.0f} µs; every frame in body order {whole:.2f} s CPU")


def reencode(store: Path, out: Path | None) -> None:
    """Every pack of ``store`` written again as version 8 into ``out`` and
    deleted there once measured; ``out`` None (``--in-place``): into the
    store's own pack folder, the old pack removed (a store of version-8
    packs made from a copy, e.g. for a forget's timing)."""
    from objstore.core.packwriter import PackWriter
    pdir = store / "objects" / "pack"
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    before = after = 0
    for idx in sorted(pdir.glob("*.idx")):
        with Pack(idx) as p:
            if out is None and p.version == 8:
                continue
            b = p.size + p.info().idx_size
            t = time.process_time()
            with PackWriter(pdir if out is None else out, version=8) as w:
                for _o, f in p.frames_in_body_order():
                    w.add(f)
            a = w.info.size + w.info.idx_size
            if out is not None:
                w.info.pack_path.unlink()
                w.info.idx_path.unlink()
        if out is None:
            idx.with_suffix(".pack").unlink()
            idx.unlink()
        before, after = before + b, after + a
        print(f"{idx.name[:13]} v{p.version} {len(p)} objects: {b} -> {a} B ({a - b:+d}), write CPU "
              f"{time.process_time() - t:.1f} s, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} kB",
              flush=True)
    print(f"all packs: {before} -> {after} B ({after - before:+d}, {after / max(1, before):.4f}x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--reencode", type=Path, help="write every pack again as version 8 here (deleted as measured)")
    ap.add_argument("--in-place", action="store_true",
                    help="with no --reencode: write every pack of STORE (a copy) again as version 8 in its own pack "
                         "folder, the old pack removed")
    ap.add_argument("--reads", type=int, default=400)
    a = ap.parse_args()
    if a.reencode or a.in_place:
        reencode(a.store, None if a.in_place else a.reencode)
    print(read_cost(a.store, a.reads))


if __name__ == "__main__":
    main()
