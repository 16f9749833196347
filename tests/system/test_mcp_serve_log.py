"""``mem serve``'s log (its stderr, a service's log file) never holds a
credential: a tool call whose argument NAME holds one is refused by the
credential gate, and the log line of that refusal lists the argument names
with such a name masked; an unknown tool's name is logged as ``?``.  The real server, the official MCP client."""

from __future__ import annotations

import subprocess

import anyio
import pytest

pytest.importorskip("mcp")

from mcp_helpers import REPO, http_session, mem_cmd, serve  # noqa: E402

GH = "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"


def test_an_argument_name_holding_a_credential_is_never_logged(store_path):
    subprocess.run(mem_cmd("remember", "user/x", "a value"), check=True, capture_output=True, cwd=REPO, timeout=120)
    p = subprocess.run(mem_cmd("mcp", "keys", "mint", "--name", "bot", "--role", "agent"), capture_output=True,
                       text=True, cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr
    key = p.stdout.strip()

    async def main(url):
        async with http_session(url, key) as s:
            res = await s.call_tool("get", {"key": "user/x", GH: "y"})
            assert res.is_error and GH not in res.content[0].text
            res = await s.call_tool(f"tool-{GH}", {"key": f"v {GH}"})     # a tool name holding one
            assert res.is_error and GH not in res.content[0].text

    with serve() as (base, log):
        anyio.run(main, base + "/mcp")
        text = "".join(log)
    assert '"args": ["-", "key"], "outcome": "refused"' in text, text
    assert GH not in text and "Q9w2E3r4T5y6" not in text, text
