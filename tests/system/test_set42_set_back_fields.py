"""test41 T6, the rest: a key whose ref was set back (a synced folder's
older copy of the ref file) was served with no ``set_back`` field by the
MCP ``context`` tool, ``mem context --json``, ``mem log --json`` and
``mem blame`` (text and ``--json``).  Now each carries it (log: on the
version the ref holds), and blame warns on stderr.  Real ``mem`` processes
and ``mem mcp`` through the official SDK client."""

from __future__ import annotations

import anyio
import pytest

from tests.system.mcp_helpers import stdio_session
from tests.system.test_set41_set_back_answers import KEY, _said, _set_back


def test_context_log_and_blame_json_carry_the_set_back(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    ctx = mem("context", "--project", "db", "--json")
    _said(next(f for f in ctx.json["facts"] if f["key"] == KEY)["set_back"])
    log = mem("log", KEY, "--json").json
    marked = [v for v in log if "set_back" in v]
    assert [v["version"] for v in marked] == [2], log
    _said(marked[0]["set_back"])
    r = mem("blame", KEY, "--json")
    _said(r.json["set_back"])
    assert "set back" in mem("blame", KEY).stderr
    mem("fsck", "--repair", exit_code=None)
    assert "set_back" not in mem("blame", KEY, "--json").json
    assert not [v for v in mem("log", KEY, "--json").json if "set_back" in v]
    assert "set_back" not in str(mem("context", "--project", "db", "--json").json)


def test_mcp_context_tool_carries_the_set_back(mem, store_path, tmp_path):
    pytest.importorskip("mcp")
    _set_back(mem, store_path, tmp_path)

    async def main():
        async with stdio_session("--project", "db") as s:
            return (await s.call_tool("context", {"project": "db"})).structured_content
    ctx = anyio.run(main)
    _said(next(f for f in ctx["facts"] if f["key"] == KEY)["set_back"])
