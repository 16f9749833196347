#!/usr/bin/env python3
"""Memory and CPU of the version-8 writer's line pass (``packlines.LinePass``,
the tree's own) over the frames of a store's largest pack (issue 12: the
1M-turn import's peak RSS; docs/benchmarks.md, "Session 33 (branch
`scale33`)").

Reads every frame of STORE's largest pack in body order, cuts them into
blocks as the writer does (``BLOCK_BYTES`` or ``BLOCK_OBJECTS``), then runs
the pass over every block (``strip``, then the chunk blocks it has ready):
``--rounds`` times untraced for ``cpu_s`` (``time.process_time``, each
round), once under ``tracemalloc`` for ``held`` (bytes the pass still holds
at the pack's end: its line map and chunk text, until the writer drops it)
and ``peak``; ``lines`` the keys in its map, ``chunks`` and their bytes;
``digest`` a SHA-256 prefix of every stripped frame, reference area and
chunk block the pass gave (two trees giving the same digest write the same
pack bytes).  Nothing is written to STORE.

Usage (a tree is a source checkout or ``git archive``)::

    PYTHONPATH=TREE python bench/line_map_mem.py STORE [--rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import time
import tracemalloc
from pathlib import Path

from objstore.core.packformat import BLOCK_BYTES, BLOCK_OBJECTS
from objstore.core.packlines import LinePass
from objstore.core.store import Store


def blocks_of(store: Path) -> tuple[int, list[list[bytes]]]:
    """(objects, the blocks of frames) of the largest pack of ``store``."""
    pack = max(Store(store).packs.packs, key=len)
    blocks: list[list[bytes]] = [[]]
    size = 0
    for _oid, f in pack.frames_in_body_order():
        blocks[-1].append(f)
        size += len(f)
        if size >= BLOCK_BYTES or len(blocks[-1]) >= BLOCK_OBJECTS:
            blocks.append([])
            size = 0
    return len(pack), [b for b in blocks if b]


def run(blocks: list[list[bytes]], h=None) -> LinePass:
    lp = LinePass()
    for b in blocks:
        frames, area = lp.strip(b)
        if h is not None:
            h.update(b"".join(frames))
            h.update(area)
        for _first, c in lp.chunk_blocks():
            if h is not None:
                h.update(c)
    for _first, c in lp.chunk_blocks(final=True):
        if h is not None:
            h.update(c)
    return lp


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    objects, blocks = blocks_of(args.store)
    cpu = []
    for _ in range(args.rounds):
        t = time.process_time()
        run(blocks)
        cpu.append(round(time.process_time() - t, 3))
    tracemalloc.start()
    lp = run(blocks)
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del lp
    h = hashlib.sha256()
    lp = run(blocks, h)
    lines = getattr(lp, "_used", None)
    print(f"objects {objects} blocks {len(blocks)} cpu_s {cpu} held {held:,} peak {peak:,} "
          f"lines {lines if lines is not None else len(getattr(lp, '_seen', ()))} chunks {len(lp.table)} "
          f"chunk_bytes {sum(len(c) + 1 for c in lp.table):,} digest {h.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
