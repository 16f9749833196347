"""A working directory whose path holds a credential has no project: no
message of recall, search or context names it (test15 E: in
/tmp/x-AKIAIOSFODNN7EXAMPLE, ``mem recall hello`` printed "nothing recalled in
project x-AKIAIOSFODNN7EXAMPLE").  One rule with the capture side
(``register_project``): ``objstore.core.redact.path_holds_credential``."""

from __future__ import annotations

import os
import subprocess
import sys

from objstore import project_aliases

from tests.conftest import REPO

AKIA = "AKIAIOSFODNN7EXAMPLE"


def _mem(cwd, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=60)


def test_no_message_names_a_project_whose_path_holds_a_credential(tmp_path, store_path):
    bad, plain = tmp_path / f"x-{AKIA}", tmp_path / "plainproj"
    bad.mkdir()
    plain.mkdir()
    assert project_aliases(bad, store_root=None) == () and project_aliases(plain, store_root=None) == ("plainproj",)
    assert _mem(plain, "remember", "user/editor", "neovim").returncode == 0
    for args in (("recall", "hello"), ("recall", "hello", "--json"), ("search", "hello"), ("context",)):
        p = _mem(bad, *args)
        assert p.returncode == 0, (args, p.stderr)
        assert AKIA not in p.stdout + p.stderr, (args, p.stdout, p.stderr)
    assert "nothing recalled" in _mem(bad, "recall", "hello").stderr
    # an ordinary directory still names its project
    assert "nothing recalled in project plainproj" in _mem(plain, "recall", "hello").stderr
