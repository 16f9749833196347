#!/usr/bin/env python3
"""How long ``mem import``'s main thread waits for its parse children with
each depth of their reader threads' queues (``parseworker.QUEUE_CHUNKS``),
in process, on new stores, the depths taken in turn: the import's wall and
CPU, and the time its ``ParseWorker.messages`` spent blocked in the queue's
``get`` (the main thread starved of parsed turns).  Used to check that a
shallower queue (less memory held while the importer is the slower end)
does not leave the importer waiting (docs/benchmarks.md, "Session 21
(branch `scale21`)").

Usage::

    python bench/parse_queue.py --corpus /tmp/bench-corpus --depth 16 --depth 4 --runs 3
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from objstore import open_store  # noqa: E402
from objstore.capture import importer, parseworker  # noqa: E402


def one(corpus: Path, depth: int) -> dict:
    """One import of ``corpus`` into a new store with queues of ``depth`` chunks."""
    parseworker.QUEUE_CHUNKS = depth
    waited = [0.0]
    real_get = parseworker.queue.Queue.get

    def get(self, *a, **k):   # the main thread's reads of the queue
        t = time.perf_counter()
        try:
            return real_get(self, *a, **k)
        finally:
            waited[0] += time.perf_counter() - t

    tmp = Path(tempfile.mkdtemp(prefix="parse-queue-"))
    parseworker.queue.Queue.get = get
    try:
        store = open_store(tmp / "store", create=True)
        w0, c0 = time.perf_counter(), time.process_time()
        try:
            r = importer.import_transcripts(store, "claude-code", [corpus])
        finally:
            store.close()
        return {"wall": time.perf_counter() - w0, "cpu": time.process_time() - c0, "waited": waited[0],
                "turns": r.turns_added}
    finally:
        parseworker.queue.Queue.get = real_get
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/bench-corpus"))
    ap.add_argument("--depth", type=int, action="append", help="queue depth (chunks); repeat; default 16 and 4")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    depths = args.depth or [16, 4]
    res: dict[int, list[dict]] = {d: [] for d in depths}
    for i in range(args.runs):
        for d in (depths if i % 2 == 0 else depths[::-1]):   # in turn, the first alternating
            r = one(args.corpus, d)
            res[d].append(r)
            print(f"depth {d:3d} run {i + 1}: wall {r['wall']:.2f} s, CPU {r['cpu']:.2f} s, "
                  f"waited for the children {r['waited']:.2f} s, {r['turns']} turns", file=sys.stderr, flush=True)
    for d, rs in res.items():
        print(f"depth {d}: median wall {statistics.median(r['wall'] for r in rs):.2f} s, "
              f"CPU {statistics.median(r['cpu'] for r in rs):.2f} s, "
              f"waited {statistics.median(r['waited'] for r in rs):.2f} s ({len(rs)} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
