"""``mem mcp`` (stdio) answers the requests it has read before it exits at
the end of stdin (test25 T9; docs/mcp.md: "every request with an id is
answered"): a one-shot client that writes its requests and closes stdin, as
a shell pipeline does, gets every answer, and a write it asked for is both
done and confirmed.  A real ``mem mcp`` process fed all its input at once."""

from __future__ import annotations

import json
import subprocess

import pytest

pytest.importorskip("mcp")

from mcp_helpers import REPO, call, mem_cmd, rpc  # noqa: E402


def test_stdio_answers_what_it_read_before_exiting_at_end_of_input(store_path, mem):
    mem("remember", "project/api/port", "the api listens on port 8080")
    lines = [rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "t", "version": "0"}}, id=1),
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             call("search", {"query": "port", "limit": 5}, id=6),
             call("remember", {"key": "project/api/db", "value": "postgres 16"}, id=7),
             call("get", {"key": "project/api/port"}, id=8)]
    out = subprocess.run(mem_cmd("mcp"), input="".join(json.dumps(m) + "\n" for m in lines), capture_output=True,
                         text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr
    answers = {m["id"]: m for m in map(json.loads, out.stdout.splitlines())}
    assert sorted(answers) == [1, 6, 7, 8], out.stdout
    for rid in (6, 7, 8):
        assert "result" in answers[rid] and not answers[rid]["result"].get("isError"), answers[rid]
    assert "8080" in answers[6]["result"]["content"][0]["text"]
    assert "8080" in answers[8]["result"]["content"][0]["text"]
    assert mem("get", "project/api/db").stdout.strip() == "postgres 16"
