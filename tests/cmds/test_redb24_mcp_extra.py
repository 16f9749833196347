"""redb24 (tester finding U5): ``mem mcp`` and ``mem serve`` without a module
of the mcp extra (``anyio``, ``pydantic``, ``mcp_types``, ``mcp``) give the
documented "needs the mcp extra" message and exit 1, not an internal error
naming ``ModuleNotFoundError``.  A real ``mem`` process runs with the module
hidden by a ``sys.meta_path`` finder."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cmds.mcp import NEEDS_SDK

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: runs ``mem`` (``python -m cmds``) with the module ``sys.argv[1]`` (and its submodules) not importable
HIDDEN = ("import runpy, sys\n"
          "hide = sys.argv.pop(1)\n"
          "class Hide:\n"
          "    def find_spec(self, name, path=None, target=None):\n"
          "        if name == hide or name.startswith(hide + '.'):\n"
          "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
          "sys.meta_path.insert(0, Hide())\n"
          "sys.argv[0] = 'mem'\n"
          "runpy.run_module('cmds', run_name='__main__', alter_sys=True)\n")


def _mem_hidden(module: str, tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, MEM_HOME=str(tmp_path / "home"))
    return subprocess.run([sys.executable, "-c", HIDDEN, module, *args], input="", capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=60)


@pytest.mark.parametrize("module", ["anyio", "pydantic", "mcp_types", "mcp"])
def test_mcp_without_a_module_of_the_extra(module, tmp_path):
    p = _mem_hidden(module, tmp_path, "mcp")
    assert p.returncode == 1, f"exit {p.returncode}\n{p.stderr}"
    assert NEEDS_SDK in p.stderr, p.stderr
    assert "ModuleNotFoundError" not in p.stderr and "internal error" not in p.stderr, p.stderr


def test_serve_without_anyio(tmp_path):
    p = _mem_hidden("anyio", tmp_path, "serve", "--listen", "127.0.0.1:0")
    assert p.returncode == 1, f"exit {p.returncode}\n{p.stderr}"
    assert NEEDS_SDK in p.stderr, p.stderr
