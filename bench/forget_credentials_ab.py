"""A/B of ``mem forget --credentials --yes`` CPU between two source trees on
one store (session 24, lane mend24: the run now walks the store for reflog
entries that keep a forgotten object through their parents), as real
processes, interleaved, children's CPU (user + sys), medians of ``--rounds``.

    PYTHONPATH=. python bench/forget_credentials_ab.py --store /tmp/mend24-store \\
        --tree base=/tmp/mend24-base --tree branch=. --rounds 5

The store: ``mem import claude-code /tmp/bench-corpus``.  One settling run
first (it redacts what today's rules find), so every measured run has
nothing left to redact and ends with the reflog check, as a second run does.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys


def cpu(tree: str, store: str) -> float:
    """Children's CPU seconds (user + sys) of one ``mem forget --credentials --yes`` run from ``tree``."""
    env = {**os.environ, "MEM_HOME": store, "MEM_NO_HELPER": "1", "MEM_AGENT": "0", "PYTHONPATH": tree}
    env.pop("CLAUDECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "cmds", "forget", "--credentials", "--yes"], cwd=tree, check=True,
                   capture_output=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", required=True)
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=PATH")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    trees = dict(t.split("=", 1) for t in a.tree)
    cpu(next(iter(trees.values())), a.store)   # settle
    got: dict[str, list[float]] = {k: [] for k in trees}
    for _ in range(a.rounds):
        for name, path in trees.items():
            got[name].append(cpu(os.path.abspath(path), a.store))
    med = {k: statistics.median(v) for k, v in got.items()}
    for k, v in med.items():
        print(f"{k:10} median CPU {v:6.2f} s  ({', '.join(f'{x:.2f}' for x in got[k])})")
    names = list(trees)
    if len(names) == 2:
        print(f"ratio {names[1]} / {names[0]}: {med[names[1]] / med[names[0]]:.2f}")


if __name__ == "__main__":
    main()
