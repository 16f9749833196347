"""A key confined to namespaces, against the real ``mem serve`` through the
official MCP client: whatever lies outside reads exactly as missing, in
every tool (tester findings T1, T2 and T14 of session 17).

* ``context`` never names, counts or shows an outside fact: not as
  "dormant" (T1), not as the other side of a conflict, not in the memory
  files of a scope the key does not cover (T14: another project's
  memory.md, the owner's soul.md and user.md).
* an edge (``remember`` ``edges``) or a ``forget`` by object id or prefix
  answers an outside object exactly as a missing one: same message, no id
  handed back (T2)."""

from __future__ import annotations

import json
import subprocess

import anyio
import pytest

pytest.importorskip("mcp")

from mcp_helpers import REPO, http_session, mem_cmd, serve  # noqa: E402


def _mem(*args: str) -> subprocess.CompletedProcess:
    p = subprocess.run(mem_cmd(*args), capture_output=True, text=True, cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr
    return p


def _mint(name: str, role: str, *extra: str) -> str:
    return _mem("mcp", "keys", "mint", "--name", name, "--role", role, *extra).stdout.strip()


def _id(key: str) -> str:
    return json.loads(_mem("get", key, "--json").stdout)["id"]


def _sc(res) -> dict:
    assert not res.is_error, res.content
    return res.structured_content


def _err(res) -> str:
    assert res.is_error, res.structured_content
    return res.content[0].text


def _missing_prefix(store_path) -> str:
    """A 6-hex prefix no object of the store starts with."""
    from objstore.core.errors import AmbiguousId, NotFound
    from objstore.memory.opening import open_store
    with open_store(store_path) as st:
        for n in range(1 << 24):
            try:
                st.resolve(f"{n:06x}")
            except AmbiguousId:
                continue
            except NotFound:
                return f"{n:06x}"
    raise AssertionError("no free prefix")  # pragma: no cover


@pytest.fixture
def store(store_path):
    _mem("remember", "project/api/port", "api port 8080")
    _mem("remember", "project/apiv2/port", "apiv2 port 9090")
    _mem("remember", "user/editor", "vim, always vim")
    _mem("memory", "add", "memory", "The owner's private plan lives in memory.md.")
    _mem("memory", "add", "memory", "apiv2 private note: quokka-ledger-5", "--project", "apiv2")   # T14
    _mem("memory", "add", "user", "user private note: narwhal-pencil-8")
    _mem("memory", "add", "soul", "soul note: ibis-copper-3")
    # a waiting review item: project/api/port contradicts project/apiv2/port
    _mem("remember", "project/api/port", "api port 8081", "--contradicts", "project/apiv2/port")
    return store_path


def test_context_names_nothing_outside_the_namespaces(store):
    key = _mint("api-bot", "agent", "--namespace", "project/api")
    everyone = _mint("all-bot", "agent")

    async def main(url):
        async with http_session(url, key) as s:
            for args in ({"project": "apiv2"}, {}, {"project": "api"}):
                cx = _sc(await s.call_tool("context", args))
                text = cx["text"]
                assert "Dormant" not in text and "dormant" not in text, (args, text)
                assert "project/apiv2/port" not in text and "9090" not in text, (args, text)
                assert "user/editor" not in text and "vim" not in text, (args, text)
                assert "private plan" not in text and "memory.md" not in text, (args, text)
                for word in ("quokka", "narwhal", "ibis", "soul.md", "user.md"):
                    assert word not in text, (args, word, text)
                assert {f["key"] for f in cx["facts"]} <= {"project/api/port"}
            cx = _sc(await s.call_tool("context", {"project": "api"}))
            assert "api port 8081" in cx["text"] and "IN CONFLICT" not in cx["text"]
        async with http_session(url, everyone) as s:   # an unconfined key: the whole block, as before
            cx = _sc(await s.call_tool("context", {"project": "api"}))
            assert "IN CONFLICT with project/apiv2/port" in cx["text"]
            assert "vim, always vim" in cx["text"] and "private plan" in cx["text"]
            assert "narwhal-pencil-8" in cx["text"] and "ibis-copper-3" in cx["text"]
            cx = _sc(await s.call_tool("context", {"project": "apiv2"}))
            assert "quokka-ledger-5" in cx["text"]

    with serve() as (base, _log):
        anyio.run(main, base + "/mcp")


def test_an_outside_id_reads_as_a_missing_one(store):
    key = _mint("api-bot", "agent", "--namespace", "project/api")
    owner = _mint("api-owner", "owner", "--namespace", "project/api")
    outside, inside = _id("project/apiv2/port"), _id("project/api/port")
    missing = _missing_prefix(store)

    def same(a: str, b: str, pa: str, pb: str) -> None:
        assert a.startswith("not_found: ") and a.replace(pa, "P") == b.replace(pb, "P"), (a, b)
        if len(pa) < len(outside):      # nothing of the id beyond what the caller gave
            assert outside[len(pa):len(pa) + 6] not in a

    async def main(url, admin):
        async with http_session(url, key) as s:
            def edge(t):
                return {"key": "project/api/w", "value": "y", "edges": {"relates_to": [t]}}
            e_out = _err(await s.call_tool("remember", edge(outside[:6])))
            e_full = _err(await s.call_tool("remember", edge(outside)))
            e_none = _err(await s.call_tool("remember", edge(missing)))
            same(e_out, e_none, outside[:6], missing)
            same(e_full, e_none, outside, missing)
            assert "not_found" in _err(await s.call_tool("get", {"key": "project/api/w"}))   # nothing written
            # by key the same link was already refused; inside ids link as before, given in full back
            assert "not_found" in _err(await s.call_tool("remember", edge("project/apiv2/port")))
            w = _sc(await s.call_tool("remember", edge(inside[:6])))
            assert w["written"] and w["edges"] == {"relates_to": [inside]}
        async with http_session(admin, owner) as s:     # a confined owner's forget by id: the same
            f_out = _err(await s.call_tool("forget", {"target": outside[:6]}))
            f_none = _err(await s.call_tool("forget", {"target": missing}))
            same(f_out, f_none, outside[:6], missing)
            assert "project/apiv2" not in f_out
            p = _sc(await s.call_tool("forget", {"target": inside[:8]}))
            assert p["done"] is False and p["preview"]["counts"]["versions"] == 1

    with serve() as (base, _log):
        anyio.run(main, base + "/mcp", base + "/admin/mcp")
    assert _mem("get", "project/apiv2/port").stdout.strip() == "apiv2 port 9090"


def test_sub_agent_and_queue_lookups_list_nothing_outside(store):
    _mem("remember", "project/apiv2/x", "explored thing", "--session", "sessA", "--agent", "explorer")
    _mem("remember", "project/apiv2/y", "explained thing", "--session", "sessA", "--agent", "explainer")
    key = _mint("api-bot", "agent", "--namespace", "project/api")
    owner = _mint("api-owner", "owner", "--namespace", "project/api")
    everyone = _mint("all-bot", "agent")
    missing = _missing_prefix(store)

    async def main(url, admin):
        async with http_session(url, key) as s:
            amb = _err(await s.call_tool("recall", {"queries": "thing", "from_agent": "expl"}))
            miss = _err(await s.call_tool("recall", {"queries": "thing", "from_agent": "nope", "session": "sessA"}))
            assert amb == "not_found: no sub-agent expl" and miss == "not_found: no sub-agent nope"
        async with http_session(url, everyone) as s:   # unconfined: the lists help, as on the CLI
            amb = _err(await s.call_tool("recall", {"queries": "thing", "from_agent": "expl"}))
            assert "sessA.agent-explainer" in amb
            # a proposal against the person's value of an outside key waits in the queue
            item = _sc(await s.call_tool("remember", {"key": "project/apiv2/port", "value": "apiv2 port 1"}))["queued"]
        async with http_session(admin, owner) as s:
            out = _err(await s.call_tool("queue_accept", {"item": item[:6]}))
            none = _err(await s.call_tool("queue_accept", {"item": missing}))
            assert out.replace(item[:6], "P") == none.replace(missing, "P") == "not_found: no queue item P"

    with serve() as (base, _log):
        anyio.run(main, base + "/mcp", base + "/admin/mcp")
    assert _mem("get", "project/apiv2/port").stdout.strip() == "apiv2 port 9090"


def test_a_sub_agent_never_reads_a_sibling_through_mcp(store):
    """test29 P3: MCP ``recall`` with ``agent`` and a sibling's
    ``from_agent`` answers as a missing sub-agent; ``get`` takes
    ``session``/``agent`` as the CLI does, a sibling's key reading as a
    missing one."""
    _mem("remember", "project/api/cache", "redis 6 on cache-1")
    _mem("remember", "project/api/cache", "redis 7 on cache-a1", "--session", "S1", "--agent", "alpha")
    _mem("remember", "project/api/cache", "memcached on cache-b2", "--session", "S1", "--agent", "beta")
    _mem("remember", "project/api/secretplan", "alpha-only: quokka-delta-88", "--session", "S1", "--agent", "alpha")
    key = _mint("all-bot", "agent")

    async def main(url):
        async with http_session(url, key) as s:
            err = _err(await s.call_tool("recall", {"queries": "quokka plan", "project": "api", "session": "S1",
                                                    "agent": "beta", "from_agent": "alpha"}))
            assert err == "not_found: no sub-agent alpha"
            mine = _sc(await s.call_tool("recall", {"queries": "quokka plan", "project": "api", "session": "S1",
                                                     "from_agent": "alpha"}))
            assert [i["key"] for i in mine["items"] if i.get("key")] == ["project/api/secretplan"]
            # an empty name is refused, never read as "no filter" (nor an empty agent as "no agent")
            for args in ({"from_agent": ""}, {"agent": "", "session": "S1"}):
                err = _err(await s.call_tool("recall", {"queries": "quokka plan", "project": "api", **args}))
                assert "bad agent name" in err and "quokka-delta-88" not in err
            sib = _err(await s.call_tool("get", {"key": "project/api/secretplan", "session": "S1", "agent": "beta"}))
            none = _err(await s.call_tool("get", {"key": "project/api/nokey", "session": "S1", "agent": "beta"}))
            assert sib.replace("secretplan", "K") == none.replace("nokey", "K")
            assert sib.startswith("not_found: no key project/api/secretplan")
            own = _sc(await s.call_tool("get", {"key": "project/api/cache", "session": "S1", "agent": "beta"}))
            assert own["item"]["value"] == "memcached on cache-b2"
            person = _sc(await s.call_tool("get", {"key": "project/api/cache"}))
            assert person["item"]["value"] == "redis 6 on cache-1"
            # test29b Q3: log and search take session/agent too
            sib = _err(await s.call_tool("log", {"key": "project/api/secretplan", "session": "S1", "agent": "beta"}))
            assert sib.startswith("not_found: no key project/api/secretplan")
            log = _sc(await s.call_tool("log", {"key": "project/api/cache", "session": "S1", "agent": "beta"}))
            assert "redis 7 on cache-a1" not in json.dumps(log) and "memcached on cache-b2" in json.dumps(log)
            found = _sc(await s.call_tool("search", {"query": "quokka", "session": "S1", "agent": "beta"}))
            assert "quokka-delta-88" not in json.dumps(found), found
            found = _sc(await s.call_tool("search", {"query": "cache", "session": "S1", "agent": "beta"}))
            vals = [i.get("value") for i in found["items"] if i.get("key") == "project/api/cache"]
            assert vals == ["memcached on cache-b2"], found

    with serve() as (base, _log):
        anyio.run(main, base + "/mcp")
