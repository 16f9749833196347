#!/usr/bin/env python3
"""CPU of ``mem recall`` and ``mem search`` as new processes on two or more
stores with one source tree, interleaved: ``python bench/recall_stores.py
TREE RUNS STORE...`` (e.g. the same corpus imported by two versions: what
their index layouts cost a search).  Queries: the needles of
``--needles`` (default ``/tmp/bench-corpus/needles.json``), recall scoped to
the needle's project; no resident helper (``MEM_NO_HELPER=1``).  CPU is
user+sys of the child (``os.wait4``); medians of RUNS per store.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree"), ap.add_argument("runs", type=int), ap.add_argument("stores", nargs="+")
    ap.add_argument("--needles", default="/tmp/bench-corpus/needles.json")
    a = ap.parse_args()
    with open(a.needles) as f:
        queries = [(n["query"], n["project"]) for n in json.load(f)]
    env = {**os.environ, "PYTHONPATH": os.path.abspath(a.tree), "MEM_NO_HELPER": "1"}

    def cpu_ms(store: str, args: list[str]) -> float:
        p = subprocess.Popen([sys.executable, "-m", "cmds", *args], env={**env, "MEM_HOME": store},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        if status != 0:
            raise SystemExit(f"{store}: mem {' '.join(args)} failed")
        return (ru.ru_utime + ru.ru_stime) * 1000

    for s in a.stores:  # byte-code caches and page cache warm
        cpu_ms(s, ["recall", queries[0][0], "--project", queries[0][1], "--json"])
    got: dict[tuple[str, str], list[float]] = {(s, k): [] for s in a.stores for k in ("recall", "search")}
    for i in range(a.runs):
        q, p = queries[i % len(queries)]
        for s in (a.stores if i % 2 == 0 else a.stores[::-1]):
            got[(s, "recall")].append(cpu_ms(s, ["recall", q, "--project", p, "--json"]))
            got[(s, "search")].append(cpu_ms(s, ["search", "--json", "-n", "10", q]))
    for (s, k), v in got.items():
        print(f"{k} {s}: CPU median {statistics.median(v):.1f} ms (min {min(v):.1f}, {len(v)} runs)")


if __name__ == "__main__":
    main()
