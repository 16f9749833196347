#!/usr/bin/env python3
"""Where a running import's memory peaks: ``VmRSS`` and ``VmHWM`` of the
largest process of a process tree (``/usr/bin/time``'s child, or ``mem``
itself) and the sum of the tree's ``VmRSS`` (the parse children included),
every 0.5 s, beside phase markers read from the store being written: its
packs (the body writes one every ~5 MB; the end pack merge writes fewer,
larger ones and deletes the small ones), temporary files, whether
``cache/turn-meta.z`` exists (written when the import's appender closes,
before its end merges) and the number of entries under ``index/turns``
(the end segment merge adds a generation a shard).  One line a sample into
OUT; ``--summary OUT`` prints the peak, the line where it was reached and
the peak of the tree's sum (issue 12; docs/benchmarks.md, "Session 31
(branch `rss31`)").

Usage::

    MEM_AGENT=0 PYTHONPATH=TREE /usr/bin/time -v python TREE/bin/mem --home NEW import claude-code CORPUS --json &
    python bench/rss_phases.py $! NEW samples.txt      # until the process exits (at most --seconds)
    python bench/rss_phases.py --summary samples.txt
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time

from import_rss import _children  # (bench/import_rss.py: the tree of a process)


def _status(pid: int) -> dict[str, int]:
    d: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM", "Threads", "RssAnon", "RssFile"):
                    d[k] = int(v.split()[0])
    except OSError:
        pass
    return d


def sample(pid: int, store: str) -> str:
    """One line: the time, the largest process's figures (kB), the tree's
    sum and the store's phase markers."""
    tree = [pid]
    i = 0
    while i < len(tree) and i < 64:
        tree += _children(tree[i])
        i += 1
    sts = [_status(p) for p in tree]
    main = max(sts, key=lambda s: s.get("VmRSS", 0))
    total = sum(s.get("VmRSS", 0) for s in sts)
    packs = len(glob.glob(os.path.join(store, "objects", "pack", "*.pack")))
    tmp = len(glob.glob(os.path.join(store, "objects", "pack", "*tmp*"))) + len(glob.glob(os.path.join(store, "tmp", "*")))
    tm = int(os.path.exists(os.path.join(store, "cache", "turn-meta.z")))
    try:
        gens = len(os.listdir(os.path.join(store, "index", "turns")))
    except OSError:
        gens = 0
    return (f"{time.strftime('%H:%M:%S')} sum={total} rss={main.get('VmRSS', 0)} hwm={main.get('VmHWM', 0)} "
            f"anon={main.get('RssAnon', 0)} file={main.get('RssFile', 0)} thr={main.get('Threads', 0)} "
            f"procs={len(tree)} packs={packs} tmp={tmp} tm={tm} gens={gens}")


def summary(path: str) -> str:
    """The peak ``VmHWM`` of a samples file, the first line that shows it,
    and the largest sum of the tree."""
    best = (0, "")
    most = (0, "")
    with open(path) as f:
        for line in f:
            fields = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
            hwm, total = int(fields.get("hwm", 0)), int(fields.get("sum", 0))
            if hwm > best[0]:
                best = (hwm, line.strip())
            if total > most[0]:
                most = (total, line.strip())
    return f"peak VmHWM {best[0]:,} kB first at: {best[1]}\npeak sum of the tree {most[0]:,} kB at: {most[1]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pid", nargs="?", type=int)
    ap.add_argument("store", nargs="?")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--every", type=float, default=0.5, help="seconds between samples")
    ap.add_argument("--seconds", type=float, default=5400, help="stop after this long even if it still runs")
    ap.add_argument("--summary", metavar="OUT", help="print the peak of a samples file and stop")
    args = ap.parse_args(argv)
    if args.summary:
        print(summary(args.summary))
        return 0
    if args.pid is None or args.store is None or args.out is None:
        ap.error("PID, STORE and OUT are needed (or --summary OUT)")
    t0 = time.monotonic()
    with open(args.out, "a", buffering=1) as f:
        while time.monotonic() - t0 < args.seconds and os.path.exists(f"/proc/{args.pid}"):
            f.write(sample(args.pid, args.store) + "\n")
            time.sleep(args.every)
    return 0


if __name__ == "__main__":
    sys.exit(main())
