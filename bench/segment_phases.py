#!/usr/bin/env python3
"""Where a first question's CPU goes on stores whose only difference is
their segments (e.g. a 1M store and a copy after ``mem gc`` merged its
small segments): ``python bench/segment_phases.py RUNS QUERIES STORE...``.
Each run is a new process per store, in turn, that times (``process_time``)
opening the store and its turns generations, one ``objstore.recall`` of a
query (all projects, limit 10) and the store's close; every store's kept
scoped counts (``index/turns/gen-*/.counts``) are removed before each run,
so each recall counts anew, as a first question does.  QUERIES: a
comma-separated list, taken in turn.  Prints the medians per store (ms).
"""

from __future__ import annotations

import glob
import os
import statistics
import subprocess
import sys

CHILD = r"""
import sys, time
t1 = time.process_time()
from objstore import open_store, recall
store = open_store(sys.argv[1])
store.index._subs["turn"].open_current()
t2 = time.process_time()
recall(store, [sys.argv[2]], what="all", projects=None, limit=10)
t3 = time.process_time()
store.close()
t4 = time.process_time()
print((t2 - t1) * 1000, (t3 - t2) * 1000, (t4 - t3) * 1000, (t4 - t1) * 1000)
"""


def main() -> None:
    runs, queries, stores = int(sys.argv[1]), sys.argv[2].split(","), sys.argv[3:]
    rows: dict[str, list[list[float]]] = {s: [] for s in stores}
    for i in range(runs):
        for s in stores:
            for f in glob.glob(os.path.join(s, "index", "turns", "gen-*", ".counts")):
                os.unlink(f)
            out = subprocess.run([sys.executable, "-c", CHILD, s, queries[i % len(queries)]],
                                 capture_output=True, text=True, check=True).stdout
            rows[s].append([float(x) for x in out.split()])
    print(f"load {os.getloadavg()[0]:.1f}; medians of {runs} (ms CPU): open (imports, store, generations) / "
          "recall / close / all")
    for s, r in rows.items():
        med = [statistics.median(c[k] for c in r) for k in range(4)]
        print(f"{s}: " + " / ".join(f"{m:.1f}" for m in med))


if __name__ == "__main__":
    main()
