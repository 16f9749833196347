"""The cost of the local seal rules (session 34, branch ``seal34b``;
``objstore.memory.sealrules``) to the hooks: two or more source trees,
each on its own fresh copy of one store per run, rounds interleaved
(alternating order): the median CPU (user + system, ``os.wait4``) of a new
``mem hook claude-code`` process, inline (``MEM_HOOK_FORK=0``), for a
UserPromptSubmit (capture on: the prompt's turn written) and for a Stop
whose sync captures a transcript of ``--turns`` turns of ~1,200 characters
(prose, paths, a command output) as a new session.  Give it a store with a
sealed key (``mem seal``: the tree with the rules HMACs every word start)
and one without.

Usage::

    python bench/seal_rules_cost.py --store /tmp/seal34b/sealed --tree /tmp/seal34b/base --tree . --rounds 9
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
import uuid
from pathlib import Path

PARA = ("The login test fails on ci because the fixture at tests/fixtures/users.json still names the old "
        "staging host; I changed conftest.py to read MEM_TEST_HOST and re-ran pytest -q tests/auth: "
        "14 passed, 2 skipped in 3.41s. Next: update the README section on local setup and bump the "
        "version in pyproject.toml to 2.4.1 before tagging. ") * 4


def _transcript(path: Path, sid: str, turns: int) -> None:
    lines = []
    for i in range(turns):
        ts = f"2026-12-06T08:{i // 60:02d}:{i % 60:02d}.000Z"
        if i % 2 == 0:
            msg = {"role": "user", "content": f"step {i}: {PARA[:300]}"}
            lines.append({"type": "user", "uuid": f"u{i}", "sessionId": sid, "timestamp": ts, "message": msg})
        else:
            msg = {"role": "assistant", "id": f"m{i}", "content": [{"type": "text", "text": PARA}]}
            lines.append({"type": "assistant", "uuid": f"a{i}", "sessionId": sid, "timestamp": ts, "message": msg})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def _run(tree: str, store: Path, data: dict) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(MEM_HOME=str(store), MEM_NO_HELPER="1", MEM_HOOK_FORK="0", PYTHONPATH=tree)
    p = subprocess.Popen([sys.executable, "-m", "cmds", "hook", "claude-code"], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tree, env=env)
    p.stdin.write(json.dumps(data).encode())
    p.stdin.close()
    _pid, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{tree}: exit {os.waitstatus_to_exitcode(status)}")
    return ru.ru_utime + ru.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, required=True, help="the store, copied afresh for every run")
    ap.add_argument("--tree", action="append", required=True, help="a source tree (two or more)")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--turns", type=int, default=60, help="turns of the Stop sync's transcript")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="seal-rules-cost-"))
    try:
        cwd = work / "dev" / "api"
        cwd.mkdir(parents=True)
        cpu = {(t, ev): [] for t in a.tree for ev in ("prompt", "stop")}
        for r in range(a.rounds):
            order = a.tree if r % 2 == 0 else a.tree[::-1]
            for t in order:
                for ev in ("prompt", "stop"):
                    s = work / "s"
                    shutil.rmtree(s, ignore_errors=True)
                    shutil.copytree(a.store, s, symlinks=True)
                    sid = str(uuid.uuid4())
                    data = {"hook_event_name": "UserPromptSubmit" if ev == "prompt" else "Stop", "session_id": sid,
                            "cwd": str(cwd), "prompt": PARA[:300], "transcript_path": None}
                    if ev == "stop":
                        tp = work / f"{sid}.jsonl"
                        _transcript(tp, sid, a.turns)
                        data["transcript_path"] = str(tp)
                    cpu[(t, ev)].append(_run(t, s, data))
        for (t, ev), xs in cpu.items():
            print(f"{t} {ev}: median CPU {statistics.median(xs) * 1000:.1f} ms ({len(xs)} processes)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
