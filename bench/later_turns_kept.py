#!/usr/bin/env python3
"""CPU of the session block's rule 8 (``laterturns.later_turns``) in
process, warm, on a project's current facts: without kept verdicts
(``none``: ``ids`` not given, as before session 27), with
``cache/later-turns`` deleted before each call (``miss``: the rule runs and
the file is written) and with it kept (``hit``); medians of ``--runs``
calls each, interleaved, after one cold call of ``--first`` (docs/benchmarks.md,
"Session 27 (branch `lat27`)").  It writes ``cache/later-turns`` of the
store: use a copy.

    cp -a STORE /tmp/lt/copy            # e.g. bench/later_turns_store.py's
    PYTHONPATH=. python bench/later_turns_kept.py --store /tmp/lt/copy --project acme-web
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, required=True, help="a copy of a store (its cache/later-turns is written)")
    ap.add_argument("--project", default="acme-web", help="the project whose facts are checked")
    ap.add_argument("--runs", type=int, default=15, help="calls of each kind (default 15)")
    ap.add_argument("--first", choices=("none", "miss", "hit"), default="none", help="the kind of the cold call")
    args = ap.parse_args()
    from objstore.memory.opening import open_store
    from objstore.retrieval.context import _current_facts
    from objstore.retrieval import laterturns
    store = open_store(args.store)
    items = _current_facts(store, [args.project])
    facts, ids = [f for _i, f in items], [i for i, _f in items]
    path = store.root / laterturns.VERDICTS_FILE

    def one(kind: str) -> tuple[float, int]:
        if kind == "miss":
            path.unlink(missing_ok=True)
        t = time.process_time()
        out = laterturns.later_turns(store, facts, ids=None if kind == "none" else ids)
        return (time.process_time() - t) * 1000, len(out)

    cold, marked = one(args.first)
    res: dict[str, list[float]] = {"none": [], "miss": [], "hit": []}
    for _ in range(max(1, args.runs)):
        for kind in res:
            ms, n = one(kind)
            assert n == marked, (kind, n, marked)   # the same facts marked every way
            res[kind].append(ms)
    print(f"{len(facts)} facts, {marked} marked; cold {args.first} {cold:.2f} ms; warm medians: "
          + ", ".join(f"{k} {statistics.median(v):.2f} ms" for k, v in res.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
