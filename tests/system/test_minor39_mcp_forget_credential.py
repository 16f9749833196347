"""test39 m3: the admin tool ``forget_matching`` was refused by the MCP
credential gate when its text was a credential, so a person could not forget
a credential that way (the forget writes only the text's hash).  Now that one
argument passes the gate; every other argument holding a credential is still
refused (``remember``'s value, ``search``'s query), and the log holds neither.
The official ``mcp`` client on a real ``mem mcp --admin``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mcp_helpers import REPO, stdio_params  # noqa: E402

TOKEN = "ghp_" + "Zq7mm44xAbCdEfGhIjKlMnOpQrStUvWxYz01"   # a GitHub token's shape; fake


def _calls(calls: list[tuple[str, dict]]) -> tuple[list[str], str]:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client
    out: list[str] = []
    with tempfile.TemporaryFile("w+") as err:
        async def main():
            async with stdio_client(stdio_params("--admin"), errlog=err) as (r, w):
                async with ClientSession(r, w) as s:
                    await s.initialize()
                    for tool, args in calls:
                        res = await s.call_tool(tool, args)
                        out.append(" ".join(getattr(c, "text", "") for c in res.content))
        anyio.run(main)
        err.seek(0)
        return out, err.read()


def test_forget_matching_a_credential_passes_the_gate(store_path):
    subprocess.run([sys.executable, "-m", "cmds", "remember", "project/acme/note", "the deploy host is gamma"],
                   check=True, capture_output=True, cwd=REPO, env=dict(os.environ), timeout=120)
    (fm, rem, search), log = _calls([("forget_matching", {"text": TOKEN}),
                                     ("remember", {"key": "project/acme/t", "value": f"token {TOKEN}"}),
                                     ("search", {"query": TOKEN})])
    assert "holds a credential" not in fm and "nothing contains that text" in fm, fm
    for answer in (rem, search):
        assert "holds a credential (rule github-token)" in answer and TOKEN not in answer, answer
    assert TOKEN not in log and TOKEN not in fm
    lines = [json.loads(ln) for ln in log.splitlines() if ln.startswith("{")]
    assert [ln["outcome"] for ln in lines if ln.get("tool") == "forget_matching"] == ["not_found"], lines
