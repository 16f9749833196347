#!/usr/bin/env python3
"""The resident helper's ``remember`` up to its answer, in process, two (or
more) source trees in turn (issue 12; docs/benchmarks.md, "Session 18
(branch `hlp18`)").

Each ``--tree NAME=SRC:STORE`` is a checkout (``git archive`` of a commit)
and a store of its own.  Each round runs, for each tree in turn, a child
Python whose ``sys.path`` starts with ``SRC``: it imports what the helper
imports, opens the index generations (``cmds._helperserve.warm``), then
makes ``--writes`` ``remember``\\ s as the helper makes them (``cmds.lean.main``
with ``cmds._hookrun.DEFERRED`` set: the answer once the version, its owned
journal entry, ref and reflog are durable) and, after each answer, the work
the helper does after it, 0.2 s apart.  Per write: the wall and the calling
thread's CPU to the answer, and the wall spent in ``os.fsync`` (all
threads; overlapping calls count twice).  Prints the medians per tree over
all rounds.

Usage::

    python bench/remember_answer.py --tree base=/tmp/base:/tmp/a/store --tree head=/tmp/head:/tmp/b/store \\
        --runs 5 --writes 11
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import io, json, os, sys, time
src, store, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, src)
os.environ["MEM_HOME"] = store
from cmds import _hookrun, lean
from cmds._helperserve import warm
import objstore
objstore.keep_generations_open()
warm(store)
spent = [0.0]
real_fsync = os.fsync
def fsync(fd):
    t = time.perf_counter()
    try:
        return real_fsync(fd)
    finally:
        spent[0] += time.perf_counter() - t
os.fsync = fsync
rows = []
for i in range(n):
    _hookrun.DEFERRED = jobs = []
    spent[0] = 0.0
    out, sys.stdout = sys.stdout, io.StringIO()
    t0, c0 = time.perf_counter(), time.thread_time()
    rc = lean.main(["remember", "project/bench/answer", f"answer {os.getpid()} {i}"])
    t1, c1 = time.perf_counter(), time.thread_time()
    f = spent[0]
    for job in jobs:
        job()
    sys.stdout = out
    rows.append([(t1 - t0) * 1e3, (c1 - c0) * 1e3, f * 1e3, rc])
    time.sleep(0.2)
print(json.dumps(rows))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=SRC:STORE")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--writes", type=int, default=11)
    args = ap.parse_args(argv)
    trees = [(t.split("=", 1)[0], *t.split("=", 1)[1].split(":", 1)) for t in args.tree]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_") and k != "PYTHONPATH"}
    res: dict = {}
    for _ in range(args.runs):
        for name, src, store in trees:
            p = subprocess.run([sys.executable, "-c", CHILD, src, store, str(args.writes)], env=env,
                               capture_output=True, text=True, check=True)
            rows = json.loads(p.stdout.strip().splitlines()[-1])
            if any(r[3] for r in rows):
                print(f"{name}: exit {sorted({r[3] for r in rows})}", file=sys.stderr)
            res.setdefault(name, []).extend(rows[1:])   # the first write of a process warms up
    print(f"runs {args.runs} x {args.writes} writes, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| tree | to the answer: wall median (min) | CPU median | in fsync (wall, all threads) |")
    print("|---|---|---|---|")
    for name, _src, _store in trees:
        rows = res[name]
        print(f"| {name} | {statistics.median(r[0] for r in rows):.1f} ({min(r[0] for r in rows):.1f}) ms "
              f"| {statistics.median(r[1] for r in rows):.1f} ms | {statistics.median(r[2] for r in rows):.1f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
