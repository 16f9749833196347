"""The issue-12 table's "needles found first" alone, for one or more stores
each read by its own source tree (a change of ranking checked without a
whole ``bench/run.py``; docs/benchmarks.md, "Session 25 (branch `sz25`)").

    python bench/needles.py --corpus /tmp/bench-corpus --tree base=/path:STORE --tree branch=.:STORE2

For each needle of the corpus's ``needles.json``, runs ``mem search --json
-n 10 QUERY`` in a new process per tree (``PYTHONPATH`` = the tree,
``MEM_HOME`` = its store, the tree's ``bin/mem`` under this interpreter)
and counts, as ``run.py`` does (``top_session_mem``, ``session_match``),
the needles whose session is the first hit and those among the ten.
Prints one line per tree, then the needles whose first hit differs between
the trees.  Nothing in the stores is written.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import load_needles, needle_session, session_match, top_session_mem  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, required=True, help="a corpus with needles.json")
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=TREE:STORE",
                    help="a source tree and the store it reads (given twice or more)")
    args = ap.parse_args()
    needles = load_needles(args.corpus)
    if not needles:
        raise SystemExit(f"bench: no needles.json in {args.corpus}")
    firsts: dict[str, list[str | None]] = {}
    for spec in args.tree:
        name, rest = spec.split("=", 1)
        tree, store = rest.rsplit(":", 1)
        tree = str(Path(tree).resolve())
        env = {**os.environ, "PYTHONPATH": tree, "MEM_HOME": store, "MEM_NO_HELPER": "1"}
        top1 = top10 = 0
        firsts[name] = []
        for n in needles:
            out = subprocess.run([sys.executable, f"{tree}/bin/mem", "search", "--json", "-n", "10", n["query"]],
                                 capture_output=True, text=True, env=env, cwd="/", timeout=120, check=True).stdout
            first, sessions = top_session_mem(out)
            want = needle_session(n)
            top1 += session_match(first, want)
            top10 += any(session_match(s, want) for s in sessions)
            firsts[name].append(first)
        print(f"{name}: needles found first {top1}/{len(needles)}, in the top 10 {top10}/{len(needles)}")
    names = list(firsts)
    for i, n in enumerate(needles):
        got = {k: firsts[k][i] for k in names}
        if len(set(got.values())) > 1:
            print(f"first hit differs for {n['query']!r}: {got}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
