#!/usr/bin/env python3
"""The parse children's trail test (``withhold.may_print_secret``) of two trees, interleaved:
``python bench/hot_scan_ab.py BASE BRANCH [--corpus DIR] [--rounds N]``.

First the files the import's children test are found as a child finds them: every transcript
of the corpus through ``parseworker.parse_rows`` in one process (with ``BRANCH``'s sources),
each ``may_print_secret`` call's bytes kept (a session tree's other files, read before a file's
trail; the bench corpus: 151 files, ~80 MB).  Then ``may_print_secret`` of each tree (its
``objstore/capture/withhold.py`` loaded under another name beside ``BRANCH``'s package) over
those bytes, ``--rounds`` times in turn, CPU seconds (``time.process_time``), and each round's
answers compared (the run stops on a difference).  Run with ``PYTHONDONTWRITEBYTECODE`` unset
(docs/benchmarks.md, "Session 33 (branch `imp33`)")."""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base"), ap.add_argument("branch")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.branch))
    import objstore.capture.claude_code as cc
    from objstore.capture.parseworker import parse_rows, project_guesser
    from objstore.capture.transcript import enable_fast_json
    from objstore.memory.sessions import TurnForecast
    enable_fast_json()
    got: list[bytes] = []
    real = cc.may_print_secret

    def keep(data: bytes) -> bool:
        got.append(data)
        return real(data)
    cc.may_print_secret = keep
    fc, guess = TurnForecast("claude-code"), project_guesser({})
    for p in sorted(Path(a.corpus).rglob("*.jsonl")):
        for _row in parse_rows("objstore.capture.claude_code", p, fc, guess):
            pass
    cc.may_print_secret = real
    print(f"{len(got)} files tested, {sum(map(len, got)) / 1e6:.1f} MB; load {os.getloadavg()[0]:.1f}")
    mods = {}
    for side, tree in (("base", a.base), ("branch", a.branch)):
        spec = importlib.util.spec_from_file_location(f"withhold_{side}",
                                                      Path(tree, "objstore/capture/withhold.py"))
        mods[side] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mods[side])
    cpu: dict[str, list[float]] = {"base": [], "branch": []}
    for _ in range(a.rounds):
        answers = {}
        for side, mod in mods.items():
            t = time.process_time()
            answers[side] = [mod.may_print_secret(d) for d in got]
            cpu[side].append(time.process_time() - t)
        if answers["base"] != answers["branch"]:
            print("the answers differ")
            return 1
    for side, v in cpu.items():
        print(f"{side:7s} " + " ".join(f"{x:.3f}" for x in v) + f"  median {statistics.median(v):.3f} s")
    print(f"hot files: {sum(answers['branch'])}; load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
