"""test35 T7 (the MCP part): a fact a later turn of the person says changed
carries ``updated_later`` in the MCP ``recall`` tool as ``mem recall --json``
has it, and the MCP ``context`` tool gives the very block ``mem context``
prints (one code path: ``render_context``).  Real processes: the hook,
``mem`` and ``mem mcp`` (stdio) driven by the official SDK client."""

from __future__ import annotations

import json

import anyio
import pytest

from tests.hooks._util import payload, run_hook, wait_store_processes_gone
from tests.system.mcp_helpers import stdio_session

SID = "13131313-0000-0000-0000-000000000001"


def test_mcp_recall_marks_a_fact_a_later_turn_changed(mem, store_path):
    pytest.importorskip("mcp")
    mem("remember", "project/proj/db-port", "5432")
    rc, _out, _err, _s = run_hook(store_path, payload("UserPromptSubmit", SID, None,
                                                      prompt="we switched the db port to 6543"))
    assert rc == 0
    wait_store_processes_gone(store_path)
    cli = json.loads(mem("recall", "which port does the db use", "--project", "proj", "--json").stdout)
    fact = next(h for h in cli["hits"] if h["kind"] == "fact")
    assert fact["key"] == "project/proj/db-port" and fact["updated_later"]["session"] == SID
    block = mem("context", "--project", "proj").stdout

    async def main():
        async with stdio_session("--project", "proj") as s:
            got = (await s.call_tool("recall", {"queries": "which port does the db use"})).structured_content
            ctx = (await s.call_tool("context", {})).structured_content
        return got, ctx
    got, ctx = anyio.run(main)
    item = next(i for i in got["items"] if i["kind"] == "fact")
    assert item["key"] == "project/proj/db-port" and item["value"] == "5432"
    later = item["updated_later"]
    assert later["text"] == "we switched the db port to 6543"
    assert (later["session"], later["seq"]) == (SID, fact["updated_later"]["seq"])
    assert ctx["text"].rstrip("\n") == block.rstrip("\n")
