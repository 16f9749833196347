"""Issue 21 items 3, 4 and 14 (setup): the hooks carry a custom store, a
hook whose binary is gone is repaired, project settings never get a
personal path, and setup says what it skipped.  Each failed on the old code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from objstore.integrations.install import is_mem_handler
from tests.conftest import REPO


@pytest.fixture
def claude_dir(tmp_path, monkeypatch):
    d = tmp_path / "claude"
    d.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(d))
    monkeypatch.delenv("MEM_HOOK_COMMAND", raising=False)
    return d


def _fake_mem(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "mem"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    return exe


def _handlers(settings: Path) -> list[dict]:
    doc = json.loads(settings.read_text())
    return [h for groups in doc.get("hooks", {}).values() for g in groups for h in g.get("hooks", [])
            if is_mem_handler(h)]


def test_a_custom_store_is_written_into_the_hooks(invoke, claude_dir, tmp_path, monkeypatch):
    custom = tmp_path / "custom-store"
    monkeypatch.setenv("MEM_HOME", str(custom))
    monkeypatch.setenv("PATH", f"{_fake_mem(tmp_path / 'bin').parent}{os.pathsep}{os.environ['PATH']}")
    r = invoke("setup", "--shell", "none")
    assert f"they use the store {custom}" in r.stdout
    hs = _handlers(claude_dir / "settings.json")
    assert hs and all(h["args"] == ["--home", str(custom), "hook", "claude-code"] for h in hs)
    # Claude Code started without MEM_HOME runs exactly that handler: it captures into the custom store
    env = {k: v for k, v in os.environ.items() if k != "MEM_HOME"}
    env["MEM_HOOK_FORK"] = "0"
    event = {"session_id": "s-custom", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
             "prompt": "remember the custom store please"}
    code = "import sys; sys.argv = ['mem'] + sys.argv[1:]; from cmds.entry import entry; entry()"
    p = subprocess.run([sys.executable, "-c", code, *hs[0]["args"]], input=json.dumps(event), text=True,
                       capture_output=True, env=env, cwd=REPO, timeout=60)
    assert p.returncode == 0, p.stderr
    assert not (Path(os.environ["HOME"]) / ".mem").exists()
    assert "s-custom" in invoke("sessions").stdout
    # a shared project file never gets a personal store path
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    r = invoke("hooks", "install", "claude-code", "--scope", "project", exit_code=2)
    assert "--scope user" in r.stderr and not (proj / ".claude").exists()


def test_setup_repairs_hooks_whose_command_is_gone(invoke, claude_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("MEM_HOME", str(Path(os.environ["HOME"]) / ".mem"))
    path = os.environ["PATH"]
    old = _fake_mem(tmp_path / "old-venv" / "bin")
    monkeypatch.setenv("PATH", f"{old.parent}{os.pathsep}{path}")
    s = claude_dir / "settings.json"
    s.write_text('{"model": "opus"}\n')
    invoke("setup", "--shell", "none")
    assert {h["command"] for h in _handlers(s)} == {str(old)}
    old.unlink()  # the virtualenv was recreated elsewhere
    new = _fake_mem(tmp_path / "new-venv" / "bin")
    monkeypatch.setenv("PATH", f"{new.parent}{os.pathsep}{path}")
    r = invoke("setup", "--shell", "none")
    assert "hooks: repaired in" in r.stdout and f"its command {old} does not exist" in r.stdout
    assert {h["command"] for h in _handlers(s)} == {str(new)}
    from objstore.integrations.install import EVENT_TIMEOUTS
    assert len(_handlers(s)) == len(EVENT_TIMEOUTS)  # replaced, not added
    assert "already in" in invoke("setup", "--shell", "none").stdout
    invoke("setup", "--undo", "--shell", "none")
    assert s.read_text() == '{"model": "opus"}\n'


def test_project_scope_runs_mem_from_path(invoke, claude_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("MEM_HOME", str(Path(os.environ["HOME"]) / ".mem"))
    monkeypatch.setenv("MEM_HOOK_COMMAND", str(tmp_path / "me" / "venv" / "bin" / "mem"))
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    s = proj / ".claude" / "settings.json"
    s.parent.mkdir()
    # what the old code wrote: a personal absolute path in a committable file
    s.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "/home/someone/venv/bin/mem", "args": ["hook", "claude-code"]}]}]}}))
    r = invoke("setup", "--scope", "project", "--shell", "none")
    assert "run 'mem' from PATH" in r.stdout
    assert {h["command"] for h in _handlers(s)} == {"mem"}
    assert "/home/someone" not in s.read_text() and str(tmp_path / "me") not in s.read_text()


def test_setup_says_why_the_shell_line_was_skipped_or_idle(invoke, claude_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("MEM_HOME", str(Path(os.environ["HOME"]) / ".mem"))
    monkeypatch.setenv("MEM_HOOK_COMMAND", "/opt/mem/bin/mem")
    r = invoke("setup", "--shell", "none", "--no-hooks")
    assert "shell: skipped (--shell none)" in r.stdout
    monkeypatch.setenv("SHELL", "/bin/tcsh")
    assert "$SHELL is /bin/tcsh" in invoke("setup", "--no-hooks").stdout
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # mem only in a virtualenv, as the README installs it
    r = invoke("setup", "--shell", "bash", "--no-hooks")
    assert "loads only where 'mem' is on PATH, and it is not now" in r.stdout
