"""Issue 21 item 8: the hooks registered twice (plugin + settings) run
concurrently; every prompt is stored once, whatever the two runs' timing."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from objstore import capture_prompt
from objstore.memory.opening import open_store
from tests.hooks._util import REPO, asst, bag, hook_env, line, payload, text, user

SID = "0a1b2c3d-0000-4000-8000-0000000000dd"


def _final_sync(store: Path, t: Path) -> None:
    """What catch-up does after the session: SessionEnd has 1.2 s and, on a loaded
    machine, may give up before its final read (the answer then waits for catch-up)."""
    from objstore import sync_files
    with open_store(store) as s:
        sync_files(s, [t], final=True)


def _twice(env: dict, data: dict) -> None:
    ps = [subprocess.Popen([sys.executable, "-m", "cmds", "hook", "claude-code"], stdin=subprocess.PIPE,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=REPO)
          for _ in range(2)]
    for p in ps:
        p.stdin.write(json.dumps(data).encode())
        p.stdin.close()
    for p in ps:
        assert p.wait(60) == 0


@pytest.mark.parametrize("in_transcript", [False, True], ids=["before-record", "record-written"])
def test_prompt_hook_registered_twice_stores_each_prompt_once(tmp_path, in_transcript):
    store, t = tmp_path / "store", tmp_path / f"{SID}.jsonl"
    first = line(user("u1", "one", SID)) + line(asst("a1", "m1", [text("answer one")], SID))
    t.write_bytes(first)                     # a delivery that runs late finds the answer written
    env = hook_env(store, MEM_HOOK_FORK="0")
    _twice(env, payload("UserPromptSubmit", SID, t, prompt="one"))
    _twice(env, payload("Stop", SID, t))
    second = first + line(user("u2", "two", SID))
    if in_transcript:
        t.write_bytes(second)
    _twice(env, payload("UserPromptSubmit", SID, t, prompt="two"))
    t.write_bytes(second + line(asst("a2", "m2", [text("answer two")], SID)))
    _twice(env, payload("Stop", SID, t))
    _twice(env, payload("SessionEnd", SID, t))
    _final_sync(store, t)
    got = bag(store)
    assert got[(SID, "user", "one")] == 1 and got[(SID, "user", "two")] == 1, got
    assert sum(got.values()) == 4, got


def test_a_real_repeat_is_stored_once_the_transcript_holds_it(tmp_path):
    """No time window: two deliveries of "yes" before its record is written are one prompt
    (the same key); a "yes" after the first was answered is the transcript's second "yes",
    stored by the hook when its record is already written, else by the next sync."""
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"")
    with open_store(tmp_path / "s", create=True) as s:
        now = int(time.time() * 1000)
        a = capture_prompt(s, session_id=SID, prompt="yes", transcript=t, time_ms=now)
        b = capture_prompt(s, session_id=SID, prompt="yes", transcript=t, time_ms=now + 60_000)
        assert (a.status, b.status) == ("captured", "known")
    t.write_bytes(line(user("u1", "yes", SID)) + line(asst("a1", "m1", [text("ok")], SID)))
    with open_store(tmp_path / "s") as s:
        from objstore import sync_files
        sync_files(s, [t], final=True)
        assert capture_prompt(s, session_id=SID, prompt="yes", transcript=t).status == "known"
        t.write_bytes(t.read_bytes() + line(user("u2", "yes", SID)))     # the repeat's record, written first
        c = capture_prompt(s, session_id=SID, prompt="yes", transcript=t)
        assert c.source == a.source[:-1] + "2"           # stored now (by the hook's own read of the file)
    assert bag(tmp_path / "s")[(SID, "user", "yes")] == 2
    with open_store(tmp_path / "s") as s:
        from objstore import sync_files
        t.write_bytes(t.read_bytes() + line(asst("a2", "m2", [text("ok again")], SID)))
        sync_files(s, [t], final=True)
    assert bag(tmp_path / "s")[(SID, "user", "yes")] == 2


def _at_once(env: dict, datas: list[dict]) -> None:
    """Start every hook first, then feed them: the processes run concurrently, as
    Claude Code runs a plugin's and a settings' handler of one event."""
    ps = [subprocess.Popen([sys.executable, "-m", "cmds", "hook", "claude-code"], stdin=subprocess.PIPE,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=REPO)
          for _ in datas]
    for p, d in zip(ps, datas):
        p.stdin.write(json.dumps(d).encode())
        p.stdin.close()
    for p in ps:
        assert p.wait(60) == 0


@pytest.mark.parametrize("earlier", [False, True], ids=["first-prompt", "after-a-cursor"])
def test_two_prompt_hooks_and_two_stop_hooks_at_once_store_the_prompt_once(tmp_path, earlier):
    """The re-attack of issue 21 item 8: the answer (with a tool call) is already written
    when two UserPromptSubmit and two Stop hooks start together; before the fix the Stop
    hooks' sync stored the answer between the two prompt writes and the second took the
    next repeat number (3 of 5 runs)."""
    from tests.hooks._util import tool_result, tool_use
    for trial in range(3):
        d = tmp_path / str(trial)
        d.mkdir()
        store, t = d / "store", d / f"{SID}.jsonl"
        env = hook_env(store, MEM_HOOK_FORK="0")
        pre = b""
        if earlier:                          # an earlier exchange, synced: the cursor exists
            pre = line(user("u0", "zero", SID)) + line(asst("a0", "m0", [text("answer zero")], SID))
            t.write_bytes(pre)
            _at_once(env, [payload("Stop", SID, t)])
        t.write_bytes(pre + line(user("u1", "one", SID)) + line(asst("a1", "m1", [tool_use("t1")], SID))
                      + line(user("r1", [tool_result("t1", "file.txt")], SID))
                      + line(asst("a2", "m2", [text("answer one")], SID)))
        _at_once(env, [payload("UserPromptSubmit", SID, t, prompt="one")] * 2 + [payload("Stop", SID, t)] * 2)
        _at_once(env, [payload("SessionEnd", SID, t)])
        _final_sync(store, t)
        got = bag(store)
        assert got[(SID, "user", "one")] == 1, (trial, got)
        assert got[(SID, "assistant", "answer one")] == 1, (trial, got)
