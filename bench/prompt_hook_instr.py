"""Instructions (valgrind callgrind ``I refs``) of the prompt hook capturing a 2 KB prompt, per source tree.

One real ``mem hook claude-code`` process per ``UserPromptSubmit`` (``MEM_HOOK_FORK=0``: the capture in
the process measured; the hook's wall-clock budgets raised, as valgrind runs it ~50x slower), each with
a new session whose transcript holds the prompt's record; the trees run interleaved, each on a store of
its own made by ``mem init``; the first round is not counted (bytecode written).  Prints each tree's
counts and medians, and the last tree's difference to the first's.

    python bench/prompt_hook_instr.py --tree base=/tmp/base --tree branch=. [--rounds 7] [--python PY]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """import runpy, sys
import cmds._hookclock as c
c.BUDGET_S.update({k: 3600.0 for k in c.BUDGET_S})
c.DEFAULT_BUDGET_S = 3600.0
sys.argv = ["mem", "hook", "claude-code"]
runpy.run_module("cmds", run_name="__main__")
"""
WORDS = "please refactor the payment module so that the retry loop uses exponential backoff and logs each attempt "
_REFS = re.compile(r"Collected : (\d+)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH (repeatable)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--python", default=sys.executable)
    a = ap.parse_args(argv)
    trees = dict(t.split("=", 1) for t in a.tree)
    root = Path(tempfile.mkdtemp(prefix="prompt-hook-instr-"))
    child = root / "child.py"
    child.write_text(CHILD)
    res: dict[str, list[int]] = {k: [] for k in trees}

    def env(tree: str, store: Path) -> dict:
        e = {k: v for k, v in os.environ.items() if not k.startswith("MEM_") and k != "PYTHONDONTWRITEBYTECODE"}
        e.update(MEM_HOME=str(store), PYTHONPATH=tree, MEM_HOOK_FORK="0", MEM_NO_HELPER="1")
        return e
    try:
        for k, tree in trees.items():
            subprocess.run([a.python, "-m", "cmds", "init"], env=env(tree, root / k), cwd=tree, check=True,
                           capture_output=True)
        for i in range(a.rounds + 1):
            for k, tree in trees.items():
                sid = f"0a1b2c3d-0000-4000-8000-{i:012d}"
                t = root / f"{k}-{sid}.jsonl"
                prompt = (f"{i} " + WORDS * 20)[:2048]
                t.write_text(json.dumps({"type": "user", "uuid": f"u{i}", "sessionId": sid, "cwd": "/home/u/proj",
                                         "timestamp": "2026-01-05T10:00:00Z",
                                         "message": {"role": "user", "content": prompt}}) + "\n")
                data = json.dumps({"session_id": sid, "transcript_path": str(t), "cwd": "/home/u/proj",
                                   "hook_event_name": "UserPromptSubmit", "prompt": prompt}).encode()
                p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", a.python,
                                    str(child)], input=data, env=env(tree, root / k), cwd=tree, capture_output=True)
                m = _REFS.search(p.stderr.decode())
                if m is None:
                    raise SystemExit(f"{tree}: no count (exit {p.returncode}): {p.stderr.decode()[-2000:]}")
                if i:
                    res[k].append(int(m.group(1)))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for k, v in res.items():
        print(f"{k}: median {statistics.median(v) / 1e6:.1f}M  {[round(x / 1e6, 1) for x in v]}")
    first, last = (statistics.median(v) for v in (res[next(iter(res))], res[list(res)[-1]]))
    print(f"{list(res)[-1]} - {next(iter(res))}: {(last - first) / 1e6:+.2f}M ({100 * (last - first) / first:+.2f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
