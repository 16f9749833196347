#!/usr/bin/env python3
"""New-process ``mem recall`` CPU per query, in two or more source trees,
interleaved on one store (issue 12, "Start-up"; docs/benchmarks.md,
"Session 24 (branch `lat24`)").

``bench/startup.py`` takes the median over its four queries together: a
cut that makes the queries with many turn hits cheaper moves that median
little, since the cheap queries (few hits) sit beside them.  This runs
``mem recall --all-projects --json -n 10 QUERY`` for each query and tree in
turn (one warm-up round first), each a new process laid out as
``bench/startup.py`` lays it out (its virtualenv and ``mem`` scripts, under
``--work``), and prints the median user+sys CPU per query and tree, and
each tree's difference from the first.  A recall writes nothing, so the
store stays as it was (unlike ``startup.py``'s hook and ``remember``).

    python bench/recall_ab.py --store STORE --tree base=/path --tree branch=. --runs 15 [--query Q ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import QUERIES, make_env, run  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=PATH")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--query", action="append", help=f"(repeatable; default: {QUERIES} and 'database migration failed')")
    ap.add_argument("--work", type=Path, default=Path("/tmp/mem-startup"))
    a = ap.parse_args(argv)
    trees = {k: str(Path(v).resolve()) for k, v in (t.split("=", 1) for t in a.tree)}
    queries = a.query or ["database migration failed", *QUERIES]
    a.work.mkdir(parents=True, exist_ok=True)
    home = a.work / "home"
    home.mkdir(exist_ok=True)
    _py, mems = make_env(a.work, trees)
    cpu: dict[tuple[str, str], list[float]] = {}
    for i in range(-1, a.runs):
        for q in queries:
            for name, tree in trees.items():
                env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
                       "MEM_HOME": str(a.store), "PYTHONPATH": tree}
                _w, c, code = run([mems[name], "recall", "--all-projects", "--json", "-n", "10", q], env, home, None)
                if code != 0:
                    print(f"recall_ab: {name} exited {code} on {q!r}", file=sys.stderr)
                if i >= 0:
                    cpu.setdefault((q, name), []).append(c)
    first = next(iter(trees))
    print(f"{a.runs} new processes per query and tree, load average {os.getloadavg()[0]:.1f}; CPU medians")
    print()
    print("| query | " + " | ".join(trees) + " |")
    print("|---|" + "---|" * len(trees))
    for q in queries:
        base = statistics.median(cpu[(q, first)])
        cells = [f"{base:.1f} ms"] + [f"{(m := statistics.median(cpu[(q, t)])):.1f} ms ({m - base:+.1f})"
                                       for t in list(trees)[1:]]
        print(f"| {q} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
