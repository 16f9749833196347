"""test35 T12: ``mem keys`` crashed (internal error, exit 1, nothing
listed) as soon as two sibling sub-agents disagreed on one key: that key
has no current value (``get`` exits 4 naming them), and every other key of
the store went unlisted too.  Real ``mem`` processes on a real store."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.hooks._util import REPO, hook_env

S = "19191919-0000-0000-0000-000000000001"


def _mem(store, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], text=True, capture_output=True,
                          env=hook_env(store), cwd=REPO, timeout=120)


def test_keys_lists_a_key_sub_agents_disagree_on_and_every_other_key(tmp_path):
    store = tmp_path / "store"
    for args in (("project/x/other", "fine"), ("project/x/build", "make", "--session", S, "--agent", "a1"),
                 ("project/x/build", "ninja", "--session", S, "--agent", "a2")):
        assert _mem(store, "remember", *args).returncode == 0
    p = _mem(store, "keys")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("project/x/build  -/2  no current value (sub-agents disagree: ") and "agent-a2" in lines[0]
    assert lines[1].startswith("project/x/other  v1/1  fine")
    p = _mem(store, "keys", "--json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert rows[0]["key"] == "project/x/build" and rows[0]["body"] is None and "disagree" in rows[0]["why"]
    assert rows[1] == {"key": "project/x/other", "id": rows[1]["id"], "version": 1, "versions": 1, "body": "fine"}
    p = _mem(store, "keys", "--plain")
    assert p.returncode == 0, p.stderr
    cols = [ln.split("\t") for ln in p.stdout.splitlines()]
    assert len(cols) == 2 and len(cols[0]) == len(cols[1]) and "no current value" in cols[0][4]
    assert _mem(store, "get", "project/x/build").returncode == 4
