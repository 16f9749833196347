"""fresh43 F10 (session 44, fil44): on a store this user cannot write (a
read-only mount, ``chmod -R a-w``, root-owned files after a ``sudo mem``)
every prompt was silently not captured (the hooks fail open) and neither
``mem doctor`` nor ``mem status`` said a word.  Now doctor names it (an
error while mem's hooks are installed, else a warning) and status says
capture is stopped.  As root a mode never refuses a write, so the commands
run without ``CAP_DAC_OVERRIDE`` (``setpriv``).  Real ``mem`` processes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.vault.test_dmg42_unreadable_not_damaged import REPO, _prefix


@pytest.mark.parametrize("hooked", [True, False])
def test_a_read_only_store_is_said_by_doctor_and_status(mem, tmp_path, hooked):
    home = tmp_path / "s"
    user = tmp_path / "user"
    user.mkdir()
    env = {"MEM_AGENT": "0", "HOME": str(user), "CLAUDE_CONFIG_DIR": str(user / ".claude")}
    mem("--home", str(home), "remember", "project/api/a", "one", env=env)
    if hooked:
        mem("--home", str(home), "hooks", "install", "claude-code", env=env)
    pre = _prefix()
    e = {**os.environ, "PYTHONPATH": REPO, **env}

    def run(*args):
        return subprocess.run([*pre, sys.executable, "-m", "cmds", "--home", str(home), *args], capture_output=True,
                              text=True, env=e, cwd=REPO, timeout=120)

    r = run("doctor")
    assert "read-only" not in r.stdout + r.stderr
    subprocess.run(["chmod", "-R", "a-w", str(home)], check=True)
    try:
        assert run("remember", "project/api/b", "two").returncode == 16
        r = run("doctor")
        line = next((x for x in r.stdout.splitlines() if "the store is read-only" in x), None)
        assert line is not None, r.stdout + r.stderr
        assert line.startswith("error: [store]" if hooked else "warning: [store]"), line
        assert "the hooks capture nothing" in line and f"chmod -R u+w {home}" in r.stdout, r.stdout
        if hooked:
            assert r.returncode != 0
        r = run("status")
        assert r.returncode == 0 and "warning: capture is stopped: the store is read-only" in r.stderr, r.stderr
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(home)], check=True)
    assert "read-only" not in run("status").stderr
