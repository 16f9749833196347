"""mend27 (test27 V4, key26's left-out): an agent got around "never
overrules what you stated" with a look-alike key the UTS #39 check did not
cover (case, ``_``/``.`` for ``-``, dotless ``ı``, ``1`` for ``l``, a
small capital, an accent), and an agent's ASCII key beside the person's
Cyrillic look-alike was not queued either; recall then ranked the agent's
value first.  Now such a write is queued as a challenge (CLI and MCP) and
an agent's look-alike of a memory file's key is refused.  Real ``mem``
processes."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from objstore.core.lookalike import _ASCII_SKELETON, confusable_skeleton, key_skeleton
from objstore.core.text import confusable_fold

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "system"))
from mcp_helpers import stdio_session  # noqa: E402
from tests.conftest import word_in  # noqa: E402

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
AGENT = {"MEM_AGENT": "claude"}
VARIANTS = ["DEPLOY-DAY", "deploy_day", "deploy.day", "\u1d05eploy-day", "d\u0117ploy-day", "de\u0301ploy-day",
            "dep1oy-day", "Deploy_Day",
            # key28 (test27b X2): the dash look-alikes, a space, a run of dashes
            "deploy\u2010day", "deploy\u2212day", "deploy\u2013day", "deploy\u02d7day", "deploy day", "deploy--day"]


def test_the_ascii_table_is_the_general_path():
    """An ASCII name takes a table (no read of the confusables data); it must
    give what the general path gives, character by character."""
    import unicodedata
    for c in map(chr, range(32, 127)):
        t = unicodedata.normalize("NFKD", confusable_fold(c).casefold())
        assert key_skeleton(c) == confusable_skeleton(t).casefold().translate(_ASCII_SKELETON), c
    assert key_skeleton("p\u0131peline") == key_skeleton("pipeline")   # dotless ı
    assert key_skeleton("project/api/рор") == key_skeleton("project/api/pop")
    assert key_skeleton("project/api/РОР") == key_skeleton("project/api/POP")
    assert key_skeleton("project/api/deploy-day") != key_skeleton("project/api/deploy-days")
    assert key_skeleton("проект") != key_skeleton("project")


@pytest.mark.parametrize("variant", VARIANTS)
def test_an_agents_look_alike_of_the_persons_key_is_queued(mem, variant):
    mem("remember", "project/api/deploy-day", "Deploys happen on Friday", env=PERSON)
    r = mem("remember", f"project/api/{variant}", "Deploys happen on Monday", "--json", env=AGENT)
    assert r.json["written"] is False and r.json["queued"], r.stdout
    mem("get", f"project/api/{variant}", exit_code=4)
    [item] = mem("queue", "list", "--json").json
    assert item["kind"] == "challenge"
    assert "looks like the existing key project/api/deploy-day" in mem("queue", "show", item["id"][:12]).stdout
    rec = mem("recall", "what day do deploys happen", "--project", "api").stdout
    assert "Monday" not in rec and "Friday" in rec
    mem("remember", f"project/api/{variant}", "the person's own second key", env=PERSON)   # the person may
    assert mem("get", f"project/api/{variant}").stdout.strip() == "the person's own second key"


def test_an_unrelated_agent_key_is_written(mem):
    mem("remember", "project/api/deploy-day", "Deploys happen on Friday", env=PERSON)
    for key in ("project/api/deploy-days", "project/api/deploy-night", "project/web/deploy-day"):
        r = mem("remember", key, "an agent's note", "--json", env=AGENT)
        assert r.json["written"] is True, key
    assert mem("queue", "list", "--json").json == []


def test_an_agents_ascii_key_beside_the_persons_cyrillic_key_is_queued(mem):
    mem("remember", "project/api/рор", "the person's value", env=PERSON)   # Cyrillic р о р, the person's
    r = mem("remember", "project/api/pop", "the agent's value", "--json", env=AGENT)
    assert r.json["written"] is False and r.json["queued"]
    show = mem("queue", "show", r.json["queued"][:12]).stdout
    assert "looks like the existing key project/api/\\u0440\\u043e\\u0440" in show
    mem("get", "project/api/pop", exit_code=4)
    mem("remember", "project/api/pop", "the person's ASCII key", env=PERSON)   # the person writes it
    assert mem("get", "project/api/pop").stdout.strip() == "the person's ASCII key"


@pytest.mark.parametrize("key", ["user/memory/Soul.md", "user/Memory/soul.md", "user/memory/SOUL.MD",
                                 "project/api/memory/User.md"])
def test_an_agents_look_alike_of_a_memory_file_key_is_refused(mem, key):
    mem("init")
    r = mem("remember", key, "The owner prefers terse answers", env=AGENT, exit_code=6)
    assert "is a memory file: only the person writes it" in r.stderr
    mem("get", key, exit_code=4)
    mem("remember", "user/memory/notes.md", "an agent's own note", env=AGENT)   # not a memory file's name


def test_the_mcp_remember_tool_queues_a_case_variant(mem, store_path, monkeypatch):
    pytest.importorskip("mcp")
    mem("remember", "project/shop/db-port", "The shop database listens on port 5432", env=PERSON)
    monkeypatch.setenv("CLAUDECODE", "1")   # the MCP server's caller: an agent

    async def main():
        async with stdio_session("--project", "shop") as s:
            got = await s.call_tool("remember", {"key": "project/shop/DB-PORT",
                                                 "value": "The shop database listens on port 6543"})
            assert not got.is_error and got.structured_content["written"] is False
            assert got.structured_content["queued"]
            assert got.structured_content["note"] == ("this key looks like the existing key project/shop/db-port: "
                                                      "the proposal waits in the review queue")
            found = await s.call_tool("recall", {"queries": "which port does the shop database use"})
            assert not any(word_in("6543", str(i)) for i in found.structured_content["items"])
            assert any("5432" in str(i) for i in found.structured_content["items"])
    anyio.run(main)
    mem("get", "project/shop/DB-PORT", exit_code=4)
    assert [i["kind"] for i in mem("queue", "list", "--json").json] == ["challenge"]
