"""test41 T30: ``mem --home '' remember …`` wrote into ``~/.mem`` and
``mem --home ' ' remember …`` made a store named " " in the working folder,
exit 0 (a script's ``mem --home "$STORE"`` with the variable unset).  Now
both are refused (exit 2, a message naming ``--home``), and so is a
``$MEM_HOME`` of spaces alone; an empty ``$MEM_HOME`` is unset (``~/.mem``),
as an empty ``$MEM_LOCK_TIMEOUT`` is.  A hook so named exits 0 and writes
nothing.  Real ``mem`` processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(args, cwd, env, input=None):
    return subprocess.run([sys.executable, "-m", "cmds", *args], cwd=cwd, env=env, input=input,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("how", ["--home ''", "--home ' '", "--home=' '", "MEM_HOME=' '"])
def test_a_blank_home_is_refused_and_writes_nowhere(tmp_path, how):
    work, home = tmp_path / "w", tmp_path / "h"
    work.mkdir()
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "MEM_HOME"}
    env.update(HOME=str(home), PYTHONPATH=REPO)
    value = "" if "''" in how else " "
    pre = [f"--home={value}"] if how.startswith("--home=") else ["--home", value] if how.startswith("--home") else []
    if how.startswith("MEM_HOME"):
        env["MEM_HOME"] = value
    for args in (["remember", "user/x", "y"], ["get", "user/x"], ["keys"], ["init"]):
        r = _run([*pre, *args], work, env)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        name = "$MEM_HOME" if how.startswith("MEM_HOME") else "--home"
        assert f"{name} is {'empty' if not value else 'spaces alone'}" in r.stderr, r.stderr
    event = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "s-blank", "cwd": str(work),
                        "prompt": "remember that the cache ttl is 300 seconds"})
    r = _run([*pre, "hook", "claude-code"], work, env, input=event)
    assert r.returncode == 0 and f"is {'empty' if not value else 'spaces alone'}" in r.stderr, (r.stdout, r.stderr)
    assert os.listdir(work) == [] and os.listdir(home) == [], (os.listdir(work), os.listdir(home))


def test_an_empty_mem_home_is_unset(tmp_path):
    home = tmp_path / "h"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": REPO, "MEM_HOME": ""}
    r = _run(["remember", "user/x", "y"], tmp_path, env)
    assert r.returncode == 0, r.stderr
    assert (home / ".mem" / "config").is_file()
