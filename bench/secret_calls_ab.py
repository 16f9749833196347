#!/usr/bin/env python3
"""What pairing a secret-printing call with its result costs the Claude Code
reader: ``python bench/secret_calls_ab.py BASE_TREE [TREE] [--corpus DIR] [--runs N]``.

Runs ``claude_code.parse_file`` over every transcript of ``--corpus``
(default ``/tmp/bench-corpus``) in a fresh child process per tree and run,
the trees interleaved (BASE, TREE, BASE, ...), and prints each tree's median
CPU (``time.process_time`` of the parse, in the child), the turn count, the
results stored as ``[REDACTED:sealed-value]`` (``transcript.prints_secret``,
docs/hooks.md) and the ratio TREE / BASE (docs/benchmarks.md, "Session 18
(branch `sealed18`)").
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

CHILD = r'''
import sys, time
from objstore.capture import claude_code
from objstore.capture.transcript import ParseStats
files = sorted(claude_code.discover([sys.argv[1]]))
t = time.process_time()
turns = [ct.text for f in files for ct in claude_code.parse_file(f, ParseStats())]
cpu = time.process_time() - t
print(cpu, len(turns), sum(1 for x in turns if x == "[REDACTED:sealed-value]"))
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("tree", nargs="?", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--runs", type=int, default=9)
    a = ap.parse_args()
    trees = {"base": os.path.abspath(a.base), "tree": os.path.abspath(a.tree)}
    cpu: dict[str, list[float]] = {k: [] for k in trees}
    counts: dict[str, tuple[str, str]] = {}
    for _ in range(a.runs):
        for name, tree in trees.items():
            out = subprocess.run([sys.executable, "-c", CHILD, a.corpus], capture_output=True, text=True,
                                 check=True, cwd=tree, env={**os.environ, "PYTHONPATH": tree}).stdout.split()
            cpu[name].append(float(out[0]))
            counts[name] = (out[1], out[2])
    for name in trees:
        print(f"{name}: median CPU {statistics.median(cpu[name]):.3f} s, turns {counts[name][0]}, "
              f"withheld results {counts[name][1]}")
    print(f"ratio tree/base {statistics.median(cpu['tree']) / statistics.median(cpu['base']):.3f} "
          f"({a.runs} runs each, interleaved; load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
