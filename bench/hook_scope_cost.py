#!/usr/bin/env python3
"""What the prompt hook's scope order (keyrank rule 5 in the gate,
``injectscope.one_name_order``; session 29, test28b Z10) costs and changes:
``inject_for_prompt`` of each prompt in-process, two or more source trees,
each on its own copy of one store, rounds interleaved; per tree the median
wall time of a call over every prompt and round, and the fact keys each
prompt injected (the lines that differ between the trees are printed).

    python bench/hook_scope_cost.py --store STORE --tree base=/path --tree branch=. \\
        [--cwd /home/dev/api] [--style PROJECT] [--rounds 5] [--prompt P ...]

``--style PROJECT`` adds test28b Z10's three facts to each copy
(``project/PROJECT/style "2 spaces in this repo"``, ``user/style "spaces,
4 wide"``, ``global/style "tabs"``) with the tree under test.  Each call
has a session id of its own (a session's state says what it was given);
the gate records the use of what it injects in the tree's own copy.
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
from pathlib import Path

PROMPTS = ("should I indent with tabs or spaces here?", "tabs or spaces?", "should I use tabs?",
           "what indentation style should I use in this repo?",
           "why does the ledgerly migration fail on the staging database?",
           "what port does the api listen on now?", "fix the flaky auth test in tuzadez",
           "which test runner do we use", "cache invalidation bug in the api", "merge conflict in the config")

_CHILD = r"""
import json, sys, time, uuid
from objstore.memory.opening import open_store
from objstore.retrieval.inject import inject_for_prompt
home, cwd, prompts = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
out = []
with open_store(home) as s:
    inject_for_prompt(s, "warm-" + uuid.uuid4().hex, "warm up the imports", cwd=cwd)
    for p in prompts:
        t0 = time.perf_counter()
        inj = inject_for_prompt(s, uuid.uuid4().hex, p, cwd=cwd)
        out.append([time.perf_counter() - t0, [c.ref for c in inj.injected if c.kind == "fact"]])
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH (two or more)")
    ap.add_argument("--cwd", default="/home/dev/api")
    ap.add_argument("--style", metavar="PROJECT")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--prompt", action="append")
    a = ap.parse_args(argv)
    trees = [t.split("=", 1) for t in a.tree]
    prompts = list(a.prompt or PROMPTS)
    work = Path(tempfile.mkdtemp(prefix="hook-scope-cost-"))
    try:
        homes = {}
        for name, tree in trees:
            homes[name] = work / name
            shutil.copytree(a.store, homes[name], symlinks=True)
            if a.style:
                for key, value in ((f"project/{a.style}/style", "2 spaces in this repo"),
                                   ("user/style", "spaces, 4 wide"), ("global/style", "tabs")):
                    subprocess.run([sys.executable, "-m", "cmds", "--home", str(homes[name]), "remember", key, value],
                                   env=dict(os.environ, PYTHONPATH=tree, MEM_AGENT="0"), cwd=tree, check=True,
                                   capture_output=True, timeout=120)
                subprocess.run([sys.executable, "-m", "cmds", "--home", str(homes[name]), "reindex"],
                               env=dict(os.environ, PYTHONPATH=tree), cwd=tree, capture_output=True, timeout=600)
        times: dict[str, list[float]] = {n: [] for n, _t in trees}
        keys: dict[str, list] = {}
        for _r in range(max(1, min(a.rounds, 50))):
            for name, tree in trees:
                p = subprocess.run([sys.executable, "-c", _CHILD, str(homes[name]), a.cwd, json.dumps(prompts)],
                                   env=dict(os.environ, PYTHONPATH=tree, MEM_NO_HELPER="1"), cwd=tree,
                                   capture_output=True, text=True, timeout=600, check=True)
                got = json.loads(p.stdout)
                times[name] += [t for t, _k in got]
                keys.setdefault(name, [k for _t, k in got])
        for name, _t in trees:
            print(f"{name}: median {statistics.median(times[name]) * 1e3:.2f} ms per prompt "
                  f"({len(times[name])} calls)")
        first = trees[0][0]
        for i, p in enumerate(prompts):
            row = {n: keys[n][i] for n, _t in trees}
            if any(v != row[first] for v in row.values()):
                print(f"DIFFERENT {p!r}: " + "; ".join(f"{n} {v}" for n, v in row.items()))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
