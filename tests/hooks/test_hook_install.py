"""Installers: 'mem hooks install|uninstall claude-code', the plugin files,
'mem setup'.  settings.json is edited as text: other keys and hooks keep
their bytes; install twice = install once; uninstall gives the file back."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from objstore.integrations.install import EVENT_TIMEOUTS, is_mem_handler, plan_install, plan_uninstall
from tests.hooks._util import REPO

SAMPLE = """{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "opus",
  "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "~/.claude/hooks/guard.sh", "timeout": 5}
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [ { "type": "command", "command": "notify-send 'Claude is done'" } ]
      }
    ]
  },
  "env": {"DISABLE_TELEMETRY": "1"},
  "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"}
}
"""


@pytest.fixture
def claude_dir(tmp_path, monkeypatch):
    d = tmp_path / "claude"
    d.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(d))
    monkeypatch.setenv("MEM_HOOK_COMMAND", "/opt/mem/bin/mem")
    # the default store (~/.mem): a custom one is written into the hooks (tests/hooks/test_setup_repair.py)
    monkeypatch.setenv("MEM_HOME", os.path.join(os.environ["HOME"], ".mem"))
    return d


def _mem_handlers(doc: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for ev, groups in doc.get("hooks", {}).items():
        for g in groups:
            for h in g.get("hooks", []):
                if is_mem_handler(h):
                    out.setdefault(ev, []).append(h)
    return out


def test_install_uninstall_round_trip_is_byte_identical(invoke, claude_dir):
    s = claude_dir / "settings.json"
    s.write_text(SAMPLE)
    os.chmod(s, 0o640)
    invoke("hooks", "install", "claude-code")
    once = s.read_bytes()
    doc = json.loads(once)
    handlers = _mem_handlers(doc)
    assert set(handlers) == set(EVENT_TIMEOUTS)
    for ev, [h] in handlers.items():
        assert h == {"type": "command", "command": "/opt/mem/bin/mem", "args": ["hook", "claude-code"],
                     "timeout": EVENT_TIMEOUTS[ev]}
        assert isinstance(h["timeout"], int) and h["timeout"] <= 60        # seconds, not ms
    # everything that was there is there, byte for byte, in order
    assert doc["hooks"]["PreToolUse"] == json.loads(SAMPLE)["hooks"]["PreToolUse"]
    kept = re.sub(r",?\s*\{\s*\"hooks\": \[\s*\{\"type\": \"command\", \"command\": \"/opt/mem/bin/mem\"[^\]]*\]\s*\}",
                  "", once.decode())
    assert "notify-send 'Claude is done'" in kept and '"statusLine"' in kept
    invoke("hooks", "install", "claude-code")                             # twice = once
    assert s.read_bytes() == once
    r = invoke("hooks", "uninstall", "claude-code")
    assert "removed" in r.stdout
    assert s.read_bytes() == SAMPLE.encode()
    assert os.stat(s).st_mode & 0o777 == 0o640


def test_install_into_a_missing_file_and_back(invoke, claude_dir):
    s = claude_dir / "settings.json"
    invoke("hooks", "install", "claude-code")
    assert set(_mem_handlers(json.loads(s.read_text()))) == set(EVENT_TIMEOUTS)
    invoke("hooks", "uninstall", "claude-code")
    assert not s.exists()


def test_dry_run_writes_nothing(invoke, claude_dir):
    s = claude_dir / "settings.json"
    s.write_text(SAMPLE)
    r = invoke("hooks", "install", "claude-code", "--dry-run")
    assert "+" in r.stdout and '"args": ["hook", "claude-code"]' in r.stdout
    assert s.read_text() == SAMPLE
    r = invoke("hooks", "install", "claude-code", "--json")
    assert r.json["changed"] and r.json["events"] == list(EVENT_TIMEOUTS)
    r = invoke("hooks", "install", "claude-code", "--json")
    assert not r.json["changed"]
    r = invoke("hooks", "install", "claude-code", "--uninstall", "--dry-run")
    assert "-" in r.stdout
    assert _mem_handlers(json.loads(s.read_text()))


def test_project_scope(invoke, claude_dir, tmp_path, monkeypatch):
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    invoke("hooks", "install", "claude-code", "--scope", "project")
    assert _mem_handlers(json.loads((proj / ".claude" / "settings.json").read_text()))
    assert not (claude_dir / "settings.json").exists()


def test_bad_settings_are_refused_and_untouched(invoke, claude_dir):
    s = claude_dir / "settings.json"
    for bad in ('{"hooks": ', "[1, 2]", '{"hooks": []}', '{"hooks": {"Stop": {}}}'):
        s.write_text(bad)
        r = invoke("hooks", "install", "claude-code", exit_code=2)
        assert "not touching it" in r.stderr
        assert s.read_text() == bad


def test_a_key_named_twice_is_refused_not_reported_installed(invoke, claude_dir):
    """test25 T5: the handlers went into the first of two "hooks" objects, which
    every JSON reader (Claude Code's included) drops for the second; setup said
    "installed" and no hook ever ran."""
    s = claude_dir / "settings.json"
    for bad in ('{"hooks": {"Stop": []}, "hooks": {"SessionStart": []}}\n',
                '{"hooks": {"Stop": [], "Stop": []}}\n'):
        s.write_text(bad)
        for argv in (("hooks", "install", "claude-code"), ("setup",)):
            r = invoke(*argv, exit_code=2)
            assert "twice" in r.stderr and "not touching it" in r.stderr, r.stderr
            assert s.read_text() == bad


def test_symlinked_settings_stay_a_symlink(invoke, claude_dir, tmp_path):
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text(SAMPLE)
    (claude_dir / "settings.json").symlink_to(real)
    invoke("hooks", "install", "claude-code")
    assert (claude_dir / "settings.json").is_symlink() and _mem_handlers(json.loads(real.read_text()))
    invoke("hooks", "uninstall", "claude-code")
    assert real.read_text() == SAMPLE


def test_uninstall_after_other_edits_removes_only_mem(invoke, claude_dir):
    s = claude_dir / "settings.json"
    s.write_text(SAMPLE)
    invoke("hooks", "install", "claude-code")
    doc_text = s.read_text().replace('"model": "opus"', '"model": "sonnet"')   # the user edits later
    s.write_text(doc_text)
    invoke("hooks", "uninstall", "claude-code")
    after = json.loads(s.read_text())
    assert after == {**json.loads(SAMPLE), "model": "sonnet"}
    assert not _mem_handlers(after)


@pytest.mark.parametrize("text", ["", "{}", "{}\n", '{"a":1}', '{\n\t"a": [1, 2]\n}\n', '{"hooks":{"Stop":[]}}',
                                  '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mem hook claude-code"}]}]}}'])
def test_plans_on_many_shapes(text):
    p = plan_install(Path("s.json"), "C:\\Tools\\mem.exe", text=text)
    doc = json.loads(p.after)
    hs = _mem_handlers(doc)
    assert set(hs) == set(EVENT_TIMEOUTS)
    assert all(h.get("command") in ("C:/Tools/mem.exe", "mem hook claude-code") for v in hs.values() for h in v)
    assert plan_install(Path("s.json"), "x", text=p.after).after == p.after      # idempotent
    from objstore.integrations.install import install_record, remove_spans
    assert remove_spans(p.after, p.inserted) == text
    rec = install_record(p)
    back = plan_uninstall(Path("s.json"), text=p.after, record=rec)
    assert back.after == text


def test_plugin_files():
    root = REPO / "hooks" / "claude-code"
    manifest = json.loads((root / ".claude-plugin" / "plugin.json").read_text())
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", manifest["name"])
    # the double-load gotcha (agent-formats 1.8): hooks/hooks.json loads by default; naming it again
    # in the manifest would run every hook twice
    assert "hooks" not in manifest
    from importlib.metadata import version
    assert manifest["version"] == version("memvcs")
    hooks = json.loads((root / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == set(EVENT_TIMEOUTS)
    for ev, groups in hooks.items():
        [g] = groups
        [h] = g["hooks"]
        assert h == {"type": "command", "command": "mem", "args": ["hook", "claude-code"],
                     "timeout": EVENT_TIMEOUTS[ev]}


def test_setup_twice_and_undo(invoke, claude_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("SHELL", "/bin/bash")
    home = Path(os.environ["HOME"])
    (home / ".bashrc").write_text("alias ll='ls -l'\n")
    s = claude_dir / "settings.json"
    s.write_text(SAMPLE)
    r = invoke("setup")
    assert "created at" in r.stdout and "installed in" in r.stdout and "added a line" in r.stdout
    rc_after = (home / ".bashrc").read_text()
    assert 'eval "$(mem shell-init bash)"' in rc_after
    settings_after = s.read_bytes()
    r2 = invoke("setup", "--json").json
    assert not r2["hooks"]["changed"] and not r2["shell"]["changed"] and not r2["store_created"]
    assert (home / ".bashrc").read_text() == rc_after and s.read_bytes() == settings_after
    r = invoke("setup", "--undo")
    assert "kept at" in r.stdout
    assert (home / ".bashrc").read_text() == "alias ll='ls -l'\n"
    assert s.read_text() == SAMPLE
    assert (Path(os.environ["MEM_HOME"]) / "config").is_file()             # the store stays


def test_setup_dry_run_changes_nothing(invoke, claude_dir, monkeypatch):
    monkeypatch.setenv("SHELL", "/usr/bin/zsh")
    r = invoke("setup", "--dry-run")
    assert r.stdout.startswith("dry run")
    assert not (claude_dir / "settings.json").exists()
    assert not (Path(os.environ["HOME"]) / ".zshrc").exists()
    assert not Path(os.environ["MEM_HOME"]).exists()
