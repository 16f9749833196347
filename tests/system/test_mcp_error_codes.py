"""Every MCP tool error's text starts with its stable code (docs/mcp.md
"Errors"), over stdio and HTTP, through the official SDK client (test15 C):
the SDK used to put ``Error executing tool get: `` before a raised error's
text, and answered a missing or wrong-typed argument with pydantic's own
text and an errors.pydantic.dev link."""

from __future__ import annotations

import re
import subprocess

import anyio
import pytest

pytest.importorskip("mcp")

from mcp_helpers import REPO, http_session, mem_cmd, serve, stdio_session  # noqa: E402

CODE = re.compile(r"(not_found|bad_input|conflict|refused|forbidden|unavailable|rate_limited): \S")
GH_TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"

# (tool, arguments, the code, words the text must hold)
CASES = [
    ("get", {"key": "user/nope"}, "not_found", "no key user/nope"),
    ("get", {"key": "bad key!"}, "bad_input", "bad key"),
    ("get", {}, "bad_input", "missing argument 'key'"),
    ("get", {"key": 5}, "bad_input", "argument 'key' must be a string"),
    ("recall", {"queries": 5}, "bad_input", "argument 'queries' must be a list of strings or a string"),
    ("recall", {"queries": "x", "limit": "many"}, "bad_input", "argument 'limit' must be an integer"),
    ("recall", {"queries": "x", "limit": True}, "bad_input", "argument 'limit' must be an integer"),
    ("search", {"query": "q" * 5000}, "bad_input", "no searchable word in the query"),  # a 5,000-byte word
    ("remember", {"key": "user/a", "value": "v", "kind": "weird"}, "bad_input", "argument 'kind' must be one of"),
    ("remember", {"value": 3}, "bad_input", "missing argument 'key'; argument 'value' must be a string"),
    ("remember", {"key": "user/a", "value": "x" * 100_001}, "bad_input", "value is longer than 100000"),
    ("remember", {"key": "user/a", "value": f"token {GH_TOKEN}"}, "refused", "rule github-token"),
    ("remember", {"key": "user/a", "value": "v", "expect": "0" * 64}, "conflict", ""),
    ("nope", {}, "not_found", "no such tool"),
]


def _check(name: str, args: dict, res, code: str, words: str) -> None:
    assert res.is_error, (name, args, res.content)
    text = res.content[0].text
    assert CODE.match(text) and text.startswith(code + ": "), (name, args, text)
    assert words in text, (name, text)
    assert "Error executing" not in text and "pydantic" not in text and "input_value" not in text, text
    assert GH_TOKEN not in text
    assert "q" * 100 not in text and len(text) < 2000, text   # what was sent is never echoed back


def test_stdio_tool_errors_start_with_their_code(store_path):
    async def main():
        async with stdio_session() as s:
            for name, args, code, words in CASES:
                _check(name, args, await s.call_tool(name, args), code, words)
            # a tool of the owner's role: the person's decision, not an unknown tool (HTTP: 403)
            _check("pin", {"key": "user/a"}, await s.call_tool("pin", {"key": "user/a"}), "refused",
                   "person's decision")
            w = await s.call_tool("remember", {"key": "user/editor", "value": "neovim"})
            assert not w.is_error and w.structured_content["written"]   # and it still serves
    anyio.run(main)


def test_http_tool_errors_start_with_their_code(store_path):
    assert subprocess.run(mem_cmd("init"), capture_output=True, cwd=REPO, timeout=60).returncode == 0
    p = subprocess.run(mem_cmd("mcp", "keys", "mint", "--name", "codex@laptop", "--role", "agent"),
                       capture_output=True, text=True, cwd=REPO, timeout=60)
    assert p.returncode == 0, p.stderr
    key = p.stdout.strip()
    with serve() as (base, log):
        async def main():
            async with http_session(base + "/mcp", key) as s:
                for name, args, code, words in CASES:
                    _check(name, args, await s.call_tool(name, args), code, words)
        anyio.run(main)
    assert GH_TOKEN not in "".join(log)
