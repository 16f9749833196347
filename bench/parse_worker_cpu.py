#!/usr/bin/env python3
"""CPU of the import's parse worker, in process, per source tree, interleaved:
``python bench/parse_worker_cpu.py TREE [TREE ...] [--corpus DIR] [--runs N]``.

For each tree (a checkout or a ``git archive`` of a commit), in turn, ``--runs``
times: a new Python process with that tree first on ``sys.path`` does what the
import's child (``objstore.capture.parseworker``) does for every transcript of
``--corpus`` (default ``/tmp/bench-corpus``, ``bench/gen_corpus.py``): parse,
redact, forecast (``sessions.TurnForecast``) and pickle the messages, with
``hashlib`` loaded as in the child.  Prints the load average, the process's
CPU seconds and wall time, the bytes pickled and a SHA-256 of them (the same
digest for two trees: the same rows, redactions and forecasts).  Compare CPU,
not wall time, on a shared machine (docs/benchmarks.md, "Session 9 (branch
`imp9`)").  ``--spy DIR`` samples each child with py-spy and lists, per tree,
the functions with the most samples on their stack over all its runs (docs/benchmarks.md,
"Session 26 (branch `imp26`)").  ``--children N`` splits the files as the import's
``ParseWorkers`` of that tree would for N children (``parseworker.split_paths`` where the tree
has it, else the files taken in turn) and runs each part in its own process, one after the
other: the CPU summed over the parts, each part's on the line (docs/benchmarks.md, "Session 27
(branch `imp27`)"); the digest is then of the parts' messages in turn.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import sys

CHILD = r"""
import hashlib, os, pickle, sys, time
from pathlib import Path
sys.path.insert(0, os.path.abspath(sys.argv[1]))
from objstore.capture import claude_code
from objstore.capture.parseworker import parse_rows, project_guesser
from objstore.capture.transcript import enable_fast_json
from objstore.memory.sessions import TurnForecast
enable_fast_json()
files = list(claude_code.discover([sys.argv[2]]))
if len(sys.argv) > 3:                   # one child's part of N: k/N
    k, of = map(int, sys.argv[3].split("/"))
    try:
        from objstore.capture.parseworker import split_paths
    except ImportError:                 # a tree before session 27: the files taken in turn
        files = files[k::of]
    else:
        files = [f for f, c in zip(files, split_paths(files, of, getattr(claude_code, "tree_key", None))) if c == k]
h, n = hashlib.sha256(), 0
t0, c0 = time.perf_counter(), time.process_time()
fc, guess = TurnForecast("claude-code"), project_guesser({})
for p in files:
    for msg in parse_rows("objstore.capture.claude_code", p, fc, guess):
        b = pickle.dumps(msg, protocol=5)
        n += len(b)
        h.update(b)
print(f"cpu {time.process_time() - c0:.2f} s  wall {time.perf_counter() - t0:.2f} s  "
      f"pickled {n / 1e6:.1f} MB  sha256 {h.hexdigest()[:16]}  files {len(files)}")
"""


def run_in_turn(child: str, description: str, default_runs: int, parts: bool = False) -> None:
    """Run the script ``child`` (argv: TREE CORPUS) once per tree per run, the trees in turn,
    printing each child's one line with the load average; ``bench/tantivy_doc_cpu.py`` shares it.
    ``parts``: the ``--children N`` option, ``child`` run N times per tree and run with a third
    argument ``k/N`` (the part), its CPU summed."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--runs", type=int, default=default_runs)
    ap.add_argument("--spy", metavar="DIR", help="sample each child with py-spy (250 Hz, on PATH or beside this "
                    "Python): its raw stacks to DIR/run<i>-tree<j>.txt, and each tree's functions with the most "
                    "samples on their stack (imp26)")
    ap.add_argument("--spy-top", type=int, default=25, help="functions listed per tree with --spy (default 25)")
    if parts:
        ap.add_argument("--children", type=int, default=0, help="split the files as the import's N children "
                        "would and run each part in its own process, the CPU summed (imp27)")
    a = ap.parse_args()
    n_parts = getattr(a, "children", 0)
    spy = []
    if a.spy:
        os.makedirs(a.spy, exist_ok=True)
        spy = [shutil.which("py-spy") or os.path.join(os.path.dirname(sys.executable), "py-spy"),
               "record", "-r", "250", "-f", "raw", "-o"]
    stacks: dict[str, collections.Counter] = {t: collections.Counter() for t in a.trees}
    for i in range(a.runs):
        for j, tree in enumerate(a.trees):
            load = open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"
            raw = os.path.join(a.spy, f"run{i + 1}-tree{j + 1}.txt") if spy else ""
            cmd = [*spy, raw, "--"] if spy else []
            lines = []
            for part in ([f"{k}/{n_parts}" for k in range(n_parts)] if n_parts else [None]):
                out = subprocess.run([*cmd, sys.executable, "-c", child, tree, a.corpus, *([part] if part else [])],
                                     capture_output=True, text=True, check=True).stdout.strip().splitlines()
                lines.append([x for x in out if x.strip() and not x.startswith("py-spy>")][-1])  # py-spy writes to stdout too
            if len(lines) == 1:
                out = lines[0]
            else:
                total = sum(float(x.split()[1]) for x in lines)
                out = f"cpu summed {total:.2f} s  parts: " + " | ".join(lines)
            print(f"run {i + 1}  {tree}  load {load}  {out}", flush=True)
            if spy:
                _count_stacks(raw, stacks[tree])
    for tree, c in stacks.items():
        if c:
            print(f"\n{tree}: {c['']} samples; functions by samples on their stack (share of all)")
            for name, k in c.most_common(a.spy_top + 1)[1:]:
                print(f"  {k:7d}  {k / c[''] * 100:5.1f} %  {name}")


def _count_stacks(path: str, into: collections.Counter) -> None:
    """Add each function's samples (a function counted once per stack) from py-spy's raw
    output ``path`` (``frame;frame;... count`` lines) to ``into``; ``into['']``: all samples."""
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            into[""] += int(n)
            for name in {fr.split(" (")[0] for fr in stack.split(";")}:
                into[name] += int(n)


def main() -> None:
    run_in_turn(CHILD, __doc__.splitlines()[0], 3, parts=True)


if __name__ == "__main__":
    main()
