"""Findings the last session's testers left open (fresh2 findings 3, 5, 6, 7
and two more): each test runs real ``mem`` processes on a real store and
failed on the code before its fix."""

from __future__ import annotations

import json

from tests.hooks._util import hook_env, run_hook

AGENT = {"CLAUDECODE": "1"}


# -- 1: a forgotten value may not come back inside a value under another key --

def test_forgotten_value_does_not_come_back_under_another_key(mem, store_path):
    secret = "zebrafrog-unique-771 and more"
    mem("remember", "project/db/password", secret)
    mem("remember", "user/editor", "vim")
    mem("forget", "project/db/password", "--yes")
    mem("forget", "user/editor", "--yes")
    mem("gc", "--prune=now")
    # inside another value (case and spacing ignored), or the whole value under another key
    for key, value in (("project/third/k2", "note: ZebraFrog-unique-771   and more is the value"),
                       ("project/third/k3", secret), ("project/third/k4", "vim")):
        r = mem("remember", key, value, env=AGENT, exit_code=6)
        assert "forgotten" in r.stderr and "zebrafrog" not in r.stderr.lower()
        mem("get", key, exit_code=4)
    # a short forgotten value is a common word: only the whole value is refused
    mem("remember", "project/third/k5", "use vim keys", env=AGENT)
    assert mem("queue", "list", "--json").json == []
    # the tombstones hold hashes and lengths, never the text: nothing in the store has it
    mem("scan", "zebrafrog-unique-771")
    # the person decides: a user_stated write goes through
    mem("remember", "project/third/k6", f"note: {secret}")


def test_forgotten_match_does_not_come_back_under_another_key(mem):
    mem("remember", "project/a/note", "the quokkaplat thing")
    mem("forget", "--match", "QuokkaPlat", "--yes")
    mem("gc", "--prune=now")
    r = mem("remember", "project/new/k", "big quokkaplatypus here", env=AGENT, exit_code=6)
    assert "holds a text that was forgotten" in r.stderr
    mem("remember", "project/new/k", "nothing forgotten here", env=AGENT)


# -- 3: forget warns only about what still holds the forgotten value ---------

def test_forget_does_not_warn_about_unrelated_deletes(mem, store_path):
    for i in range(4):
        mem("remember", f"project/k/{i}", f"value {i}")
    mem("reindex")                                   # the facts in one segment
    mem("remember", "project/k/1", "value one, newer")  # a delete in that segment
    meta = json.loads(next((store_path / "index" / "facts").glob("gen-*/meta.json")).read_text())
    assert any(s.get("deletes") for s in meta["segments"])
    rc, _out, _err, _t = run_hook(store_path, {
        "session_id": "aaaa0002-1111", "transcript_path": "/nonexist/x.jsonl", "cwd": "/tmp",
        "hook_event_name": "UserPromptSubmit", "prompt": "secret marker wombatly"},
        env=hook_env(store_path, MEM_HOOK_FORK="0"))
    assert rc == 0
    r = mem("forget", "--session", "aaaa0002", "--yes")
    assert "has deletes" not in r.stderr and "warning: index" not in r.stderr, r.stderr
    # gone: a second run says so and exits 0 (fresh7 F7; it exited 4 "no session")
    assert "already forgotten" in mem("forget", "--session", "aaaa0002", "--yes").stdout


# -- 4: show names the version that superseded this one ----------------------

def test_show_names_the_next_version_and_the_current_one(mem):
    for v in ("one", "two", "three"):
        mem("remember", "project/conc/same", v)
    assert "(v1, superseded by v2; current: v3)" in mem("show", "project/conc/same@v1").stdout
    assert "(v2, superseded by v3)" in mem("show", "project/conc/same@v2").stdout
    j = mem("show", "project/conc/same@v1", "--json").json
    assert j["status"] == "superseded by v2" and j["current_version"] == 3
    # a backfill (valid earlier than v1, written last) is superseded by v1
    mem("remember", "project/conc/same", "zero", "--valid-from", "2001-01-01")
    assert "(v4, superseded by v1; current: v3)" in mem("show", "project/conc/same@v4").stdout


# -- 5: forgetting is the person's decision ----------------------------------

