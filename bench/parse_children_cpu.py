#!/usr/bin/env python3
"""The CPU of an import's parse children, each replayed alone in a new process, as ``ParseWorker``'s
child works (red40, issue 12): ``python bench/parse_children_cpu.py TREE [TREE ...] [--rounds N]
[--corpus DIR] [--children K]``.

For each round and each tree in turn (interleaved; run with ``PYTHONDONTWRITEBYTECODE`` unset, after one
import with each tree so its ``rxcache`` file is written): K new processes with ``PYTHONPATH=TREE``, child k
importing the modules, then running ``parseworker.parse_rows`` with a ``TurnForecast`` over the files
``split_paths(files, K)`` gives it (every ``DIR/**/*.jsonl``, default ``/tmp/bench-corpus``); prints each
child's CPU (user+sys of the process, start-up included) and their sum.  Unlike ``import_split.py``'s
in-process replay, each child starts cold, as in an import: what a child does once (loading the gate
matcher, compiling rules) counts."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

_CHILD = r"""
import glob, resource, sys
from pathlib import Path
from objstore.capture import parseworker
from objstore.capture.transcript import enable_fast_json
from objstore.memory.sessions import TurnForecast
corpus, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
enable_fast_json()   # as the child's _child does
paths = sorted(glob.glob(f"{corpus}/**/*.jsonl", recursive=True))
fc = TurnForecast("claude-code")
for p, c in zip(paths, parseworker.split_paths(paths, n)):
    if c == k:
        for _ in parseworker.parse_rows("objstore.capture.claude_code", Path(p), fc, None, None):
            pass
r = resource.getrusage(resource.RUSAGE_SELF)
print(f"{r.ru_utime + r.ru_stime:.3f}")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--children", type=int, default=2)
    a = ap.parse_args()
    best: dict[str, float] = {}
    for r in range(a.rounds):
        for tree in a.trees:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
            cpu = [float(subprocess.run([sys.executable, "-c", _CHILD, a.corpus, str(k), str(a.children)], env=env,
                                        cwd="/", capture_output=True, text=True, check=True).stdout)
                   for k in range(a.children)]
            best[tree] = min(best.get(tree, float("inf")), sum(cpu))
            print(f"round {r + 1} {tree}: {' + '.join(f'{c:.3f}' for c in cpu)} = {sum(cpu):.3f} s", flush=True)
    for tree, cpu in best.items():
        print(f"min {tree}: {cpu:.3f} s")


if __name__ == "__main__":
    main()
