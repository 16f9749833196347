"""CPU of ``mem gc`` when it writes ``cache/turn-meta`` (missing) and when
the cache is current, and of the ``forget --match --dry-run`` that follows
without and with the cache, as new processes on one store, interleaved,
medians of ``--rounds``; checks the cache gc writes is byte for byte the
one the import wrote (docs/benchmarks.md, "Session 16 (branch `fix16b`)").

    python bench/gc_turnmeta.py STORE [--rounds 9]

STORE: a store ``mem import claude-code /tmp/bench-corpus`` wrote (it
holds ``cache/turn-meta``); the source tree is this checkout."""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

TREE = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store")
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args()
    env = {**os.environ, "MEM_HOME": a.store, "MEM_NO_HELPER": "1", "PYTHONPATH": str(TREE)}
    cache = Path(a.store) / "cache" / "turn-meta.z"   # compressed since session 27 (sz27)
    if not cache.exists():
        cache = cache.with_name("turn-meta")           # a store and tree from before
    imported = cache.read_bytes()

    def cpu(*args: str) -> float:
        b = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "cmds", *args], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        e = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (e.ru_utime + e.ru_stime) - (b.ru_utime + b.ru_stime)

    res: dict[str, list[float]] = {k: [] for k in ("gc, cache missing", "gc, cache current",
                                                    "forget --match --dry-run, no cache",
                                                    "forget --match --dry-run, cache")}
    for _ in range(a.rounds):
        cache.unlink()
        res["gc, cache missing"].append(cpu("gc"))
        assert cache.read_bytes() == imported, "gc wrote another cache than the import"
        res["gc, cache current"].append(cpu("gc"))
        cache.unlink()
        res["forget --match --dry-run, no cache"].append(cpu("forget", "--match", "zqxjkv-nowhere", "--dry-run"))
        res["forget --match --dry-run, cache"].append(cpu("forget", "--match", "zqxjkv-nowhere", "--dry-run"))
    for k, v in res.items():
        print(f"{k}: median CPU {statistics.median(v):.3f} s")
    print("cache written by gc == cache written by import: yes")


if __name__ == "__main__":
    main()
