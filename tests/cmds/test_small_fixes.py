"""Issue 21 item 11, the smaller defects: each one a test that failed before the fix."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.hooks._util import asst, line, text, user


def test_recall_without_a_searchable_word_is_a_usage_error(invoke):
    invoke("remember", "user/a", "hello world")
    r = invoke("recall", '"', exit_code=2)
    assert "no searchable word" in r.stderr
    invoke("recall", "...", exit_code=2)
    invoke("recall", '"', "hello", exit_code=0)          # one phrasing with a word is enough


def test_future_valid_from_is_not_called_backfill(invoke):
    invoke("remember", "user/plan", "now value")
    r = invoke("remember", "user/plan", "later value", "--valid-from", "2099-01-01")
    assert "backfill" not in r.stdout and "future" in r.stdout
    r = invoke("remember", "user/plan", "older value", "--valid-from", "2001-01-01")
    assert "backfill" in r.stdout


def test_refused_first_write_and_empty_first_import_leave_no_store(invoke, tmp_path):
    home = Path(os.environ["MEM_HOME"])
    invoke("remember", "user/pin", "1234", "--sensitivity", "secret", exit_code=4)    # no vault
    assert not home.exists()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    assert "nothing given is a claude-code transcript" in invoke("import", "claude-code", str(bad),
                                                                exit_code=2).stderr   # (fix14)
    assert not home.exists()
    invoke("remember", "user/editor", "neovim")
    assert (home / "config").is_file()
    invoke("remember", "user/pin", "1234", "--sensitivity", "secret", exit_code=4)    # an existing store stays
    assert invoke("get", "user/editor").stdout.strip() == "neovim"


def test_session_project_from_a_record_that_has_cwd(invoke, tmp_path):
    t = tmp_path / "S9.jsonl"
    last = user("u2", "and one more thing", sid="S9", ts="2026-01-05T10:00:05Z")
    del last["cwd"]
    t.write_bytes(line(user("u1", "first prompt", sid="S9")) + line(asst("a1", "m1", [text("ok")], sid="S9"))
                  + line(last))
    invoke("import", "claude-code", str(t))
    s = invoke("sessions", "--json").json
    rows = s if isinstance(s, list) else s["sessions"]
    assert [r["project"] for r in rows] == ["proj"]


def test_setup_undo_cleans_every_shell(invoke, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("MEM_HOOK_COMMAND", "/opt/mem/bin/mem")
    home = Path(os.environ["HOME"])
    monkeypatch.setenv("SHELL", "/bin/bash")
    invoke("setup", "--no-hooks")
    monkeypatch.setenv("SHELL", "/usr/bin/zsh")
    invoke("setup", "--no-hooks")
    assert "shell-init bash" in (home / ".bashrc").read_text() and "shell-init zsh" in (home / ".zshrc").read_text()
    r = invoke("setup", "--undo", "--no-hooks", "--json").json
    assert {s["shell"] for s in r["shells"] if s["changed"]} == {"bash", "zsh"}
    assert not (home / ".bashrc").exists() and not (home / ".zshrc").exists()   # setup made them (W11)
