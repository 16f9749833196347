"""Derive files a fact only in its session's own scopes (test29 P17) and never
revives a value the person's later fact already replaced (test29 P8), nor
under a synonym key of that fact: a bare "5432" under ``database-port``
beside the person's later ``db-port`` = 6543 (test35 T10: the check asked
its question from the value alone, "5432" less its values: nothing)."""

from __future__ import annotations

import pytest

from tests.derive._util import Model, transcript

SCRIPT = {
    "CACHE-SESSION": {"facts": [
        {"key": "global/cache-host", "kind": "project", "value": "cache host is kestrel-cache-3.internal",
         "turns": [1]},
        {"key": "project/gamma/cache-host", "kind": "project", "value": "cache host is kestrel-cache-3.internal",
         "turns": [1]},
        {"key": "project/shopping/cache-host", "kind": "project", "value": "cache host is kestrel-cache-3.internal",
         "turns": [1]},
        {"key": "project/shop/cache-host", "kind": "project", "value": "cache host is kestrel-cache-3.internal",
         "turns": [1]},
        {"key": "user/editor", "kind": "user", "value": "I edit with helix", "turns": [2]}]},
    "PORT-SESSION": {"facts": [
        {"key": "project/shop/database-port", "kind": "project",
         "value": "The shop database listens on port 4000", "turns": [1]},
        {"key": "project/shop/search-host", "kind": "project",
         "value": "The search index host is heron-search-2.internal", "turns": [3]}]},
    # (keyed by the prompt's own words: a marker word in the turn is a value of its own, of another thing)
    "please wire the tests to it": {"facts": [
        {"key": "project/shop/db-host", "kind": "project", "value": "pg-7", "turns": [1]},
        {"key": "project/shop/database-host", "kind": "project", "value": "pg-7", "turns": [1]}]},
}


@pytest.fixture
def model(invoke, tmp_path, monkeypatch):
    projects = tmp_path / "claude" / "projects" / "-home-dev-shop"
    transcript(projects / "cache.jsonl", "cache", [
        ("user", "CACHE-SESSION: the shop cache host is kestrel-cache-3.internal from today"),
        ("assistant", "Got it. I edit with helix here.")], cwd="/home/dev/shop")
    transcript(projects / "port.jsonl", "port", [
        ("user", "PORT-SESSION: The shop database listens on port 4000 for now."),
        ("assistant", "OK, port 4000."),
        ("user", "The search index host is heron-search-2.internal.")], cwd="/home/dev/shop")
    transcript(projects / "bare.jsonl", "bare", [
        ("user", "the db host is pg-7, please wire the tests to it"),
        ("assistant", "Done, the tests use pg-7.")], cwd="/home/dev/shop")
    invoke("import", "claude-code", str(tmp_path / "claude" / "projects"))
    m = Model(SCRIPT)
    monkeypatch.setenv("OPENAI_BASE_URL", m.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-derive")
    yield m
    m.close()


def _decisions(invoke) -> dict[str, dict]:
    r = invoke("derive", "--apply", "--json").json
    return {d["key"]: d for d in r["decisions"]}


def test_a_key_outside_the_sessions_scopes_is_queued_never_written(model, invoke):
    got = _decisions(invoke)
    for key in ("global/cache-host", "project/gamma/cache-host", "project/shopping/cache-host"):
        assert got[key]["rule"] == "out-of-scope", key
        assert "project/shop/" in got[key]["detail"]
        assert invoke("get", key, exit_code=None).exit_code != 0, key     # not written
    assert got["project/shop/cache-host"]["rule"] == "write"
    assert got["user/editor"]["rule"] == "write"
    assert "kestrel-cache-3" in invoke("get", "project/shop/cache-host").stdout
    keys = {q["key"] for q in invoke("queue", "list", "--json").json}
    assert {"global/cache-host", "project/gamma/cache-host", "project/shopping/cache-host"} <= keys
    # recall in another project never answers with shop's host
    r = invoke("recall", "which host is the cache", "--project", "web", "--json").json
    assert "kestrel-cache-3" not in str([h for h in r["hits"] if h.get("kind") == "fact"])


def test_the_prompt_offers_only_the_sessions_scopes(model, invoke):
    invoke("derive", "--json")
    prompt = next(b["messages"][0]["content"] for _p, _h, b in model.requests if "CACHE-SESSION" in str(b))
    assert "global/<name>" not in prompt and "project/shop/<topic>/<name>" in prompt


def test_a_value_the_persons_later_fact_replaced_is_queued_not_revived(model, invoke):
    invoke("remember", "project/shop/db", "The shop database listens on port 5432")     # the person, later
    got = _decisions(invoke)
    d = got["project/shop/database-port"]
    assert d["rule"] == "updated-later" and "project/shop/db" in d["detail"]
    assert invoke("get", "project/shop/database-port", exit_code=None).exit_code != 0
    assert got["project/shop/search-host"]["rule"] == "write"      # another subject of the same session: filed
    assert ("project/shop/database-port", "challenge") in \
        {(q["key"], q["kind"]) for q in invoke("queue", "list", "--json").json}


def test_without_a_later_fact_the_same_proposal_is_written(model, invoke):
    got = _decisions(invoke)
    assert got["project/shop/database-port"]["rule"] == "write"



def test_a_bare_value_under_a_synonym_key_of_a_later_fact_is_queued(model, invoke):
    invoke("remember", "project/shop/db-host", "pg-9")                 # the person, later
    got = _decisions(invoke)
    assert got["project/shop/db-host"]["rule"] == "change-user-stated"
    d = got["project/shop/database-host"]
    assert d["rule"] == "updated-later" and "project/shop/db-host" in d["detail"], d
    assert invoke("get", "project/shop/database-host", exit_code=None).exit_code != 0
    assert invoke("get", "project/shop/db-host").stdout.strip() == "pg-9"
