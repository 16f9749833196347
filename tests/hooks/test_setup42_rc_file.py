"""fresh41 F12 and F17: `mem setup` and the shell rc file.

F12: with ~/.bashrc a folder, setup ended in an internal error after it had
written the hooks, and `setup --undo` did the same after removing them.  Now
both refuse (exit 2) before anything is written or removed.

F17: setup for a second store added a second shell line beside the first
(two stores' shell capture at once), and `setup --undo` then left a mark line
behind, so the rc file setup had made was never deleted.  Now one mem line per
rc file, replaced as the hooks are, and undo leaves nothing of mem's.

Real `mem` processes on a fake HOME (the suite's isolated_env)."""

from __future__ import annotations

import os
from pathlib import Path


def _env(tmp_path: Path) -> dict:
    return {"SHELL": "/bin/bash", "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}


def _mem_lines(rc: Path) -> list[str]:
    return [ln for ln in rc.read_text().splitlines() if "mem" in ln]


def test_setup_with_the_rc_file_a_folder_refuses_before_writing_anything(mem, tmp_path):
    rc = Path(os.environ["HOME"]) / ".bashrc"
    rc.mkdir()
    r = mem("--home", str(tmp_path / "st"), "setup", exit_code=2, env=_env(tmp_path))
    assert "is a folder, not a file" in r.stderr and str(rc) in r.stderr
    assert "internal error" not in r.stderr
    assert not (tmp_path / "claude" / "settings.json").exists()   # the hooks were not written
    assert not (tmp_path / "st").exists()                          # nor the store made


def test_setup_undo_with_the_rc_file_a_folder_removes_nothing(mem, tmp_path):
    env = _env(tmp_path)
    mem("--home", str(tmp_path / "st"), "setup", "--shell", "none", env=env)
    settings = tmp_path / "claude" / "settings.json"
    before = settings.read_text()
    assert "hook" in before
    (Path(os.environ["HOME"]) / ".bashrc").mkdir()
    r = mem("--home", str(tmp_path / "st"), "setup", "--undo", exit_code=2, env=env)
    assert "is a folder, not a file" in r.stderr and "internal error" not in r.stderr
    assert settings.read_text() == before                          # the hooks are still installed
    # naming the shells to leave alone lets the undo go on
    r = mem("--home", str(tmp_path / "st"), "setup", "--undo", "--shell", "none", env=env)
    assert "hooks: removed from" in r.stdout


def test_setup_for_a_second_store_replaces_the_shell_line_and_undo_leaves_nothing(mem, tmp_path):
    env = _env(tmp_path)
    rc = Path(os.environ["HOME"]) / ".bashrc"
    mem("--home", str(tmp_path / "st1"), "setup", env=env)
    r = mem("--home", str(tmp_path / "st2"), "setup", env=env)
    assert "shell: added a line to" in r.stdout
    lines = _mem_lines(rc)
    evals = [ln for ln in lines if "shell-init" in ln]
    assert len(evals) == 1 and str(tmp_path / "st2") in evals[0], lines
    assert len(lines) == 2                                          # its mark and the line
    r = mem("--home", str(tmp_path / "st2"), "setup", env=env)    # again: nothing to change
    assert "shell: already in" in r.stdout and len(_mem_lines(rc)) == 2
    mem("--home", str(tmp_path / "st2"), "setup", "--undo", env=env)
    assert not rc.exists()                                          # setup made it; nothing else was in it


def test_setup_keeps_the_persons_own_lines_around_its_one_line(mem, tmp_path):
    env = _env(tmp_path)
    rc = Path(os.environ["HOME"]) / ".bashrc"
    rc.write_text("alias ll='ls -l'\n")
    for st in ("st1", "st2", "st3"):
        mem("--home", str(tmp_path / st), "setup", env=env)
    text = rc.read_text()
    assert text.startswith("alias ll='ls -l'\n")
    assert [ln for ln in text.splitlines() if "shell-init" in ln] == [
        f'command -v mem >/dev/null 2>&1 && eval "$(mem --home {tmp_path / "st3"} shell-init bash)"']
    mem("setup", "--undo", env=env)
    assert rc.read_text() == "alias ll='ls -l'\n"                  # the person's file, as it was
