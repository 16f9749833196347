"""Prompts whose hook stored nothing come back from their transcripts
(test33b T16, its other half).

Twelve concurrent prompt hooks at load 6-8: six stored no turn at all
(StoreLocked, or the budget ran out before the store lock: fail open, as
documented).  The Stop hook's transcript sync of the session, or the next
catch-up (``mem hook catch-up``, what the shell wrapper runs after the
agent exits, and SessionStart), stores each such prompt from its
transcript, and the fact its "remember that …" states (late: as the hook
would have written it).  The drop is made deterministic: the store lock is
held by another process and the hooks may not hand their write to a
detached child (``MEM_HOOK_FORK=0``), so each one logs StoreLocked and
stores nothing.  Real ``mem hook`` processes started concurrently, real
transcript files, a real store."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from objstore.memory.facts import list_keys
from objstore.memory.opening import open_store
from tests.hooks._util import (REPO, asst, hook_env, hook_log, line, lock_held, payload, run_hook, text, turns,
                               user)

N = 6


def _sid(i: int) -> str:
    return f"26262626-0000-4000-8000-0000000000{i:02d}"


def _prompt(i: int) -> str:
    return f"remember that the port of svc{i} is 70{i:02d}. Actually, it's 71{i:02d}"


def _bodies(store: Path) -> list[str]:
    from objstore.memory.facts import versions
    with open_store(store) as s:
        return [v.fact.body for k, _h in list_keys(s) for v in versions(s, k)[:1] if "svc" in k]


def test_prompts_whose_hooks_stored_nothing_come_back_from_their_transcripts(tmp_path):
    store = tmp_path / "store"
    proj = tmp_path / "projects" / "-home-u-proj"
    proj.mkdir(parents=True)
    # a session mem already knows in this folder (its Stop hook synced it): catch-up reads the folder
    t0 = proj / f"{_sid(0)}.jsonl"
    t0.write_bytes(line(user("u0", "first task", _sid(0))) + line(asst("a0", "msg_0", [text("done")], _sid(0))))
    assert run_hook(store, payload("Stop", _sid(0), t0, last_assistant_message="done"))[0] == 0
    paths = {}
    for i in range(1, N + 1):     # the agent writes each prompt to its transcript, then runs the hook
        paths[i] = proj / f"{_sid(i)}.jsonl"
        paths[i].write_bytes(line(user(f"u{i}", _prompt(i), _sid(i))))
    env = hook_env(store, MEM_HOOK_FORK="0")
    with lock_held(store):
        procs = [subprocess.Popen([sys.executable, "-m", "cmds", "hook", "claude-code"], stdin=subprocess.PIPE,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=REPO)
                 for _ in range(N)]
        for i, p in enumerate(procs, 1):
            p.stdin.write(json.dumps(payload("UserPromptSubmit", _sid(i), paths[i], prompt=_prompt(i))).encode())
            p.stdin.close()
        end = time.monotonic() + 120
        for p in procs:
            assert p.wait(max(1.0, end - time.monotonic())) == 0     # fail open, within the bound
    log = hook_log(store)
    assert all(_sid(i) in log for i in range(1, N + 1)), log   # each logged why it stored nothing
    assert not {t[0] for t in turns(store)} & {_sid(i) for i in range(1, N + 1)}
    assert _bodies(store) == []
    # the agent answers session 1 (its Stop hook syncs it); the others end unseen: the catch-up reads them
    with open(paths[1], "ab") as f:
        f.write(line(asst("a1", "msg_1", [text("noted")], _sid(1))))
    assert run_hook(store, payload("Stop", _sid(1), paths[1], last_assistant_message="noted"))[0] == 0
    assert [t[3] for t in sorted(turns(store)) if t[0] == _sid(1)] == [_prompt(1), "noted"]
    assert run_hook(store, b"", args=("hook", "catch-up", "--idle", "0"))[0] == 0
    got = {t[0]: t[3] for t in turns(store) if t[2] == "user"}
    assert all(got.get(_sid(i)) == _prompt(i) for i in range(1, N + 1)), got
    bodies = _bodies(store)
    assert len(bodies) == N and all(f"71{i:02d}" in " ".join(bodies) for i in range(1, N + 1)), bodies
    fsck = subprocess.run([sys.executable, "-m", "cmds", "fsck"], env=hook_env(store), cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
