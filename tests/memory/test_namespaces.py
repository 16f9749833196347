"""Namespaces: the visibility rule (self and ancestors; a parent reads its
subtree demoted; siblings never), checked by hypothesis over random trees,
and through a real store: remember into namespaces, recall and the
session-start block read as one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from objstore.core.errors import InvalidInput
from objstore.core.objects import Fact
from objstore.memory.facts import Version, current_of, remember
from objstore.memory.scope import (child_namespace, namespace_depth, namespace_rank, parent_namespace,
                                   within_namespace)

NAMES = st.sampled_from(["a", "b", "c", "explorer", "a1", "x-2"])


@st.composite
def trees(draw):
    """A random forest of namespaces: 1-2 sessions, each node with 0-3
    children, depth <= 3.  Nodes are paths: ("S", "a", "b")."""
    nodes = []
    for root in draw(st.lists(st.sampled_from(["S1", "S2", "3f2a-b"]), min_size=1, max_size=2, unique=True)):
        frontier = [(root,)]
        nodes.append((root,))
        while frontier:
            node = frontier.pop()
            if len(node) > 3:
                continue
            for name in draw(st.lists(NAMES, max_size=3, unique=True)):
                child = node + (name,)
                nodes.append(child)
                frontier.append(child)
    return nodes


def ns(path: tuple) -> str:
    out = path[0]
    for name in path[1:]:
        out = child_namespace(out, name)
    return out


def expected(reader: tuple, node: tuple) -> int | None:
    """The rule, on paths."""
    if reader[0] != node[0]:
        return len(node) - 1                  # another session: as its root reads it
    if reader[:len(node)] == node:
        return 0                              # itself or an ancestor
    if node[:len(reader)] == reader:
        return len(node) - len(reader)        # a descendant, demoted per level
    return None                               # a sibling, or a sibling's subtree: never


@settings(max_examples=150, deadline=None)
@given(trees())
def test_visibility_rule_over_random_trees(nodes):
    for r in nodes:
        for n in nodes:
            got = namespace_rank(ns(r), ns(n))
            assert got == expected(r, n), (r, n)
            if r != n and r[0] == n[0] and len(r) == len(n) and r[:-1] == n[:-1]:
                assert got is None            # siblings never read each other
        assert namespace_rank(ns(r), "") == 0  # facts outside every session: everyone's
        assert namespace_depth(ns(r)) == len(r) - 1
        assert parent_namespace(ns(r)) == (ns(r[:-1]) if len(r) > 1 else None)
        assert namespace_rank(None, ns(r)) == len(r) - 1


def _v(i: int, namespace: str, valid_from: int) -> Version:
    f = Fact(key="project/p/k", kind="project", body=f"v{i}", version=i, parent=None, valid_from=valid_from,
             recorded_at=valid_from, namespace=namespace)
    return Version(f"{i:064x}", f)


@settings(max_examples=150, deadline=None)
@given(trees(), st.data())
def test_current_version_is_the_readers_own_before_a_descendants(nodes, data):
    """One key written in several namespaces: each reader's current version
    is one it may read, of the least rank, newest among those; a descendant's
    newer value never displaces its own; and none when another namespace of
    that rank in the same session, neither an ancestor nor a descendant of
    the newest one's, holds a different value (sibling sub-agents that
    disagree, test32 X5: every value here differs)."""
    writers = data.draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=6))
    chain = [_v(i + 1, ns(w), 1000 + i) for i, w in enumerate(writers)][::-1]
    for r in nodes:
        cur = current_of(chain, reader=ns(r))
        ranks = {v.id: expected(r, w) for v, w in zip(chain, writers[::-1])}
        seen = [vid for vid, rank in ranks.items() if rank is not None]
        if not seen:
            assert cur is None
            continue
        best = min(ranks[v] for v in seen)
        top = [(v, w) for v, w in zip(chain, writers[::-1]) if ranks[v.id] == best]
        newest, nw = max(top, key=lambda vw: vw[0].fact.valid_from)
        rivals = [w for _v, w in top if len(nw) > 1 and w[0] == nw[0] and w[:len(nw)] != nw and nw[:len(w)] != w]
        if rivals:
            assert cur is None
            continue
        assert cur is not None and cur.id == newest.id


def test_agent_names_and_session_are_checked():
    assert child_namespace("S1", "explorer") == "S1.agent-explorer"
    for bad in ("", "a/b", ".x", "a.b", "x" * 65, "a b"):
        with pytest.raises(InvalidInput):
            child_namespace("S1", bad)
    with pytest.raises(InvalidInput):
        child_namespace("", "explorer")
    assert within_namespace("S.agent-a.agent-b", "S.agent-a") and not within_namespace("S.agent-ab", "S.agent-a")
    assert parent_namespace("S.sidechain") == "S" and namespace_depth("S.sidechain") == 1


def test_namespace_field_keeps_old_ids_and_round_trips(store):
    from objstore.core.codec import decode, encode
    plain = Fact(key="user/a", kind="user", body="x", version=1, parent=None, valid_from=1, recorded_at=1)
    assert "namespace" not in plain.to_payload()   # objects without it keep their ids
    f = Fact(key="user/a", kind="user", body="x", version=1, parent=None, valid_from=1, recorded_at=1,
             namespace="S1.agent-a")
    assert decode(encode(f)) == f


def test_store_siblings_never_read_each_other_parent_reads_them_demoted(store):
    s = "sess-1"
    a, b = child_namespace(s, "alpha"), child_namespace(s, "beta")
    remember(store, "project/p/shared", "the shared database is postgres fourteen", namespace="")
    remember(store, "project/p/parent-note", "parent says the cache is memcached", namespace=s)
    remember(store, "project/p/alpha-find", "alpha found the cache eviction bug in memcached", namespace=a,
             trust="agent_observed")
    remember(store, "project/p/beta-find", "beta found the cache warmup in memcached", namespace=b,
             trust="agent_observed")
    # a sub-agent's lower-trust write against a user_stated value is reviewed, as anywhere
    assert remember(store, "project/p/parent-note", "alpha guesses redis", namespace=a,
                    trust="agent_observed").queued
    # the same key written in a sub-agent: its own value for it, the parent's stays the parent's
    remember(store, "project/p/parent-note", "alpha thinks the cache is redis", namespace=a)
    from objstore.retrieval.context import render_context
    from objstore.retrieval.recall import recall

    def keys(reader):
        hits = recall(store, "cache memcached", projects=("p",), namespace=reader, limit=20).hits
        return [(h.key, h.text) for h in hits if h.kind == "fact"]

    as_alpha = keys(a)
    assert ("project/p/beta-find", "beta found the cache warmup in memcached") not in as_alpha
    assert ("project/p/alpha-find", "alpha found the cache eviction bug in memcached") in as_alpha
    assert ("project/p/parent-note", "alpha thinks the cache is redis") in as_alpha   # its own value
    as_parent = keys(s)
    assert as_parent[0] == ("project/p/parent-note", "parent says the cache is memcached")
    assert {k for k, _ in as_parent[1:]} >= {"project/p/alpha-find", "project/p/beta-find"}
    block = render_context(store, ("p",), namespace=b).text
    assert "parent says the cache is memcached" in block and "postgres fourteen" in block
    assert "alpha" not in block
    parent_block = render_context(store, ("p",), namespace=s).text
    assert parent_block.index("parent-note") < parent_block.index("alpha-find")   # own first, then demoted


@settings(max_examples=8, deadline=None)
@given(trees())
def test_recall_and_the_session_block_follow_the_rule_on_a_real_store(nodes):
    """Each node of a random tree writes one fact; recall and the session
    block, read as each node, show exactly the facts the rule lets it read."""
    import tempfile
    from pathlib import Path

    from objstore.memory.opening import open_store
    from objstore.retrieval.context import render_context
    from objstore.retrieval.recall import recall
    nodes = nodes[:10]
    with tempfile.TemporaryDirectory() as d, open_store(Path(d) / "store", create=True) as store:
        keys = {}
        for i, n in enumerate(nodes):
            keys[n] = f"project/p/n{i}"
            remember(store, keys[n], f"zeta finding number {i} of the tree", namespace=ns(n))
        for r in nodes:
            want = {keys[n] for n in nodes if expected(r, n) is not None}
            hits = recall(store, "zeta finding tree", projects=("p",), namespace=ns(r), limit=50).hits
            assert {h.key for h in hits} == want, r
            block = render_context(store, ("p",), namespace=ns(r), budget=100_000)
            assert {k for k, _ in block.facts} == want, r


def test_mcp_tools_read_and_write_as_a_session_or_sub_agent(store):
    from objstore.integrations.access import Caller
    from objstore.integrations.mcptools import MemoryTools
    tools = MemoryTools(store, default_projects=("p",))
    agent = Caller("claude", "agent")
    w = tools.call(agent, "remember", {"key": "project/p/lead", "value": "the lead is in the retry loop of sync.py",
                                       "session": "S9", "agent": "scout"})
    assert w["written"]
    tools.call(agent, "remember", {"key": "project/p/other", "value": "the other lead is the retry budget",
                                   "session": "S9", "agent": "scout2"})
    as_sibling = tools.call(agent, "recall", {"queries": "retry lead", "session": "S9", "agent": "scout2"})
    assert [i["key"] for i in as_sibling["items"]] == ["project/p/other"]
    as_parent = tools.call(agent, "recall", {"queries": "retry lead", "session": "S9"})
    assert {i["key"] for i in as_parent["items"]} == {"project/p/lead", "project/p/other"}
    assert {i["namespace"] for i in as_parent["items"]} == {"S9.agent-scout", "S9.agent-scout2"}
    only = tools.call(agent, "recall", {"queries": "retry lead", "session": "S9", "from_agent": "scout"})
    assert [i["key"] for i in only["items"]] == ["project/p/lead"]
    ctx = tools.call(agent, "context", {"session": "S9", "agent": "scout"})
    assert "retry loop" in ctx["text"] and "retry budget" not in ctx["text"]
