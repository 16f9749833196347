#!/usr/bin/env python3
"""The import's session rules as its turn writer runs them (``sessionrules.SessionValues.apply``, one call per
turn), collected once and replayed across source trees, without a profiler (idx44: cProfile charged imp43's
``apply`` 3.2 s, mostly its per-window C calls)::

    python bench/session_values_ab.py collect TREE HOME OUT.pkl [--corpus DIR]
    python bench/session_values_ab.py time OUT.pkl TREE [TREE ...] [--rounds N]

``collect`` imports ``--corpus`` (default ``/tmp/bench-corpus``) in this process with the sources of ``TREE``
into a new store at ``HOME`` (removed first) and pickles every ``apply`` call's arguments, in order.  ``time``
replays them, for each tree in turn (order alternating by round) and ``--rounds`` times, in a new process
with a new ``SessionValues`` on a new store (its session-rules file written as the import writes it) and
prints the replay's CPU (best of 3 passes, each on its own new store), the load and a digest of the answers
(equal digests: the same texts and counts).  Run it with ``PYTHONDONTWRITEBYTECODE`` unset.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import subprocess
import sys
import tempfile
import time


def collect(tree: str, home: str, out: str, corpus: str) -> None:
    sys.path.insert(0, os.path.abspath(tree))
    from objstore.memory.sessionrules import SessionValues
    calls = []
    f0 = SessionValues.apply

    def spy(self, *args, **kwargs):
        calls.append((args, kwargs))
        return f0(self, *args, **kwargs)
    SessionValues.apply = spy
    from import_withhold import import_and_keep   # (bench/ is this script's folder: on sys.path)
    import_and_keep(home, corpus, calls, out)
    print(f"{len(calls)} calls, {sum(len(a[1]) for a, _k in calls):,} characters -> {out}")


def child(tree: str, pkl: str) -> None:
    sys.path.insert(0, os.path.abspath(tree))
    from pathlib import Path

    from objstore.memory.opening import open_store
    from objstore.memory.sessionrules import SessionValues
    with open(pkl, "rb") as f:
        calls = pickle.load(f)
    best, out = 1e9, None
    for _ in range(3):
        with tempfile.TemporaryDirectory(prefix="idx44-sv-") as d:
            store = open_store(Path(d) / "store", create=True)
            sv = SessionValues(store)
            t = time.process_time()
            out = [sv.apply(*a, **k) for a, k in calls]
            best = min(best, time.process_time() - t)
            store.close()
    digest = hashlib.sha256(repr(out).encode()).hexdigest()[:16]
    print(f"{tree}: {len(calls)} calls  cpu {best:.3f} s  digest {digest}  load {os.getloadavg()[0]:.1f}",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("collect", "time"))
    ap.add_argument("args", nargs="+")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--rounds", type=int, default=3)
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3])
        return
    a = ap.parse_args()
    if a.what == "collect":
        collect(*a.args[:3], a.corpus)
        return
    pkl, trees = a.args[0], a.args[1:]
    for r in range(a.rounds):
        for tree in (trees if r % 2 == 0 else trees[::-1]):
            subprocess.run([sys.executable, os.path.abspath(__file__), "--child", tree, pkl], check=True)


if __name__ == "__main__":
    main()
