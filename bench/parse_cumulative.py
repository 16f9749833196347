#!/usr/bin/env python3
"""The import's parse-child work in process, stage by stage as the child
chains them: ``python bench/parse_cumulative.py [TREE] [--corpus DIR] [--runs N]``.

With ``TREE`` (default: this checkout) first on ``sys.path`` and msgspec
enabled as in the child, over every transcript of ``--corpus`` (default
``/tmp/bench-corpus``), the CPU (``time.process_time``) of: ``parse_file``
alone; then with each turn's text capped and redacted; then with the
forecast (``TurnForecast.next``) too; then ``parseworker.parse_rows``
(the rows, with the project guess); then with the rows pickled as the child
sends them.  Each figure includes the stages before it, so the difference
of two lines is what a stage costs where it runs in the child (its data
fresh from the stage before), unlike ``parse_stages.py``, which times each
stage alone over kept inputs.  ``--runs`` passes (default 2), one line per
stage a pass, with the load average (docs/benchmarks.md, "Session 16
(branch `imp16`)").
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", nargs="?", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.tree))
    from objstore.capture import claude_code
    from objstore.capture.parseworker import parse_rows, project_guesser
    from objstore.capture.transcript import enable_fast_json
    from objstore.core.redact import redact
    from objstore.memory.sessions import TurnForecast, cap_turn_text
    enable_fast_json()
    files = list(claude_code.discover([a.corpus]))
    reader = claude_code.__name__

    def parsed():
        for p in files:
            yield from claude_code.parse_file(p, claude_code.ParseStats())

    def parse() -> None:
        for _ct in parsed():
            pass

    def redacted() -> None:
        for ct in parsed():
            t = cap_turn_text(ct.text)
            if t:
                redact(t)

    def forecast() -> None:
        fc = TurnForecast("claude-code")
        for ct in parsed():
            t = cap_turn_text(ct.text)
            r = redact(t) if t else None
            fc.next(ct, t if r is None or not r.hits else r.text, None)

    def rows() -> None:
        fc, guess = TurnForecast("claude-code"), project_guesser({})
        for p in files:
            for _msg in parse_rows(reader, p, fc, guess):
                pass

    def pickled() -> None:
        fc, guess = TurnForecast("claude-code"), project_guesser({})
        for p in files:
            for msg in parse_rows(reader, p, fc, guess):
                pickle.dumps(msg, protocol=5)

    parse()          # warm: the page cache, the rules compiled, the matcher built
    redacted()
    stages = [("parse_file", parse), ("+ cap and redact", redacted), ("+ forecast", forecast),
              ("parse_rows (+ rows, project guess)", rows), ("+ pickle", pickled)]
    for _ in range(a.runs):
        for name, fn in stages:
            c = time.process_time()
            fn()
            print(f"{name:36s} {time.process_time() - c:6.3f} s  load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
