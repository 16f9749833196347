#!/usr/bin/env python3
"""Does a tantivy commit hold the GIL?  (docs/benchmarks.md, "Session 18
(branch `hlp18`)": the resident helper commits in a second thread while its
request thread serves.)  A thread commits one document at a time into an
index of its own; meanwhile the main thread loops and records its longest
gap between two iterations.  A commit that held the GIL would show as a gap
as long as the commit.  Prints each commit's wall and the gap beside it.

Usage::

    python bench/tantivy_gil.py --dir /tmp/tantivy-gil --commits 15
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

import tantivy


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, default=Path("/tmp/tantivy-gil"))
    ap.add_argument("--commits", type=int, default=15)
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    sys.setswitchinterval(0.001)
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("body", stored=True)
    ix = tantivy.Index(sb.build(), path=tempfile.mkdtemp(dir=args.dir))
    res: list = []
    done, go = threading.Event(), threading.Event()

    def work() -> None:
        for i in range(args.commits):
            w = ix.writer(15_000_000, 1)
            w.add_document(tantivy.Document(body=f"hello {i}"))
            go.wait()
            go.clear()
            t = time.perf_counter()
            w.commit()
            res.append(time.perf_counter() - t)
            w.wait_merging_threads()
            done.set()
    th = threading.Thread(target=work)
    th.start()
    for _ in range(args.commits):
        time.sleep(0.02)
        go.set()
        gap, last = 0.0, time.perf_counter()
        while not done.is_set():
            now = time.perf_counter()
            gap, last = max(gap, now - last), now
        done.clear()
        print(f"commit {res[-1] * 1e3:5.1f} ms, longest gap of the main thread meanwhile {gap * 1e3:5.1f} ms")
    th.join()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
