#!/usr/bin/env python3
"""Where a first question's CPU goes on stores whose only difference is
their segments (e.g. a 1M store and a copy after ``mem gc`` merged its
small segments): ``python bench/segment_phases.py RUNS QUERIES STORE...``.
Each run is a new process per store, in turn, that times (``process_time``)
opening the store and its turns generations, one ``objstore.recall`` of a
query (all projects, limit 10) and the store's close; every store's kept
scoped counts (``index/*/gen-*/.counts``) are removed before each run,
so each recall counts anew, as a first question does.  QUERIES: a
comma-separated list, taken in turn; a STORE written ``DIR=Q1,Q2`` asks
its own queries instead (e.g. each store its corpus's needles: a needle of
the 1M corpus matches nothing in the reference store, whose recall then
does no follow-forward search).  Prints the medians per store (ms).

``--phases``: the child also reads the clock around the calls a recall's
extra work at scale goes to (no profiler: cProfile's per-call cost
inflates the many small calls 2-5x and misranks them), outermost calls
only, and prints a table of medians, one column per store: opening each
generation (``SubIndex._open_gen``; of it tantivy's ``Index.open``, the
segment-file check ``check_new_files`` and the format read), the index
searches (``SearchIndex.search``; of it the searchers, the scoped counts
``_counts``), recall's follow-forward searches, and the close of the
sub-indexes (``SubIndex.close``; the CLI leaves it to ``os._exit``), and
the packs: their open (``PackSet.reload``, every pack's index), the
index's 16-byte ids expanded to whole ones in every pack
(``expand_prefixes``; its first call opens the packs) and the objects
read from them (``PackSet.get``)::

    python bench/segment_phases.py 9 - --phases /tmp/base=zumiliz,gipevix /tmp/1m=pubibik,megamiz

``--trees=A,B``: each store is read by each of these source trees in turn
(``PYTHONPATH``; e.g. a base worktree and a branch), a column each::

    python bench/segment_phases.py 9 - --phases --trees=/tmp/base-tree,. /tmp/1m=pubibik,megamiz
"""

from __future__ import annotations

import glob
import json
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

PHASES_CHILD = r"""
import functools, json, sys, time
t1 = time.process_time()
import tantivy
from objstore import open_store, recall
import objstore.index.generations as G
import objstore.retrieval.recall as RC
from objstore.index.searchindex import SearchIndex
acc, active = {}, set()

def add(label, t):
    c = acc.setdefault(label, [0.0, 0])
    c[0] += time.process_time() - t
    c[1] += 1

def wrap(owner, name, label):
    fn = getattr(owner, name)
    @functools.wraps(fn)
    def timed(*a, **k):
        if label in active:   # outermost calls only
            return fn(*a, **k)
        active.add(label)
        t = time.process_time()
        try:
            return fn(*a, **k)
        finally:
            active.discard(label)
            add(label, t)
    setattr(owner, name, timed)

class _Index:   # tantivy.Index.open as generations.py calls it, timed; the rest of tantivy as it is
    @staticmethod
    def open(path, _open=tantivy.Index.open):
        t = time.process_time()
        try:
            return _open(path)
        finally:
            add("open_gen: tantivy Index.open", t)
    def __getattr__(self, name):
        return getattr(tantivy.Index, name)

class _Tantivy:
    Index = _Index()
    def __getattr__(self, name):
        return getattr(tantivy, name)

G.tantivy = _Tantivy()
wrap(G.SubIndex, "_open_gen", "open_gen")
wrap(G, "check_new_files", "open_gen: check_new_files")
wrap(G, "read_format", "open_gen: read_format")
wrap(SearchIndex, "search", "search")
wrap(SearchIndex, "_open_searchers", "search: open_searchers")
wrap(SearchIndex, "_counts", "search: scoped counts")
wrap(RC, "_follow_forward", "recall: follow_forward")
wrap(G.SubIndex, "close", "close: SubIndex.close")
import objstore.core.pack as PK
import objstore.memory.opening as OP
wrap(PK.PackSet, "reload", "packs: open (PackSet.reload)")
wrap(OP, "expand_prefixes", "packs: index ids expanded (expand_prefixes)")
wrap(PK.PackSet, "get", "packs: objects read (PackSet.get)")
store = open_store(sys.argv[1])
store.index._subs["turn"].open_current()
t2 = time.process_time()
recall(store, [sys.argv[2]], what="all", projects=None, limit=10)
t3 = time.process_time()
store.close()
t4 = time.process_time()
out = {"open (imports, store, generations)": (t2 - t1) * 1e3, "recall": (t3 - t2) * 1e3,
       "close": (t4 - t3) * 1e3, "all": (t4 - t1) * 1e3}
out.update({f"{k} (calls)": n for k, (_s, n) in acc.items()})
out.update({k: s * 1e3 for k, (s, _n) in acc.items()})
print(json.dumps(out))
"""


def drop_counts(home: str) -> None:
    """Remove the kept scoped counts of every sub-index's generations."""
    for f in glob.glob(os.path.join(home, "index", "*", "gen-*", ".counts")):
        os.unlink(f)


def main(argv: list[str]) -> int:
    phases = "--phases" in argv
    trees = [a.split("=", 1)[1].split(",") for a in argv if a.startswith("--trees=")]
    argv = [a for a in argv if a != "--phases" and not a.startswith("--trees=")]
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    runs, default_q = int(argv[0]), argv[1].split(",")
    stores: dict[str, list[str]] = {}
    for s in argv[2:]:
        home, _, qs = s.partition("=")
        stores[home] = qs.split(",") if qs else default_q
    # --trees=A,B: each store read by each source tree in turn (PYTHONPATH), a column each
    cols = [(s, t) for s in stores for t in (trees[0] if trees else [None])]
    rows: dict[str, list] = {s if t is None else f"{s}@{t}": [] for s, t in cols}
    for i in range(runs):
        for (s, t), col in zip(cols, rows):
            drop_counts(s)
            env = None if t is None else {**os.environ, "PYTHONPATH": t}
            out = subprocess.run([sys.executable, "-c", PHASES_CHILD if phases else CHILD, s, stores[s][i % len(stores[s])]],
                                 capture_output=True, text=True, check=True, env=env).stdout
            rows[col].append(json.loads(out) if phases else [float(x) for x in out.split()])
    if phases:
        print(f"load {os.getloadavg()[0]:.1f}; medians of {runs} (ms CPU; '(calls)': how many outermost calls)")
        keys = list(dict.fromkeys(k for r in rows.values() for x in r for k in x))
        print("| phase | " + " | ".join(rows) + " |")
        print("|---|" + "---|" * len(rows))
        for k in sorted(keys, key=lambda k: (k.endswith("(calls)"), keys.index(k))):
            cells = [statistics.median(x.get(k, 0.0) for x in r) for r in rows.values()]
            fmt = "{:.0f}" if k.endswith("(calls)") else "{:.1f}"
            print(f"| {k} | " + " | ".join(fmt.format(c) for c in cells) + " |")
        return 0
    print(f"load {os.getloadavg()[0]:.1f}; medians of {runs} (ms CPU): open (imports, store, generations) / "
          "recall / close / all")
    for s, r in rows.items():
        med = [statistics.median(c[k] for c in r) for k in range(4)]
        print(f"{s}: " + " / ".join(f"{m:.1f}" for m in med))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
