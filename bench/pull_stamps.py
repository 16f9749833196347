"""CPU of ``mem pull`` from an unchanged folder remote in two source trees,
each on its own copy of the store (their stamps differ), interleaved,
medians of ``--rounds`` after one warm-up each (docs/benchmarks.md,
"Session 16 (branch `fix16b`)").

    python bench/pull_stamps.py OLD_TREE OLD_STORE NEW_TREE NEW_STORE [--rounds 9]"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("old_tree")
    ap.add_argument("old_store")
    ap.add_argument("new_tree")
    ap.add_argument("new_store")
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args()
    trees = {"old": (a.old_tree, a.old_store), "new": (a.new_tree, a.new_store)}

    def cpu(t: str) -> float:
        src, store = trees[t]
        env = {**os.environ, "MEM_HOME": store, "MEM_NO_HELPER": "1", "PYTHONPATH": src}
        b = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "cmds", "pull"], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        e = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (e.ru_utime + e.ru_stime) - (b.ru_utime + b.ru_stime)

    for t in trees:
        cpu(t)
    res: dict[str, list[float]] = {t: [] for t in trees}
    for _ in range(a.rounds):
        for t in trees:
            res[t].append(cpu(t))
    m = {t: statistics.median(v) for t, v in res.items()}
    for t, v in m.items():
        print(f"{t}: median CPU {v:.3f} s")
    print(f"new/old: {m['new'] / m['old']:.3f}")


if __name__ == "__main__":
    main()
