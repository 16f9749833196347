"""test33 T6: after the store is moved, the hooks 'mem setup --home S' wrote
(``mem --home S hook claude-code``) must not start a new empty store at S
(they fail open and say why on stderr), and 'mem doctor' on the moved store
says the installed hooks name another store."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.hooks._util import REPO, hook_env


def _hook(args: list[str], env: dict, event: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], input=json.dumps(event).encode(),
                          capture_output=True, env=env, timeout=120, cwd=REPO)


@pytest.mark.parametrize("form", ["fast", "click"])
def test_hook_never_creates_a_moved_store(tmp_path, mem, form):
    s, moved = tmp_path / "s6", tmp_path / "s6moved"
    claude = tmp_path / "claude"
    claude.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(claude), "MEM_HOOK_COMMAND": sys.executable, "MEM_NO_HELPER": "1"}
    mem("--home", str(s), "init", env=env)
    mem("--home", str(s), "hooks", "install", "claude-code", env=env)
    handlers = json.loads((claude / "settings.json").read_text())["hooks"]["UserPromptSubmit"][0]["hooks"]
    assert handlers[0]["args"][:2] == ["--home", str(s)]
    mem("--home", str(s), "remember", "project/z/a", "before move", env=env)
    shutil.move(str(s), str(moved))
    args = ["--home", str(s), "hook", "claude-code"] if form == "fast" else [f"--home={s}", "hook", "claude-code"]
    event = {"hook_event_name": "UserPromptSubmit", "session_id": "aaaaaaaa-1111-2222-3333-444444444444",
             "cwd": str(tmp_path), "prompt": "remember that the z thing is moved-canary"}
    henv = {**hook_env(tmp_path / "unused"), **env}
    henv.pop("MEM_HOME")
    p = _hook(args, henv, event)
    assert p.returncode == 0
    assert not os.path.exists(s), "the hook created a new store at the old path"
    err = p.stderr.decode()
    assert f"no store at {s}" in err and err.count("no store at") == 1
    assert b"Remembered" not in p.stdout
    # doctor on the moved store: the installed hooks capture into the old path
    r = mem("--home", str(moved), "doctor", "--json", env=env, exit_code=None)
    doc = json.loads(r.stdout)
    hooks = [f for f in doc["findings"] if f["check"] == "hooks"]
    assert any(str(s) in f["message"] and "not this store" in f["message"] for f in hooks), doc
    assert all(f["severity"] == "warning" for f in hooks)
    assert f"--home {moved} setup" in hooks[0]["fix"]


def test_doctor_quiet_when_hooks_name_this_store(tmp_path, mem):
    s = tmp_path / "s"
    claude = tmp_path / "claude"
    claude.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(claude), "MEM_HOOK_COMMAND": sys.executable}
    mem("--home", str(s), "init", env=env)
    mem("--home", str(s), "hooks", "install", "claude-code", env=env)
    doc = json.loads(mem("--home", str(s), "doctor", "--json", env=env, exit_code=None).stdout)
    assert not [f for f in doc["findings"] if f["check"] == "hooks"], doc


def test_hook_without_home_still_creates_its_store(tmp_path):
    """MEM_HOME alone (no --home on the command line) keeps creating a
    missing store, as a first run does."""
    s = tmp_path / "fresh"
    event = {"hook_event_name": "UserPromptSubmit", "session_id": "bbbbbbbb-1111-2222-3333-444444444444",
             "cwd": str(tmp_path), "prompt": "hello there"}
    p = _hook(["hook", "claude-code"], hook_env(s), event)
    assert p.returncode == 0 and (s / "config").is_file()


def test_hooks_naming_this_store_by_a_link_are_left_as_they_are(tmp_path, mem):
    """fresh43 F13: ``MEM_HOME=link mem hooks install`` (link → the store the hooks already use) said "repaired mem
    hooks …: it uses the store S, not LINK" and rewrote them: nothing was broken.  Now nothing changes, and doctor
    run through the link is quiet about the hooks."""
    s, link = tmp_path / "s", tmp_path / "link"
    claude = tmp_path / "claude"
    claude.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(claude), "MEM_HOOK_COMMAND": sys.executable}
    mem("--home", str(s), "init", env=env)
    mem("--home", str(s), "hooks", "install", "claude-code", env=env)
    before = (claude / "settings.json").read_bytes()
    link.symlink_to(s)
    r = mem("--home", str(link), "hooks", "install", "claude-code", env=env)
    assert "repaired" not in r.stdout + r.stderr, r
    assert (claude / "settings.json").read_bytes() == before
    doc = json.loads(mem("--home", str(link), "doctor", "--json", env=env, exit_code=None).stdout)
    assert not [f for f in doc["findings"] if f["check"] == "hooks"], doc
