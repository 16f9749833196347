"""test17 T20: a store path holding a credential (``MEM_HOME=/tmp/x/ghp_…``)
was echoed by ``mem setup`` and written into ~/.claude/settings.json
(``--home …``) and ~/.bashrc.  Now setup, hooks install, mcp install and
shell-init refuse it, and proxy install (test18b V6) too (exit 2, the path never shown, nothing written, no
store created); ``setup --undo`` still works and does not show it.  Real
``mem`` processes, real files."""

from __future__ import annotations

import pytest

TOKEN = "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"


@pytest.fixture
def bad_home(tmp_path):
    home = tmp_path / "home"
    (home / ".bashrc").write_text("# my rc\n")
    (home / ".codex").mkdir()
    store = tmp_path / "stores" / TOKEN
    store.parent.mkdir()
    return home, store, {"MEM_HOME": str(store), "SHELL": "/bin/bash"}


def _refused(r) -> None:
    assert "the store path (--home / $MEM_HOME) holds a credential" in r.stderr, r.stderr
    assert "Q9w2" not in r.stdout + r.stderr


@pytest.mark.parametrize("args", [("setup",), ("setup", "--dry-run"), ("setup", "--json"),
                                  ("setup", "--no-hooks", "--shell", "none"),
                                  ("hooks", "install", "claude-code"), ("hooks", "install", "claude-code", "--dry-run"),
                                  ("mcp", "install", "codex"), ("mcp", "install", "claude-code", "--dry-run"),
                                  ("shell-init", "bash"), ("shell-init", "fish"),
                                  ("proxy", "install"), ("proxy", "install", "--dry-run")])
def test_a_store_path_holding_a_credential_is_refused_and_never_written(mem, bad_home, args):
    home, store, env = bad_home
    _refused(mem(*args, env=env, exit_code=2))
    assert (home / ".bashrc").read_text() == "# my rc\n"
    assert not (home / ".claude").exists() and not (home / ".claude.json").exists()
    assert not (home / ".codex" / "config.toml").exists()
    assert not (home / ".config").exists()          # test18b V6: proxy install's systemd unit
    assert not store.exists()


def test_the_same_path_given_as_home_is_refused_and_undo_still_works(mem, bad_home):
    home, store, env = bad_home
    _refused(mem("--home", str(store), "setup", env={"SHELL": "/bin/bash"}, exit_code=2))
    r = mem("setup", "--undo", env=env)                     # removes nothing it never wrote, says so
    assert "Q9w2" not in r.stdout + r.stderr and "(a path holding a credential, not shown)" in r.stdout
    assert (home / ".bashrc").read_text() == "# my rc\n"
