#!/usr/bin/env python3
"""``mem remember`` as new processes in ``bench/run.py --helper``'s order,
two (or more) installs in turn (issue 12; docs/benchmarks.md, "Session 17
(branch `lat17`)").

``measure_helper`` runs the same command without the helper
(``MEM_NO_HELPER=1``) and with it, alternating which goes first
(``interleaved``), so every sample starts right after a write of the other
kind: a plain one's index commit runs in its detached child, a helper
one's in the helper after its answer.  Here each round ``i`` runs, for each
``--tree NAME=MEM:STORE`` in turn, without then with (``i`` even) or with
then without (``i`` odd), and nothing is waited for between samples.  A
store's helper must run (``mem --home STORE helper start``); a tree is an
install laid out as pip would (``bench/run.py``'s ``install_snapshot``).
Prints per tree and kind the wall median and minimum and the client CPU
median (``os.wait4``).

Usage::

    python bench/remember_order.py --tree base=/tmp/a/venv/bin/mem:/tmp/a/store \\
        --tree head=/tmp/b/venv/bin/mem:/tmp/b/store --runs 10
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import run  # noqa: E402  (bench/startup.py: one new process, wall and CPU)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=MEM:STORE")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--home", type=Path, default=Path("/tmp/mem-helper-ab-home"))
    ap.add_argument("--block", type=int, default=1,
                    help="rounds a tree runs in a row before the next tree's turn (2: exactly measure_helper's "
                         "order within a tree, where half the helper samples follow a helper remember)")
    args = ap.parse_args(argv)
    trees = [(t.split("=", 1)[0], *t.split("=", 1)[1].split(":", 1)) for t in args.tree]
    args.home.mkdir(parents=True, exist_ok=True)

    def env(store: str, helper: bool) -> dict:
        e = {k: v for k, v in os.environ.items() if not k.startswith("MEM_") and k != "PYTHONPATH"}
        e.update(MEM_HOME=store, HOME=str(args.home))
        if not helper:
            e["MEM_NO_HELPER"] = "1"
        return e
    res: dict = {}
    prev: dict = {}
    block = max(1, args.block)
    for b in range(0, args.runs + 1, block):   # round 0 warms up
        for name, mem, store in trees:
            for i in range(b, min(b + block, args.runs + 1)):
                for kind in (("without", "with") if i % 2 == 0 else ("with", "without")):
                    r = run([mem, "remember", "project/bench/api-port", f"api listens on {i} {kind} {name}"],
                            env(store, kind == "with"), args.home, None)
                    if i:
                        res.setdefault((name, kind), []).append(r)
                        if kind == "with":   # split by what ran right before it (in this tree)
                            res.setdefault((name, f"with, after {prev.get(name, '-')}"), []).append(r)
                    prev[name] = kind
    print(f"runs {args.runs}, block {block}, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| tree | helper | wall median (min) | client CPU median |")
    print("|---|---|---|---|")
    for (name, kind), rows in res.items():
        codes = sorted({r[2] for r in rows})
        print(f"| {name} | {kind} | {statistics.median(r[0] for r in rows):.1f} ({min(r[0] for r in rows):.1f}) ms "
              f"| {statistics.median(r[1] for r in rows):.1f} ms |" + ("" if codes == [0] else f" exit {codes}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
