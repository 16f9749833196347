#!/usr/bin/env python3
"""CPU of the import's ``parse_file`` and, within it, of the tool-output cut's
redaction, in process, per source tree, interleaved:
``python bench/parse_cut_cpu.py TREE [TREE ...] [--corpus DIR] [--runs N]``.

For each tree (a checkout or a ``git archive`` of a commit), in turn,
``--runs`` times, a new Python process with that tree first on ``sys.path``
(msgspec enabled as in the parse worker) prints, best of 3 passes,
``parse_file``'s CPU over every transcript of ``--corpus`` (default
``/tmp/bench-corpus``) and that of its ``redact_cut`` calls: the redaction
of the text around a long tool output's cut (``transcript.cut_text``), with
the number of cuts and the characters of their windows.  (The rest of the
children's stages: ``bench/parse_stages.py``; the ``mem-index`` thread's
documents: ``bench/index_doc_carriers.py``.)  Compare CPU, not wall time, on
a shared machine (docs/benchmarks.md, "Session 30 (branch `imp30`)").
"""

from __future__ import annotations

import os
import sys

CHILD = r"""
import os, sys, time
sys.path.insert(0, os.path.abspath(sys.argv[1]))
from objstore.capture import claude_code
from objstore.capture.transcript import enable_fast_json
from objstore.core import redact as red
from objstore.core.redact import engine
enable_fast_json()
red.redact("warm up: password: hunter2")
acc = [0.0, 0, 0]
orig = red.redact_cut
def timed(text, limit, **kw):
    t = time.process_time()
    try:
        return orig(text, limit, **kw)
    finally:
        acc[0] += time.process_time() - t
        acc[1] += 1
        acc[2] += min(len(text), limit + engine.CUT_LOOKAHEAD)
red.redact_cut = timed   # cut_text imports it from the package at each call
paths = list(claude_code.discover([sys.argv[2]]))
parse = cut = 1e9
for _ in range(3):
    acc[:] = [0.0, 0, 0]
    t = time.process_time()
    cts = [ct for p in paths for ct in claude_code.parse_file(p, claude_code.ParseStats())]
    parse, cut = min(parse, time.process_time() - t), min(cut, acc[0])
print(f"turns {len(cts)}  parse_file {parse:.3f} s  of which redact_cut {cut:.3f} s ({acc[1]} cuts, "
      f"{acc[2] / 1e6:.1f} M chars)")
"""


if __name__ == "__main__":   # parse_worker_cpu's runner: the trees in turn, a new process each
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    __import__("parse_worker_cpu").run_in_turn(CHILD, __doc__.splitlines()[0], 2)
