#!/usr/bin/env python3
"""What pairing a secret-printing call with its result costs the Claude Code
reader: ``python bench/secret_calls_ab.py BASE_TREE [TREE] [--corpus DIR] [--runs N] [--tainted]``.

Runs ``claude_code.parse_file`` over every transcript of ``--corpus``
(default ``/tmp/bench-corpus``) in a fresh child process per tree and run,
the trees interleaved (BASE, TREE, BASE, ...), and prints each tree's median
CPU (``time.process_time`` of the parse, in the child), the turn count, the
results stored as ``[REDACTED:sealed-value]`` (``transcript.prints_secret``,
docs/hooks.md) and the ratio TREE / BASE (docs/benchmarks.md, "Session 18
(branch `sealed18`)").  ``--tainted``: the worst case of the withheld trail
(session 21): a copy of the corpus (under /tmp, removed after) where each
transcript opens with a call writing a sealed value to ``/tmp/pin/pin.txt``,
so every later call of every session goes through the whole check
(``transcript.withholds``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

CHILD = r'''
import sys, time
from objstore.capture import claude_code
from objstore.capture.transcript import ParseStats
files = sorted(claude_code.discover([sys.argv[1]]))
t = time.process_time()
turns = [ct.text for f in files for ct in claude_code.parse_file(f, ParseStats())]
cpu = time.process_time() - t
print(cpu, len(turns), sum(1 for x in turns if x == "[REDACTED:sealed-value]"))
'''


def tainted_copy(corpus: str) -> str:
    """A copy of ``corpus`` (a new folder under /tmp) where each ``.jsonl`` has, after its first
    record naming a session, an assistant ``Bash`` call ``mem sealed show … > /tmp/pin/pin.txt`` and its result."""
    out = tempfile.mkdtemp(prefix="secret-calls-tainted-")
    for root, _dirs, names in os.walk(corpus):
        for name in names:
            src = os.path.join(root, name)
            dst = os.path.join(out, os.path.relpath(src, corpus))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if not name.endswith(".jsonl"):
                shutil.copyfile(src, dst)
                continue
            with open(src, "rb") as f, open(dst, "wb") as g:
                done = False
                for raw in f:
                    g.write(raw)
                    if done:
                        continue
                    try:
                        rec = json.loads(raw)
                    except ValueError:
                        continue
                    if isinstance(rec, dict) and rec.get("sessionId") and rec.get("cwd"):
                        base = {k: rec[k] for k in ("sessionId", "cwd", "version") if k in rec}
                        call = {**base, "type": "assistant", "uuid": "taint-a", "timestamp": rec.get("timestamp"),
                                "message": {"id": "msg_taint", "role": "assistant", "content": [
                                    {"type": "tool_use", "id": "toolu_taint", "name": "Bash", "input": {
                                        "command": "mem sealed show user/pin > /tmp/pin/pin.txt"}}]}}
                        res = {**base, "type": "user", "uuid": "taint-u", "timestamp": rec.get("timestamp"),
                               "message": {"role": "user", "content": [
                                   {"type": "tool_result", "tool_use_id": "toolu_taint", "content": ""}]}}
                        g.write((json.dumps(call) + "\n" + json.dumps(res) + "\n").encode())
                        done = True
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("tree", nargs="?", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--tainted", action="store_true", help="the worst case: every session has a withheld file")
    a = ap.parse_args()
    if a.tainted:
        a.corpus = tainted_copy(a.corpus)
        try:
            run(a)
        finally:
            shutil.rmtree(a.corpus)
    else:
        run(a)


def run(a) -> None:
    trees = {"base": os.path.abspath(a.base), "tree": os.path.abspath(a.tree)}
    cpu: dict[str, list[float]] = {k: [] for k in trees}
    counts: dict[str, tuple[str, str]] = {}
    for _ in range(a.runs):
        for name, tree in trees.items():
            out = subprocess.run([sys.executable, "-c", CHILD, a.corpus], capture_output=True, text=True,
                                 check=True, cwd=tree, env={**os.environ, "PYTHONPATH": tree}).stdout.split()
            cpu[name].append(float(out[0]))
            counts[name] = (out[1], out[2])
    for name in trees:
        print(f"{name}: median CPU {statistics.median(cpu[name]):.3f} s, turns {counts[name][0]}, "
              f"withheld results {counts[name][1]}")
    print(f"ratio tree/base {statistics.median(cpu['tree']) / statistics.median(cpu['base']):.3f} "
          f"({a.runs} runs each, interleaved; load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
