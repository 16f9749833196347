"""Whether two source trees give the same ``mem recall`` answers on one
store (a change meant to make recall faster must not change what it says).

    python bench/recall_same.py --store STORE --tree base=/path --tree branch=. [--query Q ...]

For each query (default: :data:`QUERIES`, words and questions of the
benchmark corpus's turns, some with no hit), runs ``mem recall
--all-projects --json -n 10 QUERY`` and ``mem recall --all-projects -n 10
QUERY`` (text) in a new process per tree (``PYTHONPATH`` = the tree,
``MEM_HOME`` = STORE, which a recall never writes) and compares stdout,
stderr and the exit status byte for byte.  Prints one line per command
line, ``same`` or ``DIFFERENT``; exits 1 when any differ.
``--tree-store NAME=STORE``: tree NAME on its own store, as it wrote it (a
format change an older tree cannot read; docs/benchmarks.md, Session 26
(sz26)).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

QUERIES = ("tuzadez bibotak", "parebuq fekivik", "database migration", "api port", "running tests",
           "the function returns", "cache invalidation", "happy queries", "dying", "café", "auth.py",
           "what port does the api listen on now?", "why does the ledgerly migration fail on the staging database?",
           "fix the flaky auth test in tuzadez", "remind me what we decided about the profile rollout",
           "timeout", "retry", "docker", "memory leak", "merge conflict")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH (two)")
    ap.add_argument("--tree-store", action="append", default=[], metavar="NAME=STORE",
                    help="the store tree NAME runs on instead of --store (a store written by that tree, "
                         "when the trees write different formats; repeatable; as bench/startup.py's)")
    ap.add_argument("--query", action="append")
    a = ap.parse_args(argv)
    trees = [t.partition("=")[::2] for t in a.tree]
    stores = dict(s.split("=", 1) for s in a.tree_store)
    differ = 0
    for q in a.query or QUERIES:
        for form in (["--json"], []):
            argv_ = ["recall", "--all-projects", *form, "-n", "10", q]
            outs = []
            for name, tree in trees:
                env = dict(os.environ, MEM_HOME=stores.get(name, a.store), PYTHONPATH=os.path.abspath(tree), NO_COLOR="1")
                p = subprocess.run([sys.executable, "-m", "cmds", *argv_], env=env, cwd="/", capture_output=True)
                outs.append((p.returncode, p.stdout, p.stderr))
            same = all(o == outs[0] for o in outs)
            differ += not same
            print(f"{'same' if same else 'DIFFERENT'}  {len(outs[0][1]):6d} B  {' '.join(argv_[1:-1])} {q!r}")
    print(f"{differ} of {2 * len(a.query or QUERIES)} command lines differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
