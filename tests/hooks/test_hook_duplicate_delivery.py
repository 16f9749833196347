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
    got = bag(store)
    assert got[(SID, "user", "one")] == 1 and got[(SID, "user", "two")] == 1, got
    assert sum(got.values()) == 4, got


def test_a_real_repeat_after_the_window_is_stored(tmp_path):
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"")
    with open_store(tmp_path / "s", create=True) as s:
        now = int(time.time() * 1000)
        a = capture_prompt(s, session_id=SID, prompt="yes", transcript=t, time_ms=now)
        b = capture_prompt(s, session_id=SID, prompt="yes", transcript=t, time_ms=now + 40)
        assert (a.status, b.status) == ("captured", "known")
    t.write_bytes(line(user("u1", "yes", SID)) + line(asst("a1", "m1", [text("ok")], SID)))
    with open_store(tmp_path / "s") as s:
        from objstore import sync_files
        sync_files(s, [t], final=True)
        c = capture_prompt(s, session_id=SID, prompt="yes", transcript=t, time_ms=now + 60_000)
        assert c.status == "captured"
    assert bag(tmp_path / "s")[(SID, "user", "yes")] == 2
