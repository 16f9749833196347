"""fresh38 F22: a minted MCP key whose output was lost (standard output
closed, or a write that fails) stayed valid: a live key nobody saw.  Now
the key is revoked at once and the mint exits 74, saying so (real ``mem``
processes, their standard output ``/dev/full`` or closed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _mem(home: Path, *args: str, stdout=subprocess.PIPE, shell_tail: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "MEM_HOME": str(home)}
    for k in ("CLAUDECODE", "MEM_AGENT", "CODEX_HOME", "CODEX_SANDBOX", "CODEX_THREAD_ID"):
        env.pop(k, None)
    cmd = [sys.executable, "-m", "cmds", *args]
    if shell_tail:   # e.g. '>&-': a shell starts it with standard output closed
        cmd = ["sh", "-c", " ".join(f"'{a}'" for a in cmd) + " " + shell_tail]
    return subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO, timeout=60)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_key_whose_output_was_lost_is_revoked(tmp_path):
    home = tmp_path / "store"
    assert _mem(home, "init").returncode == 0
    with open("/dev/full", "w") as full:
        for extra in ((), ("--json",)):
            p = _mem(home, "mcp", "keys", "mint", "--name", f"lost{len(extra)}", "--role", "agent", *extra,
                     stdout=full)
            assert p.returncode == 74, p.stderr
            assert "could not be written to standard output" in p.stderr and "it was revoked" in p.stderr
    p = _mem(home, "mcp", "keys", "mint", "--name", "closed", "--role", "read", shell_tail=">&-")
    assert p.returncode == 74 and "standard output is closed" in p.stderr, p.stderr
    listed = _mem(home, "mcp", "keys", "list", "--json")
    assert listed.returncode == 0 and listed.stdout.strip() == "[]", listed.stdout
    p = _mem(home, "mcp", "keys", "mint", "--name", "lost0", "--role", "agent")   # the name is free again
    assert p.returncode == 0 and p.stdout.startswith("memk_"), p.stderr
    assert [r["name"] for r in __import__("json").loads(_mem(home, "mcp", "keys", "list", "--json").stdout)] == ["lost0"]
