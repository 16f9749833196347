"""The prompt hook's retraction check (``capture.retraction.retraction_of``,
test34 T9: "forget that" right after a "remember that" takes it back) over
real prompts: which it reads as a retraction, which of those come right
after a prompt stating a fact (``statement_of``: the hook would take that
fact back), and its CPU cost.

    python bench/retraction_check.py [--corpus DIR ...] [--rounds 7]

Every user prompt (a string ``content``) of the ``*.jsonl`` under each
``--corpus`` (default ``/work/shared/data/transcripts`` and
``/tmp/bench-corpus``), in file order per transcript.  Each round a new
process (``PYTHONPATH`` = this tree) reports the CPU (``time.process_time``)
of the first call (``cold``: the module imported and its pattern built,
what a new hook process pays once, after its statement check) and, warm, per prompt.  Prints the
medians in µs and every prompt read as a retraction (for a person to
judge), ``strong`` when it names the memory (``Retraction.strong``: the
only ones that act) or ``weak``, marked ``AFTER A STATEMENT`` when the
prompt before it states a fact (a strong one there: the hook would take
it back).  (docs/benchmarks.md, "Session 35 (branch `cue35`)")
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from statement_check_ab import prompts_of  # noqa: E402  (bench/'s sibling script)

_CHILD = r"""
import json, sys, time
seqs = json.load(sys.stdin)
from objstore.core.rxcache import compile_pattern
compile_pattern(r"bench-warm-up")   # reads the kept programs' file, as statement_check_ab does
from objstore.capture.statements import statement_of
statement_of("remember that the db port is 5432")   # the hook has read the prompt so already
t0 = time.process_time()
from objstore.capture.retraction import retraction_of
retraction_of("scratch that")
cold = time.process_time() - t0
flat = [p for s in seqs for p in s]
t0 = time.process_time()
for p in flat:
    retraction_of(p)
every = time.process_time() - t0
hits = []
for s in seqs:
    for i, p in enumerate(s):
        if (r := retraction_of(p)) is not None:
            hits.append([p, bool(i and statement_of(s[i - 1]) is not None), bool(getattr(r, "strong", True))])
json.dump({"cold": cold * 1e6, "all": every * 1e6 / max(1, len(flat)), "n": len(flat), "hits": hits}, sys.stdout)
"""


def sequences(corpus: Path) -> list[list[str]]:
    """Per ``*.jsonl`` under ``corpus`` (path order), its user prompts with a string content, in file order
    (``statement_check_ab.prompts_of`` of that one file)."""
    return [prompts_of(path) for path in sorted(corpus.rglob("*.jsonl"))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, action="append")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    corpora = args.corpus or [Path("/work/shared/data/transcripts"), Path("/tmp/bench-corpus")]
    seqs = [s for c in corpora if c.is_dir() for s in sequences(c)]
    tree = Path(__file__).resolve().parent.parent
    runs = []
    for _ in range(max(1, min(args.rounds, 50))):
        p = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(seqs), capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(tree)}, cwd=tree, timeout=600, check=True)
        runs.append(json.loads(p.stdout))
    hits = runs[0]["hits"]
    print(f"{runs[0]['n']} prompts in {len(seqs)} transcripts; {args.rounds} rounds, CPU medians: "
          f"cold {statistics.median(r['cold'] for r in runs):.0f} µs, "
          f"warm {statistics.median(r['all'] for r in runs):.2f} µs a prompt")
    print(f"read as a retraction: {len(hits)} (naming the memory: {sum(st for _p, _a, st in hits)}); "
          f"right after a statement: {sum(a for _p, a, _st in hits)} "
          f"(naming the memory, where the hook would act: {sum(a and st for _p, a, st in hits)})")
    for p, after, strong in hits:
        print(f"  {'AFTER A STATEMENT ' if after else ''}{'strong ' if strong else 'weak '}{p[:100]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
