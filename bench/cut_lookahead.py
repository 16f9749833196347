#!/usr/bin/env python3
"""What a smaller ``redact_cut`` look-ahead would save and change, on a corpus (red40, issue 12):
``PYTHONPATH=TREE python bench/cut_lookahead.py collect OUT.pkl [CORPUS]``, then
``PYTHONPATH=TREE python bench/cut_lookahead.py run OUT.pkl [--sizes 16384,4096,2048,1024,512]``.

``collect`` runs ``parseworker.parse_rows`` over every ``CORPUS/**/*.jsonl`` (default ``/tmp/bench-corpus``,
sub-agent files included) and keeps every ``(text, limit, tail)`` handed to ``redact_cut``.  ``run`` cuts
them all with ``engine.CUT_LOOKAHEAD`` set to each size in turn (the gate matcher loaded first, as a parse
child does) and prints the CPU of each pass and how many cuts differ from the first size's.  A size that
changes no cut here is NOT shown safe: the bound has to hold for every rule (docs/benchmarks.md,
"Session 40 (branch ``red40``)": the rules that read far past a cut)."""

from __future__ import annotations

import argparse
import glob
import pickle
import time
from pathlib import Path


def collect(out: str, corpus: str) -> None:
    import objstore.core.redact as red
    from objstore.capture import parseworker
    calls: list = []
    plain = red.redact_cut

    def kept(text, limit, *, tail=False):
        calls.append((text, limit, tail))
        return plain(text, limit, tail=tail)
    red.redact_cut = kept   # transcript.cut_text imports it from the package at each call
    for f in sorted(glob.glob(f"{corpus}/**/*.jsonl", recursive=True)):
        for _ in parseworker.parse_rows("objstore.capture.claude_code", Path(f)):
            pass
    with open(out, "wb") as fh:
        pickle.dump(calls, fh)
    print(f"{len(calls)} cuts, {sum(len(t) for t, _l, _t in calls):,} characters")


def run(path: str, sizes: list[int]) -> None:
    from objstore.core.redact import engine, expect_bulk
    with open(path, "rb") as fh:
        calls = pickle.load(fh)
    expect_bulk()
    for t, lim, tail in calls[:50]:   # the rules compiled before the first timed pass
        engine.redact_cut(t, lim, tail=tail)
    first = None
    for size in sizes:
        engine.CUT_LOOKAHEAD = size
        t0 = time.process_time()
        got = [engine.redact_cut(t, lim, tail=tail) for t, lim, tail in calls]
        cpu = time.process_time() - t0
        first = got if first is None else first
        print(f"look-ahead {size:6d}: CPU {cpu:.3f} s, cuts differing from {sizes[0]}: "
              f"{sum(a != b for a, b in zip(first, got))}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("collect", "run"))
    ap.add_argument("path")
    ap.add_argument("corpus", nargs="?", default="/tmp/bench-corpus")
    ap.add_argument("--sizes", default="16384,4096,2048,1024,512")
    a = ap.parse_args()
    if a.what == "collect":
        collect(a.path, a.corpus)
    else:
        run(a.path, [int(s) for s in a.sizes.split(",")])


if __name__ == "__main__":
    main()
