"""What the lost-head check (``Reflog.refuse_lost_heads``) and the reflog
check (``Reflog.check_writable``) add to a write that creates a fact key,
in process, on a copy of a store's ``refs/`` and ``logs/`` (read only: no
ref moves).  Session 30, branch ``crash30``; figures in docs/benchmarks.md.

Usage: python bench/lost_head_cost.py STORE_COPY [--runs N]
(STORE_COPY: a folder holding a copy of a store's refs/ and logs/, e.g.
``cp -a /tmp/scl29/store-1m/{refs,logs} /tmp/x/``)."""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from objstore.core.refs import Refs
from objstore.core.reflog import Reflog


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--runs", type=int, default=21)
    a = ap.parse_args()
    refs = Refs(a.store / "refs")
    log = Reflog(a.store / "logs", refs)
    new, check, parse = [], [], []
    for i in range(max(1, min(a.runs, 1000))):
        ref = f"facts/project/zz-bench/new-{i}"
        t = time.perf_counter()
        log.refuse_lost_heads([(ref, "0" * 64)])
        new.append(time.perf_counter() - t)
        t = time.perf_counter()
        log.check_writable(ref)
        check.append(time.perf_counter() - t)
        t = time.perf_counter()
        log.read(ref)   # what the check cost before its byte search: the ref's reflog read and parsed
        parse.append(time.perf_counter() - t)
    packed = a.store / "logs" / "packed-facts"
    size = packed.stat().st_size if packed.exists() else 0
    print(f"logs/packed-facts: {size:,} bytes; runs: {len(new)}")
    print(f"refuse_lost_heads (a new key): median {statistics.median(new) * 1000:.2f} ms")
    print(f"check_writable: median {statistics.median(check) * 1e6:.1f} us")
    print(f"Reflog.read of the new key (the check's first version): median {statistics.median(parse) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
