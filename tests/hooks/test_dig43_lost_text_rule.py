"""test42 T18: with ``tombstone-digests`` deleted or replaced by garbage, a
``mem forget --match`` text rule silently stopped: an agent's ``remember``
of the text was written, the prompt hook stored it verbatim, and fsck,
``fsck --repair`` and doctor said ok.  Now the lost rule is a problem
(fsck exit 13, doctor an error, both naming what to do), capture and a
lower-trust write fail closed while it lasts (the hook still exits 0 and
the session goes on), and the forget run again (or the file put back)
ends it; ``fsck --repair --drop-lost-tombstones`` drops the rule when the
person chooses to.  Real ``mem`` processes and real hook events."""

from __future__ import annotations

import json
import time

import pytest

from tests.hooks._util import hook_env, hook_log, run_hook, turns

TEXT = "Zephyrine Quillborough"


def _damage(store, how: str) -> None:
    p = store / "tombstone-digests"
    if how == "deleted":
        p.unlink()
    elif how == "garbage":
        p.write_text("garbage\n")
    else:   # cut short: the head line alone is left
        p.write_bytes(p.read_bytes().split(b"\n", 1)[0] + b"\n")


def _prompt(store, cwd, text: str, sid: str = "s-t18") -> tuple[int, str]:
    rc, out, err, _s = run_hook(store, {"hook_event_name": "UserPromptSubmit", "session_id": sid, "cwd": cwd,
                                        "prompt": text}, env=hook_env(store))
    return rc, out


@pytest.mark.parametrize("how", ["deleted", "garbage", "cut"])
def test_a_lost_text_rule_fails_closed_and_is_named(mem, store_path, tmp_path, how):
    env = {"MEM_HOME": str(store_path)}
    mem("init", env=env)
    mem("forget", "--match", TEXT, "--yes", env=env)
    _damage(store_path, how)
    agent = {**env, "MEM_AGENT": "claude"}
    r = mem("remember", "project/t/z", f"{TEXT} owns it", env=agent, exit_code=13)
    assert "tombstone-digests" in r.stderr and "mem forget --match" in r.stderr, r.stderr
    assert "project/t/z" not in mem("keys", env=env).stdout
    rc, _out = _prompt(store_path, str(tmp_path), f"please mail {TEXT} about port 8080")
    assert rc == 0   # the hook fails open for the agent
    time.sleep(2)     # (what a background writer would have written by now)
    assert not any(TEXT.lower() in t[3].lower() for t in turns(store_path))   # never stored in the clear
    f = mem("fsck", env=env, exit_code=13)
    assert "text rule" in f.stdout + f.stderr and "mem forget --match" in f.stdout + f.stderr, f.stdout
    d = mem("doctor", env=env, exit_code=1)
    assert "error: [tombstones]" in d.stdout and "text rule" in d.stdout, d.stdout
    st = json.loads(mem("status", "--json", env=env).stdout)
    assert st["capture_stopped"] and "text rule" in st["capture_stopped"]
    start = {"hook_event_name": "SessionStart", "session_id": "s-t18b", "cwd": str(tmp_path), "source": "startup"}
    for _ in range(5):   # (again while a loaded machine made it end at its budget with nothing said)
        rc, out, _e, _s = run_hook(store_path, start, env=hook_env(store_path))
        if out.strip():
            break
    assert rc == 0 and "capture is stopped" in json.loads(out)["systemMessage"], out
    # the person's own write still goes (user_stated is never refused for a forgotten text)
    mem("remember", "project/t/u", "a plain note", env=env)
    # the forget run again writes the rule anew: capture and writes go on, the text still withheld
    mem("forget", "--match", TEXT, "--yes", env=env)
    mem("fsck", env=env)
    mem("remember", "project/t/z", f"{TEXT} owns it", env=agent, exit_code=6)
    mem("remember", "project/t/q", "the port is 8080", env=agent)
    rc, _out = _prompt(store_path, str(tmp_path), f"again: mail {TEXT} today", sid="s-t18c")
    assert rc == 0
    said = []
    for _ in range(100):   # (the prompt's turn may be written by the hook's background writer)
        if said := [t[3] for t in turns(store_path) if t[0] == "s-t18c"]:
            break
        time.sleep(0.2)
    assert said and not any(TEXT.lower() in t.lower() for t in said), (said, hook_log(store_path))


def test_drop_lost_tombstones_drops_a_lost_text_rule(mem, store_path):
    env = {"MEM_HOME": str(store_path)}
    mem("init", env=env)
    mem("forget", "--match", TEXT, "--yes", env=env)
    _damage(store_path, "garbage")
    r = mem("fsck", "--repair", env=env, exit_code=13)   # a repair alone keeps the rule: only the person drops it
    assert "text rule" in r.stdout + r.stderr
    r = mem("fsck", "--repair", "--drop-lost-tombstones", env=env)
    assert "a text rule whose digest line is lost" in r.stdout, r.stdout
    mem("fsck", env=env)
    mem("remember", "project/t/z", f"{TEXT} owns it", env={**env, "MEM_AGENT": "claude"})


def test_a_text_rule_with_its_line_says_nothing(mem, store_path):
    env = {"MEM_HOME": str(store_path)}
    mem("init", env=env)
    mem("forget", "--match", TEXT, "--yes", env=env)
    f = mem("fsck", env=env)
    assert "text rule" not in f.stdout + f.stderr
    assert json.loads(mem("status", "--json", env=env).stdout)["capture_stopped"] is None
    mem("remember", "project/t/z", f"{TEXT} owns it", env={**env, "MEM_AGENT": "claude"}, exit_code=6)
