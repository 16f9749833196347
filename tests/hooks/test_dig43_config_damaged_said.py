"""test42 T17: a damaged ``config`` (cut short by a crash or a sync) made
every hook silent: "remember that …" got no answer and was lost without a
word, and SessionStart said nothing.  Now the prompt hook answers "Not
stored, though asked: …" and SessionStart says capture is stopped, to the
agent (the context) and to the person (``systemMessage``), naming the fix;
the hooks still exit 0 and store nothing.  Real ``mem hook claude-code``
processes on a real damaged store."""

from __future__ import annotations

import json

import pytest

from tests.hooks._util import hook_env, run_hook


@pytest.mark.parametrize("damage", ["cut", "garbage"])
def test_a_damaged_config_is_said_by_the_hooks(mem, store_path, tmp_path, damage):
    env = {"MEM_HOME": str(store_path)}
    mem("remember", "project/a/b", "c", env=env)
    cfg = store_path / "config"
    cfg.write_bytes(cfg.read_bytes()[:20] if damage == "cut" else b"\x00\xff[[[ not a config\n")
    mem("status", env=env, exit_code=13)
    ask = {"hook_event_name": "UserPromptSubmit", "session_id": "s-cf", "cwd": str(tmp_path),
           "prompt": "remember that the db port is 6543"}
    rc, out, err, _s = run_hook(store_path, ask, env=hook_env(store_path))
    assert rc == 0, err
    got = json.loads(out)
    said = got["hookSpecificOutput"]["additionalContext"]
    assert "Not stored, though asked:" in said and "config" in said and "mem fsck --repair" in said, said
    assert "capture is stopped" in got["systemMessage"], got
    start = {"hook_event_name": "SessionStart", "session_id": "s-cf2", "cwd": str(tmp_path), "source": "startup"}
    rc, out, err, _s = run_hook(store_path, start, env=hook_env(store_path))
    assert rc == 0, err
    got = json.loads(out)
    assert "capture is stopped" in got["hookSpecificOutput"]["additionalContext"], got
    assert "capture is stopped" in got["systemMessage"] and "config" in got["systemMessage"], got
    plain = {**ask, "prompt": "what time is it"}   # a plain prompt: logged, nothing said at each turn
    rc, out, _e, _s = run_hook(store_path, plain, env=hook_env(store_path))
    assert rc == 0 and not out.strip()
    mem("fsck", "--repair", env=env)
    assert "6543" not in mem("keys", env=env).stdout + mem("get", "project/a/b", env=env).stdout
