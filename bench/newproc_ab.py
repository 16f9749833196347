"""CPU of new ``mem`` processes on two stores, each with its own tree, in turn.

    python bench/newproc_ab.py STORE_A TREE_A STORE_B TREE_B [--runs 9] [-- ARGS ...]

For each command (default: :data:`COMMANDS`: ``forget --match`` dry runs of
three needles, a ``recall`` and a ``search``), runs ``python -m cmds ARGS``
with ``MEM_HOME`` = the store and ``PYTHONPATH`` = the tree, A then B,
``--runs`` times; prints the median user+sys CPU of the child
(``getrusage(RUSAGE_CHILDREN)``) per side in ms, B/A, and whether the last
outputs were byte-identical.  Used for session 17's ``plain_vocab`` format
(docs/benchmarks.md, "Session 17 (branch size17)").
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys

COMMANDS = (("forget", "--match", "visionkit", "--dry-run", "--json"),
            ("forget", "--match", "runn", "--dry-run", "--json"),
            ("forget", "--match", "ing test", "--dry-run", "--json"),
            ("recall", "payment retry"),
            ("search", "running tests"))


def one(store: str, tree: str, args: tuple[str, ...]) -> tuple[float, bytes]:
    """(CPU ms of one new process, its stdout)."""
    env = dict(os.environ, MEM_HOME=store, PYTHONPATH=tree, MEM_AGENT="0", CLAUDECODE="")
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([sys.executable, "-m", "cmds", *args], env=env, cwd="/", capture_output=True, check=False)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000, p.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("store_a")
    ap.add_argument("tree_a")
    ap.add_argument("store_b")
    ap.add_argument("tree_b")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("args", nargs="*", help="one command to time instead of the default ones")
    ns = ap.parse_args()
    commands = (tuple(ns.args),) if ns.args else COMMANDS
    for args in commands:
        a: list[float] = []
        b: list[float] = []
        for _ in range(ns.runs):
            ta, out_a = one(ns.store_a, ns.tree_a, args)
            tb, out_b = one(ns.store_b, ns.tree_b, args)
            a.append(ta)
            b.append(tb)
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"{' '.join(args):45s} A {ma:7.0f} ms  B {mb:7.0f} ms  B/A {mb / ma:.2f}  "
              f"same output: {out_a == out_b}", flush=True)


if __name__ == "__main__":
    main()
