#!/usr/bin/env python3
"""A burst of ``mem remember`` through the resident helper, as an agent
storing several facts in a row: two (or more) installs in turn (issue 12;
docs/benchmarks.md, "Session 18 (branch `hlp18`)").

Each round, for each ``--tree NAME=MEM:STORE`` in turn: ``--burst`` new
``remember`` processes one right after the other (different keys, nothing
waited for between them), then the wait until every index commit they left
is made (``index-journal.d/`` empty).  Per tree: the wall median and
minimum of one ``remember``, the median of the burst's wall until its last
answer and until its index is committed, and the helper's CPU for the whole
burst, its commits included (``/proc/PID/stat``, all threads, 10 ms ticks;
median).  A store's helper must run (``mem --home STORE helper start``); a
tree is an install laid out as pip would (``bench/run.py``'s
``install_snapshot``).

Usage::

    python bench/helper_burst.py --tree base=/tmp/a/venv/bin/mem:/tmp/a/store \\
        --tree head=/tmp/b/venv/bin/mem:/tmp/b/store --runs 9 --burst 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from helper_ab import helper_pids  # noqa: E402  (bench/helper_ab.py)
from run import _proc_cpu_ms as cpu_of  # noqa: E402  (bench/run.py)
from startup import run  # noqa: E402  (bench/startup.py: one new process, wall and CPU)


def pending(store: str) -> int:
    """Owned journal entries left (index commits not made yet)."""
    try:
        return sum(1 for n in os.listdir(os.path.join(store, "index-journal.d")) if not n.startswith("."))
    except FileNotFoundError:
        return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=MEM:STORE")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--burst", type=int, default=5)
    ap.add_argument("--home", type=Path, default=Path("/tmp/mem-helper-ab-home"))
    args = ap.parse_args(argv)
    trees = [(t.split("=", 1)[0], *t.split("=", 1)[1].split(":", 1)) for t in args.tree]
    args.home.mkdir(parents=True, exist_ok=True)
    pids = helper_pids(trees, "helper_burst")

    def env(store: str) -> dict:
        e = {k: v for k, v in os.environ.items() if not k.startswith("MEM_") and k != "PYTHONPATH"}
        e.update(MEM_HOME=store, HOME=str(args.home))
        return e
    one: dict = {}
    answered: dict = {}
    settled: dict = {}
    cpu: dict = {}
    for i in range(args.runs + 1):   # round 0 warms up
        for name, mem, store in trees:
            c0, t0 = cpu_of(pids[name]), time.perf_counter()
            rows = [run([mem, "remember", f"project/bench/burst-{k}", f"burst value {i} {k} {name}"],
                        env(store), args.home, None) for k in range(args.burst)]
            t1 = time.perf_counter()
            while pending(store) and time.perf_counter() - t1 < 120:
                time.sleep(0.002)
            t2 = time.perf_counter()
            time.sleep(0.05)   # the commit thread's last tick of CPU is counted
            c1 = cpu_of(pids[name])
            if i:
                one.setdefault(name, []).extend(r[0] for r in rows)
                answered.setdefault(name, []).append((t1 - t0) * 1000)
                settled.setdefault(name, []).append((t2 - t0) * 1000)
                cpu.setdefault(name, []).append(c1 - c0)
                if any(r[2] for r in rows):
                    print(f"{name}: exit {sorted({r[2] for r in rows})}", file=sys.stderr)
    print(f"runs {args.runs}, burst {args.burst}, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| tree | one remember: wall median (min) | burst answered | burst indexed | helper CPU per burst |")
    print("|---|---|---|---|---|")
    for name, _mem, _store in trees:
        print(f"| {name} | {statistics.median(one[name]):.1f} ({min(one[name]):.1f}) ms "
              f"| {statistics.median(answered[name]):.0f} ms | {statistics.median(settled[name]):.0f} ms "
              f"| {statistics.median(cpu[name]):.0f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
