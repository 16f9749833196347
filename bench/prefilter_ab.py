"""Forget's substring prefilter on two stores, in turn, in one process.

    python bench/prefilter_ab.py STORE_A STORE_B [--rounds 5] [NEEDLE ...]

For each needle, ``SearchIndex.substring_candidate_refs(needle, "turn")``
on the index of each store, the stores taken in turn each round (a warm
searcher: each index is opened once, and asked every needle once before the
rounds); prints the CPU (``time.process_time``) minimum and median per
needle and store in ms, the candidate counts, and whether B's candidates
hold A's (the prefilter may return a superset; the caller checks each
candidate's text, so a superset gives the same forget).  Used for session
15's ``plain_diff`` format (docs/benchmarks.md, "Session 15 (branch idx15)").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from objstore.index.searchindex import SearchIndex

NEEDLES = ("visionkit", "the function", "unctio", "error", "payout", "runn", "ing test", "dropout",
           "readme", "a", "timeou", "def __init__(self", "docker compose", "lambda")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("needles", nargs="*")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    needles = args.needles or list(NEEDLES)
    ixs = {"A": SearchIndex(args.a / "index"), "B": SearchIndex(args.b / "index")}
    try:
        cands = {k: {n: ix.substring_candidate_refs(n, "turn") for n in needles} for k, ix in ixs.items()}
        times: dict = {(k, n): [] for k in ixs for n in needles}
        for _ in range(args.rounds):
            for n in needles:
                for k, ix in ixs.items():
                    t0 = time.process_time()
                    ix.substring_candidate_refs(n, "turn")
                    times[(k, n)].append((time.process_time() - t0) * 1000)
        print(f"{'needle':22} {'A min/med ms':>14} {'B min/med ms':>14} {'A cands':>8} {'B cands':>8}  B holds A")
        ok = True
        for n in needles:
            a, b = cands["A"][n], cands["B"][n]
            holds = a is None or (b is not None and set(a) <= set(b))
            ok &= holds
            ta, tb = times[("A", n)], times[("B", n)]
            print(f"{n!r:22} {min(ta):6.1f}/{statistics.median(ta):6.1f} {min(tb):6.1f}/{statistics.median(tb):6.1f} "
                  f"{'-' if a is None else len(a):>8} {'-' if b is None else len(b):>8}  {holds}")
        return 0 if ok else 1
    finally:
        for ix in ixs.values():
            ix.close()


if __name__ == "__main__":
    sys.exit(main())
