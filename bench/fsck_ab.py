"""CPU of ``mem fsck`` on one store, tree A against tree B, as real
processes, interleaved, children's CPU (user + sys), medians of ``--rounds``
(session 22, lane fgp22: fsck's check for reflog entries naming what a
tombstone forgets, test22 X2, costs one more pass over the reflogs and a
tombstone check per id they name).

    MEM_HOME=/tmp/fgp22-bstore python bench/fsck_ab.py --tree base=/tmp/fgp22-base --tree branch=. --rounds 9

The store: ``mem import claude-code /tmp/bench-corpus`` (bench/gen_corpus.py).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys


def cpu(tree: str, args: list[str]) -> float:
    """Children's CPU seconds (user + sys) of one ``mem`` process run from ``tree``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([sys.executable, "-m", "cmds", *args], check=False, capture_output=True, cwd=tree,
                       env={**os.environ, "MEM_NO_HELPER": "1", "PYTHONPATH": os.path.abspath(tree)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{tree}: mem {' '.join(args)} exited {p.returncode}: {p.stdout[-300:]!r} {p.stderr[-300:]!r}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH of a source tree")
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args()
    trees = dict(t.split("=", 1) for t in a.tree)
    got: dict[str, list[float]] = {k: [] for k in trees}
    for _ in range(a.rounds):
        for name, path in trees.items():
            got[name].append(cpu(path, ["fsck"]))
    med = {k: statistics.median(v) for k, v in got.items()}
    for k, v in med.items():
        print(f"{k:10} mem fsck median CPU {v:6.3f} s")
    names = list(trees)
    if len(names) == 2:
        print(f"ratio {names[1]} / {names[0]}: {med[names[1]] / med[names[0]]:.3f}")


if __name__ == "__main__":
    main()
