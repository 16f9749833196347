#!/usr/bin/env python3
"""CPU seconds of the O(store) reads a ``forget --match`` plans with, each
alone, in this process, on the store at HOME (read only: run it on a store
no writer uses): the session and fact ref listings (``Refs.iter``, each
parsed anew), the turn-meta cache read and its test of every session's
values (``turnmeta._load``, ``turnmeta.meta_hits``), the substring
prefilter of each kind (``SearchIndex.substring_candidate_refs``, after one
untimed call that opens the generations) and the heads' presence scan
(``SearchIndex.missing_turns``), and the proof's scan for 20 ids no
document holds (``SearchIndex.verify_purged``).  Prints the minimum of RUNS rounds per
part; run it once per tree (``PYTHONPATH=<tree>``), in turn::

    PYTHONPATH=<tree> python bench/forget_scans.py HOME WORD [RUNS]
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

from objstore.core.text import matcher
from objstore.memory import turnmeta
from objstore.memory.opening import open_store


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    store = open_store(Path(argv[0]))
    word, runs = argv[1], int(argv[2]) if len(argv) == 3 else 5
    best: dict[str, float] = {}

    def clock(label: str, fn):
        t = time.process_time()
        out = fn()
        best[label] = min(best.get(label, float("inf")), time.process_time() - t)
        return out

    absent = [hashlib.sha256(b"absent %d" % i).hexdigest() for i in range(20)]   # ids no store holds
    for kind in ("turn", "fact", "history"):   # opens every generation (and checks its new files) once
        store.index.substring_candidate_refs(word, kind)
    for _ in range(runs):
        refs = store.refs
        refs._packed_key.clear()
        refs._packed.clear()
        heads = clock("Refs.iter sessions", lambda: {n[len("sessions/"):]: h for n, h in refs.iter("sessions")})
        clock("Refs.iter facts", lambda: list(refs.iter("facts")))
        clock("turnmeta._load", lambda: turnmeta._load(store))
        clock("turnmeta.meta_hits", lambda: turnmeta.meta_hits(store, heads, matcher(word)))
        for kind in ("turn", "fact", "history"):
            clock(f"substring_candidate_refs {kind}", lambda: store.index.substring_candidate_refs(word, kind))
        clock("missing_turns", lambda: store.index.missing_turns(heads))
        clock("verify_purged (20 absent ids)", lambda: store.index.verify_purged(absent))
    print(f"{len(heads)} sessions; CPU min of {runs} (s)")
    for k, v in best.items():
        print(f"  {k:34s} {v:.3f}")
    print(f"  {'sum':34s} {sum(best.values()):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
