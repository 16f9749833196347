#!/usr/bin/env python3
"""Instructions of one ``recall`` request inside the resident helper, per
source tree (valgrind's callgrind, its ``I refs``, every thread,
``PYTHONHASHSEED=0``): a process sets itself up as ``mem helper serve``
does (``keep_generations_open``, ``keep_packs_open`` where the tree has it,
``cmds._helperserve.warm``), runs two warm-up recalls, then N requests
``mem recall --all-projects --json -n 10 QUERY`` through ``cmds.lean``, as
the helper runs them.  Instructions a request = (I refs at N=5 − I refs at
N=1) / 4, so the set-up and the warm-ups cancel.  Two kinds of request:

- ``repeat``: the same query each time (warmed up with itself twice): what
  a request costs when it reads what the last one read;
- ``fresh``: warmed up with two other prompts, then N queries of
  :data:`FRESH`, each once: what a request costs that reads new turns.

Also prints a hash of the N answers per tree (the same on two trees: the
same answers).  Runs the trees' rounds one after the other, each tree's two
N's back to back.  Needs ``valgrind``; the store is only read.

    python bench/helper_instr.py --store STORE --tree base=/tmp/base --tree branch=. \\
        [--query "database migration failed"] [--python PY]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

FRESH = ("database migration failed", "flaky test in the login page", "docker build cache", "rename the config option",
         "memory leak in the worker", "deploy to staging", "rate limit on the api", "upgrade the python version")
WARM = ("how do we run the migrations again", "what was the fiduvik tedugix thing about")

CHILD = r'''
import hashlib, io, os, sys
import objstore
from cmds import _helperserve, lean
objstore.keep_generations_open()
getattr(objstore, "keep_packs_open", lambda: None)()
_helperserve.warm(os.environ["MEM_HOME"])
real = sys.stdout
def once(q):
    sys.stdout = io.StringIO()
    try:
        lean.main(["recall", "--all-projects", "--json", "-n", "10", q])
    finally:
        out = sys.stdout.getvalue(); sys.stdout = real
    return out
n, mode, qs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
if mode == "repeat":
    once(qs[0]); once(qs[0]); outs = [once(qs[0]) for _ in range(n)]
else:
    for q in qs[:2]: once(q)
    outs = [once(q) for q in qs[2:2 + n]]
real.write(hashlib.sha256("".join(outs).encode()).hexdigest()[:16] + "\n")
real.flush()
os._exit(0)
'''
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def count(python: str, tree: str, store: str, n: int, mode: str, qs: list[str]) -> tuple[int, str]:
    """(I refs, answers' hash) of one child process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(MEM_HOME=store, PYTHONPATH=tree, PYTHONHASHSEED="0")
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(CHILD)
    try:
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", python, f.name,
                            str(n), mode, *qs], env=env, cwd=tree, capture_output=True, text=True, timeout=3600)
    finally:
        os.unlink(f.name)
    m = _REFS.search(p.stderr)
    if m is None:
        raise SystemExit(f"{tree}: no I refs (exit {p.returncode}): {p.stderr[-2000:]}")
    return int(m.group(1).replace(",", "")), p.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH (repeatable)")
    ap.add_argument("--query", default=FRESH[0], help="the repeated request's query")
    ap.add_argument("--python", default=sys.executable)
    a = ap.parse_args(argv)
    trees = [t.split("=", 1) for t in a.tree]
    for name, path in trees:   # a first run writes the tree's bytecode (not counted)
        count(a.python, path, a.store, 1, "repeat", [a.query])
    for mode, qs in (("repeat", [a.query]), ("fresh", [*WARM, *FRESH])):
        first = None
        for name, path in trees:
            lo, _h1 = count(a.python, path, a.store, 1, mode, qs)
            hi, h5 = count(a.python, path, a.store, 5, mode, qs)
            per = (hi - lo) / 4
            first = per if first is None else first
            print(f"{mode:6} {name:10} {per / 1e6:8.1f}M a request (N=1 {lo / 1e6:.1f}M, N=5 {hi / 1e6:.1f}M) "
                  f"{(per - first) / first * 100:+.1f}%  answers {h5}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
