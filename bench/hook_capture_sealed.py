"""The UserPromptSubmit hook with capture on and inline (``MEM_HOOK_FORK=0``:
the prompt's turn written by the hook process itself) of two or more source
trees, each on its own copy of one store, rounds interleaved: the median
wall and CPU (user + system, ``os.wait4``) of a new ``mem hook claude-code``
process per prompt, each a new session.  Session 31 (branch ``seal31``):
the capture's sealed-statement check (``TurnAppender(withhold=)``) must cost
nothing measurable on a store with no sealed key (docs/benchmarks.md).

Usage::

    python bench/hook_capture_sealed.py --store /tmp/scl29/ref --tree /tmp/base --tree . --rounds 21
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
import time
import uuid
from pathlib import Path

PROMPTS = ("which port does the staging database use?", "remember that the build agent is runner-seven",
           "why does the login test fail on ci?")


def _run(tree: str, store: Path, cwd: str, prompt: str) -> tuple[float, float, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(MEM_HOME=str(store), MEM_NO_HELPER="1", MEM_HOOK_FORK="0", PYTHONPATH=tree)
    data = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": str(uuid.uuid4()), "cwd": cwd,
                       "prompt": prompt, "transcript_path": None}).encode()
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, "-m", "cmds", "hook", "claude-code"], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tree, env=env)
    p.stdin.write(data)
    p.stdin.close()
    _pid, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return time.monotonic() - t0, ru.ru_utime + ru.ru_stime, p.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, required=True, help="the store, copied once per tree (never written)")
    ap.add_argument("--tree", action="append", required=True, help="a source tree (two or more)")
    ap.add_argument("--rounds", type=int, default=21, help="rounds; each runs every prompt on every tree")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hook-capture-sealed-"))
    try:
        stores = []
        for i, _t in enumerate(a.tree):
            shutil.copytree(a.store, work / f"s{i}", symlinks=True)
            stores.append(work / f"s{i}")
        cwd = work / "dev" / "api"
        cwd.mkdir(parents=True)
        wall = {t: [] for t in a.tree}
        cpu = {t: [] for t in a.tree}
        for r in range(a.rounds):
            for prompt in PROMPTS:
                order = list(enumerate(a.tree)) if r % 2 == 0 else list(enumerate(a.tree))[::-1]
                for i, t in order:
                    w, c, rc = _run(t, stores[i], str(cwd), prompt)
                    if rc != 0:
                        raise SystemExit(f"{t}: exit {rc}")
                    wall[t].append(w)
                    cpu[t].append(c)
        for t in a.tree:
            print(f"{t}: median wall {statistics.median(wall[t]) * 1000:.1f} ms, "
                  f"median CPU {statistics.median(cpu[t]) * 1000:.1f} ms ({len(wall[t])} processes)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
