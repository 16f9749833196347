#!/usr/bin/env python3
"""CPU of listing every key's chain (``facts.key_chains``: what ``mem keys``
does) in two source trees, interleaved, on one store: the cost of the
per-key seal check ``served.sealed_plain`` (session 24, test24b U1).

Usage::

    python bench/sealed_check_cost.py --store /tmp/sealb24-store --tree base=/tmp/base --tree branch=. --rounds 5

A store of many keys: ``--make N`` first writes N keys in 20 projects with
``facts.remember`` (one process) into an empty ``--store``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

MAKE = """
import sys
from objstore.memory.opening import open_store
from objstore.memory.facts import remember
st = open_store(sys.argv[1], create=True)
for i in range(int(sys.argv[2])):
    remember(st, f"project/p{i % 20}/k{i}", f"setting {i} of the api port and database host is value{i}")
st.close()
"""
TIME = """
import sys, time
from objstore.memory.opening import open_store
from objstore.memory.facts import key_chains
st = open_store(sys.argv[1])
list(key_chains(st))
t0 = time.process_time()
for _ in range(5):
    list(key_chains(st))
print((time.process_time() - t0) / 5 * 1000)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=PATH")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--make", type=int, default=0, metavar="N")
    a = ap.parse_args()
    trees = dict(t.split("=", 1) for t in a.tree)
    if a.make:
        subprocess.run([sys.executable, "-c", MAKE, str(a.store), str(a.make)], check=True,
                       cwd=next(iter(trees.values())))
    ms: dict[str, list[float]] = {n: [] for n in trees}
    for _ in range(a.rounds):
        for name, path in trees.items():   # cwd first on sys.path: that tree's objstore
            out = subprocess.run([sys.executable, "-c", TIME, str(a.store)], cwd=path, check=True,
                                 capture_output=True, text=True).stdout
            ms[name].append(float(out))
    for name, v in ms.items():
        print(f"{name}: key_chains CPU median {statistics.median(v):.1f} ms (min {min(v):.1f}) over {a.rounds} rounds")


if __name__ == "__main__":
    main()