def test_an_agent_cannot_forget(mem):
    mem("remember", "project/a/b", "keep me")
    for args in (["forget", "project/a/b", "--yes"], ["forget", "--match", "keep me", "--yes"],
                 ["forget", "project/a/b", "--yes", "--json"]):
        r = mem(*args, env=AGENT, exit_code=6)
        assert "person's decision" in r.stderr and "ask the user" in r.stderr
    assert json.loads(r.stderr)["code"] == 6
    assert "would forget 1 fact version" in mem("forget", "project/a/b", "--dry-run", env=AGENT).stdout
    assert mem("get", "project/a/b").stdout == "keep me\n"
    # MEM_AGENT=0 in the agent's own command does not make it a person: the harness marker wins (fresh6 4)
    _ = mem("forget", "project/a/b", "--yes", env={"MEM_AGENT": "0", **AGENT}, exit_code=6)
    assert mem("get", "project/a/b").stdout == "keep me\n"
    mem("forget", "project/a/b", "--yes")   # the person
    mem("get", "project/a/b", exit_code=4)


# -- 2: a broken config.toml is said, and capture goes on where that is safe --

def _prompt(store_path, sid: str, text: str):
    return run_hook(store_path, {"session_id": sid, "transcript_path": "/nonexist/x.jsonl", "cwd": "/tmp",
                                 "hook_event_name": "UserPromptSubmit", "prompt": text},
                    env=hook_env(store_path, MEM_HOOK_FORK="0"))


def test_broken_config_without_capture_settings_warns_and_capture_goes_on(mem, store_path):
    mem("remember", "user/shell", "fish shell")
    cfg = store_path / "config.toml"
    cfg.write_bytes(b"# mine\nhelper = [[[ broken\n\x00\xff")
    for args in (["get", "user/shell"], ["remember", "project/a/b", "x"], ["sessions"], ["log", "user/shell"]):
        r = mem(*args)
        assert f"warning: {cfg} line 2: not valid TOML" in r.stderr and "capture goes on" in r.stderr, (args, r.stderr)
    checks = {f["check"]: f for f in mem("doctor", "--json", exit_code=None).json["findings"]}
    assert checks["config"]["severity"] == "warning" and "line 2" in checks["config"]["message"]
    rc, _out, _err, _t = _prompt(store_path, "aaaa0003-1111", "a prompt to keep")
    assert rc == 0
    assert "aaaa0003-1111" in mem("sessions").stdout          # captured, with the default settings
    rc, out, _err, _t = run_hook(store_path, {"session_id": "aaaa0003-1111", "transcript_path": "/nonexist/x.jsonl",
                                              "cwd": "/tmp", "hook_event_name": "SessionStart", "source": "startup"},
                                 env=hook_env(store_path, MEM_HOOK_FORK="0"))
    assert rc == 0
    o = json.loads(out)
    assert f"{cfg} line 2" in o["systemMessage"] and "not valid TOML" in o["systemMessage"]
    assert o["systemMessage"] in o["hookSpecificOutput"]["additionalContext"]
    assert "fish shell" in o["hookSpecificOutput"]["additionalContext"]      # the block is still there
    cfg.write_text("[context]\nsession_budget = 900\n")                       # fixed: silent again
    assert "warning" not in mem("get", "user/shell").stderr


def test_broken_config_that_may_hold_exclusions_stops_capture_and_says_so(mem, store_path):
    mem("init")
    cfg = store_path / "config.toml"
    cfg.write_text('[capture]\nexclude = ["/secret"]\nbroken = [[\n')
    r = mem("get", "user/none", exit_code=4)
    assert f"warning: {cfg} line 3: not valid TOML" in r.stderr and "capture is stopped" in r.stderr
    rc, _out, _err, _t = _prompt(store_path, "aaaa0004-1111", "not to be captured")
    assert rc == 0                                                            # the hook fails open
    assert "aaaa0004" not in mem("sessions").stdout
    log = (store_path / "logs" / "hooks.log").read_text()
    assert log.count("UserPromptSubmit aaaa0004-1111 InvalidInput:config") == 1   # once per event, not twice
    checks = {f["check"]: f for f in mem("doctor", "--json", exit_code=None).json["findings"]}
    assert checks["config"]["severity"] == "error"
    assert "line 3" in checks["config"]["message"] and "capture is stopped" in checks["config"]["message"]
