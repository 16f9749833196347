#!/usr/bin/env python3
"""Whole corpus imports in interleaved pairs, the default GIL switch interval against another (imp41, issue 12):

    python bench/switch_interval_pairs.py TREE [--pairs 9] [--interval 0.05] [--corpus /tmp/bench-corpus]

Each pair imports ``--corpus`` into a new store (``/tmp/imp41-sw-store``, removed first) twice in new processes
with the sources of ``TREE``: once as ``mem import claude-code`` runs, once with ``sys.setswitchinterval(INTERVAL)``
before ``cmds`` loads; the order alternates from pair to pair.  Prints per pair the CPU (user + system) of the
process and its reaped parse children (``os.wait4``), the wall time, the store's bytes and the load, and the
difference (interval less default); then the mean and median difference (docs/benchmarks.md, "Session 41
(branch `imp41`)").  Measures; changes nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

HOME = "/tmp/imp41-sw-store"


def one(tree: str, corpus: str, interval: float | None) -> tuple[float, float, int, float]:
    """(CPU s, wall s, store bytes, load) of one import with ``interval`` (None: the default)."""
    shutil.rmtree(HOME, ignore_errors=True)
    code = ("import runpy, sys\n" + (f"sys.setswitchinterval({interval})\n" if interval else "")
            + f"sys.argv = ['mem', '--home', {HOME!r}, 'import', 'claude-code', {corpus!r}]\n"
            + "runpy.run_module('cmds', run_name='__main__')\n")
    t0 = time.time()
    p = subprocess.Popen([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=os.path.abspath(tree)),
                         cwd="/tmp", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, ru = os.wait4(p.pid, 0)
    if status:
        raise SystemExit(f"the import failed (wait status {status})")
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _dirs, fs in os.walk(HOME) for f in fs)
    return ru.ru_utime + ru.ru_stime, time.time() - t0, size, os.getloadavg()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree")
    ap.add_argument("--pairs", type=int, default=9)
    ap.add_argument("--interval", type=float, default=0.05)
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    a = ap.parse_args()
    diffs = []
    for i in range(a.pairs):
        order = [None, a.interval] if i % 2 == 0 else [a.interval, None]
        got = {iv: one(a.tree, a.corpus, iv) for iv in order}
        d, o = got[None], got[a.interval]
        diffs.append(o[0] - d[0])
        print(f"pair {i}: default CPU {d[0]:.2f} s wall {d[1]:.2f} s {d[2]:,} B | {a.interval}: CPU {o[0]:.2f} s "
              f"wall {o[1]:.2f} s {o[2]:,} B | {diffs[-1]:+.2f} s, load {d[3]:.1f}/{o[3]:.1f}", flush=True)
    shutil.rmtree(HOME, ignore_errors=True)
    print(f"lower in {sum(x < 0 for x in diffs)} of {len(diffs)}; mean {statistics.mean(diffs):+.3f} s, "
          f"median {statistics.median(diffs):+.3f} s")


if __name__ == "__main__":
    main()
