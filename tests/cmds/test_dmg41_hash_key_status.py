"""fresh40 F2: a damaged ``hash-key`` makes the prompt hook capture nothing
(only logged in logs/hooks.log).  fsck and doctor name it (fsck40); now
their words say capture stops, and ``mem status`` warns.  Real ``mem``
processes, a real hook run."""

from __future__ import annotations

import json

from tests.hooks._util import wait_store_processes_gone


def test_a_damaged_hash_key_is_said_by_status_and_fsck(mem, store_path, tmp_path):
    env = {"HOME": str(tmp_path / "home")}
    (tmp_path / "home").mkdir(exist_ok=True)
    prompt = {"session_id": "s-hk", "hook_event_name": "UserPromptSubmit", "cwd": str(tmp_path),
              "prompt": "hello there prompt"}
    mem("hook", "claude-code", input=json.dumps(prompt), env=env)
    wait_store_processes_gone(store_path)   # (the prompt is stored by a capture child, which makes the key)
    assert (store_path / "hash-key").is_file()
    assert "capture is stopped" not in mem("status").stderr
    (store_path / "hash-key").write_bytes(b"mem")
    r = mem("status")
    assert "warning: capture is stopped: hash-key" in r.stderr and "hooks capture no turn" in r.stderr, r.stderr
    r = mem("fsck", exit_code=13)
    assert "hooks capture no turn" in r.stdout, r.stdout
