"""test38 T9.10: ``mem serve`` on a store path holding no store made a new
store there, silently, and served it (a mistyped --home served an empty
memory and took every agent's writes).  Now it exits 10 saying so, and
creates nothing, unless --create is given."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.system.mcp_helpers import REPO, mem_cmd, serve

pytest.importorskip("mcp")


def test_serve_refuses_a_path_with_no_store(tmp_path):
    home = tmp_path / "typo-home"
    p = subprocess.run(mem_cmd("--home", str(home), "serve", "--listen", "127.0.0.1:0"), capture_output=True,
                       text=True, cwd=REPO, timeout=60, env={**os.environ, "MEM_HOME": str(tmp_path / "unused")})
    assert p.returncode == 10, p.stderr
    assert f"no mem store at {home}: mem serve does not create one" in p.stderr
    assert "--create" in p.stderr and "Traceback" not in p.stderr
    assert not home.exists() and not (tmp_path / "unused").exists()


def test_serve_create_makes_the_store(tmp_path):
    home = tmp_path / "new-home"
    with serve("--create", env={"MEM_HOME": str(home)}) as (_base, _log):
        assert (home / "config").is_file()
