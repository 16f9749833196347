#!/usr/bin/env python3
"""The memory of a pack merge, in its own process: ``python bench/merge_rss.py
STORE N [EVERY]`` rewrites the first ``N`` small packs of ``STORE``
(``repack.small_packs``, every object kept: what ``Store.merge_small`` does at
the end of a large import, and gc) under the store lock, and prints to stderr
``VmHWM``, ``VmRSS``, ``RssAnon`` and ``RssFile`` (kB) of this process after
opening the store, after listing the packs, every ``EVERY`` (default 100)
thousand objects, and at the end.  The tree measured is the one on
``PYTHONPATH``.  It writes the store: run it on a copy (``cp -a``).  Linux
only (``/proc/self/status``).  For issue 12's import peak RSS
(docs/benchmarks.md, "Session 30 (branch `rss30`)"): a merge's peak above its
steady RSS is what it adds to the heap an import has grown."""

from __future__ import annotations

import sys
import time

from objstore import open_store
from objstore.core.repack import small_packs

KEYS = ("VmHWM", "VmRSS", "RssAnon", "RssFile")


def status() -> str:
    """This process's peak and resident memory, kB, as one line."""
    got = {}
    with open("/proc/self/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in KEYS:
                got[k] = v.split()[0]
    return " ".join(f"{k}={got.get(k, '?')}" for k in KEYS)


def main() -> None:
    store_dir, n = sys.argv[1], int(sys.argv[2])
    every = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    t0 = time.time()

    def note(what: str) -> None:
        print(f"[{time.time() - t0:7.1f}s] {what}: {status()}", file=sys.stderr, flush=True)

    store = open_store(store_dir)
    note("open")
    calls = 0

    def progress(done: int, total: int) -> None:   # called every 1,000 objects
        nonlocal calls
        calls += 1
        if calls % every == 0:
            note(f"{done}/{total} objects")

    with store.lock("bench merge_rss"):
        store.packs.reload()
        packs = small_packs(store.packs.packs)[:n]
        note(f"{len(packs)} small packs")
        written = store.repack(packs, keep=lambda _p, _o: True, progress=progress)
        note(f"merged ({written} objects written)")


if __name__ == "__main__":
    main()
