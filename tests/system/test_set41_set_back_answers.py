"""test40 T23, through real processes: a key whose ref was set back (a
synced folder's older copy of the ref file) was served by every answer an
agent reads (``recall``/``search``/``keys``/``get --json``, the MCP
``recall``/``get``/``search``/``log`` tools of ``mem mcp``) with no word of
it: only the CLI's stderr said so, which an agent never sees; ``show
KEY@v3`` and ``diff KEY v2 v3`` said "no version 3".  Now each carries a
``set_back`` field naming the version served and the newer one the reflog
names, and show/diff name the set-back and the repair."""

from __future__ import annotations

import json
import anyio
import pytest

from tests.system.mcp_helpers import stdio_session
from tests._setback import set_back

KEY = "project/db/port"


def _set_back(mem, store_path, tmp_path):
    set_back(mem, store_path, tmp_path, KEY, ("db port 5432", "db port 6543", "db port 7654"))


def _said(back):
    assert back["version"] == 2 and back["newer_version"] == 3 and len(back["newer_id"]) == 64, back
    assert "set back" in back["warning"] and "mem fsck --repair" in back["warning"]


def test_json_answers_carry_the_set_back(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    rec = json.loads(mem("recall", "db port", "--project", "db", "--json").stdout)
    fact = next(h for h in rec["hits"] if h["kind"] == "fact")
    _said(fact["set_back"])
    hit = next(h for h in json.loads(mem("search", "port", "--json").stdout) if h["kind"] == "fact")
    _said(hit["set_back"])
    _said(next(k for k in json.loads(mem("keys", "--json").stdout) if k["key"] == KEY)["set_back"])
    got = json.loads(mem("get", KEY, "--json").stdout)
    assert got["body"] == "db port 6543"
    _said(got["set_back"])
    for args in (("show", f"{KEY}@v3"), ("diff", KEY, "v2", "v3")):
        r = mem(*args, exit_code=4)
        assert "set back" in r.stderr and "v3" in r.stderr and "mem fsck --repair" in r.stderr, (args, r.stderr)
    mem("fsck", "--repair", exit_code=None)
    assert "set_back" not in json.loads(mem("get", KEY, "--json").stdout)
    assert "db port 7654" in mem("show", f"{KEY}@v3").stdout


def test_mcp_tools_carry_the_set_back(mem, store_path, tmp_path):
    pytest.importorskip("mcp")
    _set_back(mem, store_path, tmp_path)

    async def main():
        async with stdio_session("--project", "db") as s:
            return [(await s.call_tool(name, args)).structured_content for name, args in
                    (("recall", {"queries": "db port"}), ("get", {"key": KEY}), ("search", {"query": "port"}),
                     ("log", {"key": KEY}))]
    rec, got, found, log = anyio.run(main)
    item = next(i for i in rec["items"] if i["kind"] == "fact")
    assert item["value"] == "db port 6543"
    _said(item["set_back"])
    _said(got["item"]["set_back"])
    _said(next(i for i in found["items"] if i["kind"] == "fact")["set_back"])
    _said(log["set_back"])
