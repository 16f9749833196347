"""The prompt hook's "remember that" check (``statements.statement_of``) on
two source trees, in turn, each round a new process per tree.

    python bench/statement_check_ab.py TREE_A TREE_B [--corpus DIR] [--rounds 7]

Every user prompt of the Claude Code transcripts under ``--corpus`` (default
``/tmp/bench-corpus``; a string ``content``) plus :data:`ASKED` is checked
by each tree's ``statement_of`` in a child process (``PYTHONPATH=TREE``),
the trees taken in turn each round.  Each child reports the CPU
(``time.process_time``) of: the first call on a prompt holding a cue word
(``cold``: the pattern built from the program ``rxcache`` kept, or
compiled, and one match, what a new hook process pays once; the kept
programs' file is read before, as its size depends on what ran in the tree), then, warm (every pattern compiled by a first pass), every
prompt once (``all``, per prompt) and the prompts holding a cue word only
(``cue``, per prompt).  Prints the medians per tree in µs,
how many prompts each tree reads as a statement, and every prompt whose
answer differs between the trees (for a person to judge).  Used for
session 31's cues (docs/benchmarks.md, "Session 31 (branch `cue31`)").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

#: the wordings of test31 U9 (prompts the corpus does not hold)
ASKED = ["can you remember that the api port is 9000?", "don't forget: the cache ttl is 300 seconds",
         "note to self: the build agent is runner-7", "remember the following: the log level is debug",
         "remember (for later): the cache host is redis-9", "remember for next time: the api host is api-3"]

_CHILD = r"""
import json, sys, time
prompts = json.load(sys.stdin)
from objstore.capture import statements
from objstore.capture.statements import statement_of
_CUE_WORDS = getattr(statements, "CUE_WORDS", None) or statements._CUE_WORDS   # (before session 34: private)
from objstore.core.rxcache import compile_pattern
compile_pattern(r"bench-warm-up")   # reads the kept programs' file: its size is the tree's history, not the check's
cue = [p for p in prompts if any(w in p.lower() for w in _CUE_WORDS)]
t0 = time.process_time(); statement_of(cue[0]); cold = time.process_time() - t0
got = [statement_of(p) for p in prompts]   # warm: every pattern compiled
t0 = time.process_time()
for p in prompts:
    statement_of(p)
every = time.process_time() - t0
t0 = time.process_time()
for p in cue:
    statement_of(p)
cued = time.process_time() - t0
json.dump({"cold": cold * 1e6, "all": every * 1e6 / len(prompts), "cue": cued * 1e6 / len(cue), "n_cue": len(cue),
           "got": got}, sys.stdout)
"""


def prompts_of(corpus: Path) -> list[str]:
    """Every user prompt with a string content in the ``*.jsonl`` under ``corpus`` (or the file ``corpus``),
    in path order."""
    out = []
    for path in sorted(corpus.rglob("*.jsonl")) if corpus.is_dir() else [corpus]:
        for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            msg = rec.get("message") if isinstance(rec, dict) else None
            if isinstance(msg, dict) and rec.get("type") == "user" and isinstance(msg.get("content"), str):
                out.append(msg["content"])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/bench-corpus"))
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    prompts = prompts_of(args.corpus) + ASKED
    data = json.dumps(prompts)
    runs: dict[str, list[dict]] = {"A": [], "B": []}
    for _ in range(max(1, min(args.rounds, 50))):
        for name, tree in (("A", args.a), ("B", args.b)):
            env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
            p = subprocess.run([sys.executable, "-c", _CHILD], input=data, capture_output=True, text=True,
                               env=env, cwd=tree, timeout=600, check=True)
            runs[name].append(json.loads(p.stdout))
    print(f"{len(prompts)} prompts, {runs['A'][0]['n_cue']} holding a cue word; {args.rounds} rounds, medians (µs)")
    print(f"{'tree':4} {'cold':>8} {'all/prompt':>11} {'cue/prompt':>11} {'statements':>11}")
    for name in "AB":
        r = runs[name]
        med = {k: statistics.median(x[k] for x in r) for k in ("cold", "all", "cue")}
        print(f"{name:4} {med['cold']:8.0f} {med['all']:11.2f} {med['cue']:11.2f} "
              f"{sum(g is not None for g in r[0]['got']):11}")
    for p, a, b in zip(prompts, runs["A"][0]["got"], runs["B"][0]["got"]):
        if a != b:
            print(f"differs: {p[:100]!r}: A {a!r} / B {b!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
