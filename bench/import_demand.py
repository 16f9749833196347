#!/usr/bin/env python3
"""How many cores ``mem import`` could use, over its run: ``python
bench/import_demand.py MEM STORE [--corpus DIR]``.

Runs ``MEM import claude-code CORPUS --json`` (``MEM``: a ``mem`` executable,
e.g. a wrapper putting a tree first on ``sys.path``) into a new store at
``STORE`` (removed first), and every 5 ms counts the threads of the import
and of its parse worker that are runnable (state ``R`` in
``/proc/<pid>/task/<tid>/stat``: running or waiting for a core; a thread
blocked on the GIL, a pipe or a queue is not).  Prints, per tenth of the
run, the mean of min(runnable, 2) (the cores an idle 2-core machine would
keep busy), the share of samples with fewer than two runnable threads and
the threads most often runnable; then the whole run's figures, its wall
time and CPU (the import and its children).  On a loaded machine a thread
waits longer, so the shares compare runs of one sitting, not machines.
Linux only.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import shutil
import subprocess
import sys
import time


def _pids(root: int) -> list[int]:
    out = [root]
    try:
        for tid in os.listdir(f"/proc/{root}/task"):
            with open(f"/proc/{root}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def _runnable(root: int) -> list[str]:
    names = []
    for pid in _pids(root):
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    raw = f.read()
            except OSError:
                continue
            if raw[raw.rindex(")") + 2] == "R":
                names.append(("worker:" if pid != root else "") + raw[raw.index("(") + 1:raw.rindex(")")])
    return names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mem"), ap.add_argument("store")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    a = ap.parse_args()
    shutil.rmtree(a.store, ignore_errors=True)
    t0 = time.perf_counter()
    p = subprocess.Popen([a.mem, "import", "claude-code", a.corpus, "--json"], stdout=subprocess.DEVNULL,
                         env=dict(os.environ, MEM_HOME=a.store))
    samples: list[tuple[float, list[str]]] = []
    while p.poll() is None:
        samples.append((time.perf_counter() - t0, _runnable(p.pid)))
        time.sleep(0.005)
    wall = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    if not samples:
        sys.exit("no sample: the import ended at once")
    for i in range(10):
        part = [s for s in samples if i * wall / 10 <= s[0] < (i + 1) * wall / 10]
        if not part:
            continue
        mean = sum(min(len(n), 2) for _t, n in part) / len(part)
        under = sum(1 for _t, n in part if len(n) < 2) / len(part)
        top = collections.Counter(x for _t, n in part for x in n).most_common(4)
        print(f"{i * 10:3d}-{i * 10 + 10:3d}%  cores {mean:.2f}  <2 runnable {under * 100:5.1f}%  {top}")
    mean = sum(min(len(n), 2) for _t, n in samples) / len(samples)
    under = sum(1 for _t, n in samples if len(n) < 2) / len(samples)
    print(f"wall {wall:.2f} s  cpu {ru.ru_utime + ru.ru_stime:.2f} s  load {os.getloadavg()[0]:.1f}  "
          f"cores {mean:.3f}  <2 runnable {under * 100:.1f}%  samples {len(samples)}")


if __name__ == "__main__":
    main()
