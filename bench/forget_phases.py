#!/usr/bin/env python3
"""CPU seconds of one ``forget --match`` by phase, without a profiler.

Runs ``forget(store, match=WORD)`` in this process on the store at HOME
(it is changed: run it on a copy) and prints the forget's CPU seconds
(``time.process_time``) and, for each function it wraps, the CPU seconds of
its outermost calls and their number.  cProfile inflates the many small
calls of a forget (ref reads, pack lookups, path objects) 2-5x and misranks
them; this only reads the clock around a few dozen calls.

Usage::

    python bench/forget_phases.py HOME WORD
"""

from __future__ import annotations

import functools
import resource
import sys
import time
from pathlib import Path

import objstore.memory.forget as F
import objstore.memory.forgetplan as FP
from objstore.core.store import Store
from objstore.index.searchindex import SearchIndex
from objstore.memory.citations import FactCites
from objstore.memory.opening import open_store

acc: dict[str, list] = {}
active: set[str] = set()


def wrap(owner, name: str, label: str | None = None) -> None:
    fn = getattr(owner, name, None)
    if fn is None:
        return
    label = label or name

    @functools.wraps(fn)
    def timed(*a, **k):
        if label in active:
            return fn(*a, **k)
        active.add(label)
        t = time.process_time()
        try:
            return fn(*a, **k)
        finally:
            active.discard(label)
            c = acc.setdefault(label, [0.0, 0])
            c[0] += time.process_time() - t
            c[1] += 1
    setattr(owner, name, timed)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    for n in ("plan_forget", "plan_chain", "scrub_derived", "redact_ids", "memory_file_rest",
              "all_tombstones", "turn_docs", "turn_docs_in_shards", "fact_docs", "list_keys",
              "_rewrite_facts", "rewrite_chain"):
        wrap(F, n)
    for n in ("_match_sessions", "_match_keys", "plan_chain", "list_keys"):   # called inside the planning module
        wrap(FP, n)
    wrap(F.queue, "drop", "queue.drop")
    for n in ("delete_objects", "update_ref", "put"):
        wrap(Store, n, "Store." + n)
    for n in ("purge", "purge_facts", "purge_turns", "purge_turn_shards", "verify_purged", "term_doc_freq",
              "missing_turns", "substring_candidate_refs"):
        wrap(SearchIndex, n, "SearchIndex." + n)
    for n in ("_copy_pack", "_copy_blocks"):   # the pack rewrite of delete_objects
        wrap(Store, n, "Store." + n)
    for n in ("_purge_by_merge", "_purge_by_padded_merge"):   # which merge a purge took
        wrap(SearchIndex, n, "SearchIndex." + n)
    wrap(FactCites, "load", "FactCites.load")
    wrap(FactCites, "save", "FactCites.save")
    w0, t0 = time.monotonic(), time.process_time()
    store = open_store(Path(argv[0]))
    t1 = time.process_time()
    res = F.forget(store, match=argv[1])
    t2 = time.process_time()
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(f"open {t1 - t0:.2f} s, forget {t2 - t1:.2f} s CPU; wall {time.monotonic() - w0:.1f} s; "
          f"process user+sys {ru.ru_utime + ru.ru_stime:.2f} s; {res.plan.counts()}, "
          f"{res.objects_deleted} objects deleted, index problems {res.index_problems}")
    for k, (s, n) in sorted(acc.items(), key=lambda x: -x[1][0]):
        print(f"  {k:36s} {s:7.2f} s  x{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
