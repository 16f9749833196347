#!/usr/bin/env python3
"""The import's session rules' ``normalized_map`` (``sealrules.withhold_sealed_values`` maps every
later turn of a session whose earlier turns stated a credential), A/B:

    python bench/session_rules_map.py collect TREE STORE OUT.pkl [--corpus DIR]
    python bench/session_rules_map.py time OUT.pkl TREE [TREE ...] [--rounds N] [--reps N]

``collect`` imports ``--corpus`` (default ``/tmp/bench-corpus``) in this process with the sources of
``TREE`` into ``STORE`` (its ``MEM_HOME``, removed first) and prints the main thread's CPU in
``withhold_sealed_values`` and in its ``normalized_map`` (calls, characters), the process's and the
children's CPU; it writes every text mapped there to ``OUT.pkl``.  ``time`` maps those texts with
each ``TREE``'s ``normalized_map`` in a new process per tree and round (trees in turn, ``--rounds``
rounds): the best CPU of ``--reps`` passes and a digest of every answer (the same for equal answers).
Run it with ``PYTHONDONTWRITEBYTECODE`` unset.  docs/benchmarks.md, "Session 36 (branch `imp36`)".
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import os
import pickle
import resource
import shutil
import subprocess
import sys
import time

_TIMER = r"""
import hashlib, pickle, sys, time
sys.path.insert(0, sys.argv[1])
from objstore.core.text import normalized_map
texts = pickle.load(open(sys.argv[2], "rb"))
best = 1e9
for _ in range(int(sys.argv[3])):
    t0 = time.process_time()
    out = [normalized_map(t) for t in texts]
    best = min(best, time.process_time() - t0)
print(f"{best:.4f} {hashlib.blake2b(repr(out).encode(), digest_size=8).hexdigest()}")
"""


def collect(tree: str, store: str, out: str, corpus: str) -> None:
    sys.path.insert(0, tree)
    import objstore.memory.sealrules as sr
    acc: collections.Counter = collections.Counter()
    texts: list[str] = []

    def wrap(attr: str) -> None:
        f = getattr(sr, attr)

        def g(*a, **k):
            t = time.thread_time()
            r = f(*a, **k)
            acc[attr] += time.thread_time() - t
            if attr == "normalized_map":
                acc["calls"] += 1
                acc["chars"] += len(a[0])
                texts.append(a[0])
            return r
        setattr(sr, attr, g)
    wrap("normalized_map")
    wrap("withhold_sealed_values")
    shutil.rmtree(store, ignore_errors=True)
    os.makedirs(store)
    os.environ.update(MEM_HOME=store, MEM_AGENT="0")
    sys.argv = ["mem", "import", "claude-code", corpus, "--json"]
    from cmds.entry import entry
    c0 = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        entry()
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"tree {tree} load {os.getloadavg()[0]:.1f}: withhold_sealed_values {acc['withhold_sealed_values']:.3f} s, "
          f"of it normalized_map {acc['normalized_map']:.3f} s ({acc['calls']} calls, {acc['chars']} characters); "
          f"process {time.process_time() - c0:.2f} s, children {ch.ru_utime + ch.ru_stime:.2f} s")
    with open(out, "wb") as f:
        pickle.dump(texts, f)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("tree")
    c.add_argument("store")
    c.add_argument("out")
    c.add_argument("--corpus", default="/tmp/bench-corpus")
    t = sub.add_parser("time")
    t.add_argument("texts")
    t.add_argument("trees", nargs="+")
    t.add_argument("--rounds", type=int, default=3)
    t.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    if a.cmd == "collect":
        collect(a.tree, a.store, a.out, a.corpus)
        return 0
    for r in range(a.rounds):
        for tree in a.trees:
            got = subprocess.run([sys.executable, "-c", _TIMER, tree, a.texts, str(a.reps)],
                                 capture_output=True, text=True, check=True).stdout.split()
            print(f"round {r + 1} {tree}: best {got[0]} s, digest {got[1]}, load {os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
