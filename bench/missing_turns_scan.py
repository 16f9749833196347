#!/usr/bin/env python3
"""CPU of ``SearchIndex.missing_turns`` over every session head, in process,
on a turns index of many documents a shard (the forget's presence check,
issue 12: at a million turns each of 16 shards holds ~65,000-130,000).

``build DIR --turns N --sessions S``: writes a search index of N short
turns in S sessions under DIR (16 shards; its heads in DIR/heads.json).
``time DIR --runs R``: times R calls of ``missing_turns`` on it with the
``objstore`` on ``sys.path`` (run it under each tree's PYTHONPATH,
interleaved); before each call it drops what a previous call of this
process built (``genfiles._ADDRESS_CACHE`` when present), as a forget
calls it once per process; after each, ``verify_purged`` of 3 ids the
index never held (a forget's last check, which reads every shard again).
Prints the minimum and median CPU seconds (``time.process_time``).

Usage::

    python bench/missing_turns_scan.py build /tmp/x --turns 400000 --sessions 3000
    PYTHONPATH=<tree> python bench/missing_turns_scan.py time /tmp/x --runs 7
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path


def build(root: Path, turns: int, sessions: int) -> None:
    from objstore.index.searchindex import IndexDoc, SearchIndex
    ix = SearchIndex(root / "index")
    heads: dict[str, str] = {}
    try:
        with ix.stream(fresh=True, expected_docs=turns) as st:
            for i in range(turns):
                sid = f"session-{i % sessions}"
                tid = hashlib.sha256(f"t{i}".encode()).hexdigest()
                st.add(IndexDoc(tid, "turn", sid, i, "x", "user", f"turn {i} words {i % 97}", i // sessions))
                heads[sid] = tid
            st.commit()
        print(f"{turns} turns in {ix.turn_shard_count()} shards", file=sys.stderr)
    finally:
        ix.close()
    (root / "heads.json").write_text(json.dumps(heads))


def timed(root: Path, runs: int) -> None:
    import objstore.index.genfiles as genfiles
    from objstore.index.searchindex import SearchIndex
    heads = json.loads((root / "heads.json").read_text())
    ix = SearchIndex(root / "index")
    try:
        ix.missing_turns(dict(list(heads.items())[:1]))   # open the index first: not the scan's cost
        gone = [hashlib.sha256(f"gone{i}".encode()).hexdigest() for i in range(3)]
        got, ver = [], []
        for _ in range(runs):
            getattr(genfiles, "_ADDRESS_CACHE", {}).clear()
            t = time.process_time()
            missing = ix.missing_turns(heads)
            t1 = time.process_time()
            problems = ix.verify_purged(gone)   # after missing_turns, as in a forget
            got.append(t1 - t)
            ver.append(time.process_time() - t1)
        print(f"{len(heads)} heads, {len(missing)} missing: CPU min {min(got):.3f} s, "
              f"median {statistics.median(got):.3f} s; then verify_purged of {len(gone)} ids "
              f"({len(problems)} problems): min {min(ver):.3f} s, median {statistics.median(ver):.3f} s")
    finally:
        ix.close()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("build", "time"))
    ap.add_argument("dir", type=Path)
    ap.add_argument("--turns", type=int, default=400_000)
    ap.add_argument("--sessions", type=int, default=3_000)
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args(argv)
    if a.what == "build":
        build(a.dir, a.turns, a.sessions)
    else:
        timed(a.dir, a.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
