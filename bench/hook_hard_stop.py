"""Tester finding F8 (session 16): concurrent UserPromptSubmit hooks while busy processes hold
both cores; the wall time of each hook process (spawn to exit), an older tree and this one
alternately in the same run.  The docs promise an exit one second after the 2 s budget.

    python bench/hook_hard_stop.py --base /tmp/red16-base [--rounds 3] [--hooks 12] [--busy 2]

(``git worktree add /tmp/red16-base 20357f2`` or ``git archive`` for the older tree.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = str(Path(__file__).resolve().parents[1])


def one_round(tree: str, store: str, hooks: int, busy: int) -> list[float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=store, PYTHONPATH=tree, MEM_NO_HELPER="1")
    loops = [subprocess.Popen([sys.executable, "-c",
                               "import time\nend = time.monotonic() + 40\nwhile time.monotonic() < end: pass\n"])
             for _ in range(busy)]
    try:
        time.sleep(0.5)
        procs = []
        for i in range(hooks):
            ev = json.dumps({"session_id": f"f8-{i}", "hook_event_name": "UserPromptSubmit", "cwd": "/tmp",
                             "prompt": f"what port does the db use {i}", "transcript_path": None}).encode()
            t0 = time.monotonic()
            p = subprocess.Popen([sys.executable, "-m", "cmds", "hook", "claude-code"], stdin=subprocess.PIPE,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tree, env=env)
            procs.append((t0, p, ev))
        for _t0, p, ev in procs:
            p.stdin.write(ev)
            p.stdin.close()
        walls = []
        for t0, p, _ev in procs:
            p.wait()
            walls.append(time.monotonic() - t0)
        return walls
    finally:
        for b in loops:
            b.kill()
            b.wait()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--hooks", type=int, default=12)
    ap.add_argument("--busy", type=int, default=2)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "store")
        subprocess.run([sys.executable, "-m", "cmds", "--home", store, "init"], cwd=HERE, capture_output=True,
                       env={**os.environ, "PYTHONPATH": HERE}, check=True)
        for _ in range(a.rounds):
            for name, tree in (("base", a.base), ("this", HERE)):
                w = one_round(tree, store, a.hooks, a.busy)
                print(f"{name}: max {max(w):.2f} s, median {statistics.median(w):.2f} s, "
                      f"over 3 s: {sum(x > 3.0 for x in w)}/{len(w)}", flush=True)


if __name__ == "__main__":
    main()
