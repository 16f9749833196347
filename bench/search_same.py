"""The same searches on two stores, each with its own ``mem``: whether a
change of the index format changed any answer.

    python bench/search_same.py STORE_A TREE_A STORE_B TREE_B [QUERY ...]

For each query (default: :data:`QUERIES`, 30 words and phrases of the
benchmark corpus's turns, some with no hit), runs ``mem search -n 50 --what
turns --json QUERY`` in a new process with ``MEM_HOME`` = the store and
``PYTHONPATH`` = the source tree (a checkout or ``git worktree`` of the
revision that wrote it), and compares the two JSON outputs byte for byte.
Prints each query's hit count on each side and ``same``/``DIFFERENT``,
how many ids of the first 10 hits both sides give and whether the first
is the same (a ranking change: session 25's ``no_freqs``); exits 1 when
any differ.  Used for session 16's ``plain_diff`` default
(docs/benchmarks.md, "Session 16 (branch size16)").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

QUERIES = ("auth.py", "lambda", "payment", "visionkit", "error", "running tests", "database migration",
           "the function returns", "timeout", "retry", "cache invalidation", "tokenizer", "gradient",
           "pagination", "refactor", "install", "docker", "config", "failing test", "memory leak",
           "api key", "deploy", "schema", "login", "websocket", "performance", "null pointer",
           "unit tests", "merge conflict", "logging")


def search(store: str, tree: str, query: str) -> bytes:
    """The stdout of ``mem search`` of ``query`` in ``store`` run from ``tree``."""
    env = dict(os.environ, MEM_HOME=store, PYTHONPATH=os.path.abspath(tree))
    return subprocess.run([sys.executable, "-m", "cmds", "search", "-n", "50", "--what", "turns", "--json", query],
                          env=env, cwd="/", capture_output=True, check=True).stdout


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    store_a, tree_a, store_b, tree_b, *queries = argv
    differ = firsts = overlap = 0
    for q in queries or QUERIES:
        a, b = search(store_a, tree_a, q), search(store_b, tree_b, q)
        got = [json.loads(x or b"[]") if (x or b"").strip().startswith(b"[") else None for x in (a, b)]
        hits = [len(g) if g is not None else "?" for g in got]
        ids = [[h.get("id") for h in g[:10]] if g is not None else [] for g in got]
        firsts += ids[0][:1] == ids[1][:1]
        overlap += len(set(ids[0]) & set(ids[1]))
        differ += a != b
        print(f"{q!r:26} {hits[0]!s:>4} {hits[1]!s:>4}  {'same' if a == b else 'DIFFERENT'}"
              f"  top 10 shared {len(set(ids[0]) & set(ids[1]))}, first {'same' if ids[0][:1] == ids[1][:1] else 'not'}")
    n = len(queries or QUERIES)
    print(f"{n - differ} same, {differ} different; the first hit the same in {firsts}, "
          f"top 10 shared {overlap / n:.1f} of 10 on average")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
