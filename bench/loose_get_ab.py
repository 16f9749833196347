#!/usr/bin/env python3
"""CPU time of reading loose objects (``Store.read_frame``, the read under
``Store.get``: a pack index miss, then ``LooseObjects.get``), one source
tree against another, interleaved (docs/benchmarks.md, "Session 18 (branch
`dmg18`)": the object read's ``read_regular``, test18 U12).  Builds one store
of ``--objects`` loose objects (frames of 200..1,200 bytes, compressed as
``mem`` stores them), then for each of ``--rounds`` rounds runs one child
process per tree that reads every object ``--passes`` times; prints the
median CPU microseconds per read of each tree and their ratio.

Usage::

    python bench/loose_get_ab.py --dir /tmp/loose-get --objects 2000 --rounds 11 \\
        --tree base=/tmp/dmg18-base --tree new=.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import sys, time
from objstore.memory.opening import open_store
s = open_store(sys.argv[1])
ids = [l for l in open(sys.argv[2]).read().split()]
passes = int(sys.argv[3])
for oid in ids[:50]:   # warm the pack set and the code paths
    s.read_frame(oid)
t = time.process_time()
for _ in range(passes):
    for oid in ids:
        s.read_frame(oid)
print((time.process_time() - t) / (passes * len(ids)) * 1e6)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, required=True)
    ap.add_argument("--objects", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH of a source tree (twice or more)")
    a = ap.parse_args()
    trees = [t.split("=", 1) for t in a.tree]
    shutil.rmtree(a.dir, ignore_errors=True)
    a.dir.mkdir(parents=True)
    store, ids_file = a.dir / "store", a.dir / "ids"
    setup = (r"import sys, random; from objstore.memory.opening import open_store; "
             r"s = open_store(sys.argv[1], create=True); rnd = random.Random(18); "
             r"print('\n'.join(s.objects.put(rnd.randbytes(rnd.randint(100, 600)) * 2) "
             r"for _ in range(int(sys.argv[2])))); s.close()")
    env = dict(os.environ, PYTHONPATH=os.path.abspath(trees[0][1]), MEM_NO_HELPER="1")
    ids_file.write_text(subprocess.run([sys.executable, "-c", setup, str(store), str(a.objects)], env=env,
                                       check=True, capture_output=True, text=True).stdout)
    got: dict[str, list[float]] = {name: [] for name, _p in trees}
    for r in range(a.rounds):
        order = trees if r % 2 == 0 else trees[::-1]
        for name, path in order:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(path), MEM_NO_HELPER="1")
            out = subprocess.run([sys.executable, "-c", CHILD, str(store), str(ids_file), str(a.passes)],
                                 env=env, check=True, capture_output=True, text=True).stdout
            got[name].append(float(out))
    med = {name: statistics.median(v) for name, v in got.items()}
    for name, m in med.items():
        print(f"{name}: median {m:.2f} us CPU per loose read ({len(got[name])} runs, "
              f"min {min(got[name]):.2f}, max {max(got[name]):.2f})")
    first = trees[0][0]
    for name, m in med.items():
        if name != first:
            print(f"{name}/{first}: {m / med[first]:.3f}")


if __name__ == "__main__":
    main()
