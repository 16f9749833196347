#!/usr/bin/env python3
"""Two files made durable one after the other, or in two threads at once
(docs/benchmarks.md, "Session 18 (branch `hlp18`)"): each a temporary file
written, fsynced, renamed into its own directory, the directory fsynced, as
a loose object and an owned journal entry are.  Prints the medians of
``--runs`` pairs, the two ways interleaved.

Usage::

    python bench/fsync_overlap.py --dir /tmp/fsync-overlap --runs 40
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from pathlib import Path


def durable(d: Path, name: str) -> None:
    tmp, dst = d / f".{name}.tmp", d / name
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, b"x" * 200)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.rename(tmp, dst)
    dfd = os.open(d, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, default=Path("/tmp/fsync-overlap"))
    ap.add_argument("--runs", type=int, default=40)
    args = ap.parse_args()
    a, b = args.dir / "a", args.dir / "b"
    a.mkdir(parents=True, exist_ok=True)
    b.mkdir(parents=True, exist_ok=True)
    seq, par = [], []
    for i in range(args.runs):
        t = time.perf_counter()
        durable(a, f"s{i}")
        durable(b, f"s{i}")
        seq.append(time.perf_counter() - t)
        t = time.perf_counter()
        th = threading.Thread(target=durable, args=(a, f"p{i}"))
        th.start()
        durable(b, f"p{i}")
        th.join()
        par.append(time.perf_counter() - t)
    print(f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}: one after the other "
          f"{statistics.median(seq) * 1e3:.2f} ms, in two threads {statistics.median(par) * 1e3:.2f} ms "
          f"(medians of {args.runs})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
