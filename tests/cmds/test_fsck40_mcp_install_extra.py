"""fsck40 (fresh39 F14): ``mem mcp install codex|claude-code`` (stdio) and
``mem setup --mcp`` without the mcp extra wired the agent to a server that
exits 1 at once, rc 0.  Now refused, exit 1, naming the pip command, nothing
written; ``--force`` writes it.  And ``mem mcp uninstall codex`` removes the
``~/.codex`` folder the install made (when empty).  Real ``mem`` processes,
the extra hidden by a ``sys.meta_path`` finder (as test_redb24_mcp_extra)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.cmds.test_redb24_mcp_extra import HIDDEN, REPO


def _mem(home, *args, hide=None):
    env = dict(os.environ, HOME=str(home), MEM_HOME=str(home / "store"), PYTHONPATH=REPO)
    env.pop("CODEX_HOME", None)
    env.pop("CLAUDE_CONFIG_DIR", None)
    argv = [sys.executable, "-c", HIDDEN, hide, *args] if hide else [sys.executable, "-m", "cmds", *args]
    return subprocess.run(argv, input="", capture_output=True, text=True, env=env, cwd=REPO, timeout=60)


@pytest.mark.parametrize("agent,made", [("codex", ".codex/config.toml"), ("claude-code", ".claude.json")])
def test_install_refused_without_the_extra(tmp_path, agent, made):
    p = _mem(tmp_path, "mcp", "install", agent, hide="anyio")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "pip install 'memvcs[mcp]'" in p.stderr and "nothing was written" in p.stderr, p.stderr
    assert not (tmp_path / made).exists() and not (tmp_path / ".codex").exists()
    p = _mem(tmp_path, "mcp", "install", agent, "--force", hide="anyio")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / made).is_file()


def test_setup_mcp_refused_before_writing(tmp_path):
    p = _mem(tmp_path, "setup", "--mcp", "codex", "--shell", "none", hide="mcp")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "pip install 'memvcs[mcp]'" in p.stderr
    assert sorted(os.listdir(tmp_path)) == ['home'] and os.listdir(tmp_path / 'home') == []   # (the autouse HOME)


def test_uninstall_removes_the_folder_the_install_made(tmp_path):
    p = _mem(tmp_path, "mcp", "install", "codex")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / ".codex" / "config.toml").is_file()
    p = _mem(tmp_path, "mcp", "uninstall", "codex")
    assert p.returncode == 0, p.stderr
    assert not (tmp_path / ".codex").exists()
    # a folder that was there before stays
    (tmp_path / ".codex").mkdir()
    assert _mem(tmp_path, "mcp", "install", "codex").returncode == 0
    assert _mem(tmp_path, "mcp", "uninstall", "codex").returncode == 0
    assert (tmp_path / ".codex").is_dir() and not (tmp_path / ".codex" / "config.toml").exists()


def test_a_dry_run_without_the_extra_shows_the_plan_then_the_refusal(tmp_path):
    """test40 T13: ``mcp install codex --dry-run`` without the extra was
    refused with nothing shown; it shows the diff, then says a real run is
    refused (exit 1, as the real run), writing nothing."""
    p = _mem(tmp_path, "mcp", "install", "codex", "--dry-run", hide="anyio")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "+[mcp_servers.mem]" in p.stdout, p.stdout
    assert "pip install 'memvcs[mcp]'" in p.stderr and "nothing was written" in p.stderr, p.stderr
    assert not (tmp_path / ".codex").exists()
