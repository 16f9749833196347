"""test32 X17: ``mem forget --session`` takes the facts ``mem derive``
wrote from that session's turns alone, and the proposals it queued from
them (session 31's S14 took its episode only): they were kept, current and
injected, and ``mem queue accept`` could raise them to ``user_stated``.
A fact that cites another session too stays, and so does the person's own
value.  A loopback OpenAI-compatible server gives scripted answers."""

from __future__ import annotations

import pytest

from objstore import scan_store

from tests.derive._util import serve_model, transcript

SCRIPT = {
    "CACHESESS": {"facts": [
        {"key": "project/acme-api/cache", "kind": "project", "value": "redis on redis-3.internal", "turns": [2]},
        {"key": "project/acme-api/deployhost", "kind": "project",
         "value": "The deploy host is walrus-7.internal", "turns": [2]}]},
    "KEEPSESS": {"facts": [
        {"key": "project/acme-api/linter", "kind": "project", "value": "ruff is the linter", "turns": [2]}]},
}


SESSIONS = {   # session id: its turns (the model's answer is chosen by the marker word)
    "d1": [("user", "CACHESESS: what cache and deploy host does the api use?"),
           ("assistant", "The api cache is redis on redis-3.internal. The deploy host is walrus-7.internal.")],
    "k1": [("user", "KEEPSESS: what linter do we use?"), ("assistant", "ruff is the linter, configured in pyproject.")],
}


@pytest.fixture
def rig(invoke, tmp_path, monkeypatch):
    root = tmp_path / "claude" / "projects"
    for sid, turns in SESSIONS.items():
        transcript(root / "-home-dev-acme-api" / f"{sid}.jsonl", sid, turns)
    invoke("import", "claude-code", str(root))
    invoke("remember", "project/acme-api/deployhost", "walrus-1.internal")   # the person's value
    yield from serve_model(monkeypatch, SCRIPT)


def test_forget_session_takes_its_derived_facts_and_proposals(rig, invoke, store_path):
    r = invoke("derive", "--apply", "--json").json
    assert "redis-3.internal" in invoke("get", "project/acme-api/cache", exit_code=None).stdout, r["decisions"]
    assert "redis-3.internal" in invoke("get", "project/acme-api/cache").stdout
    assert "walrus-7" in invoke("queue", "list").stdout          # against the person's value: queued
    assert "ruff" in invoke("get", "project/acme-api/linter").stdout
    out = invoke("forget", "--session", "d1", "--yes").stdout
    assert "project/acme-api/cache" in out, out                  # the preview names it
    invoke("get", "project/acme-api/cache", exit_code=4)
    assert "walrus-7" not in invoke("queue", "list").stdout
    assert invoke("get", "project/acme-api/deployhost").stdout.strip() == "walrus-1.internal"
    assert "ruff" in invoke("get", "project/acme-api/linter").stdout   # another session's: kept
    assert "redis-3" not in invoke("search", "redis").stdout
    invoke("gc", "--prune=now")
    assert scan_store(store_path, [b"redis-3.internal", b"walrus-7"]) == []   # every file, packs decompressed
    # the agent may not write it back
    r = invoke("remember", "project/acme-api/cache2", "redis on redis-3.internal", "--trust", "agent_observed",
               exit_code=None)
    assert r.exit_code != 0 and "forgotten" in r.stderr, (r.exit_code, r.stdout, r.stderr)


def _turn_ids(store_path, sid: str) -> list[str]:
    from objstore.core.refs import session_ref
    from objstore.memory.opening import open_store
    from objstore.memory.sessions import walk_turns
    s = open_store(store_path)
    try:
        return [tv.id for tv in walk_turns(s, s.refs.read(session_ref(sid)))]
    finally:
        s.close()


def test_the_person_stated_value_and_other_evidence_stay(rig, invoke, store_path):
    """Only values a model or agent made from that session alone go: the
    person's own statement stays theirs, and a derived value citing another
    session too keeps that evidence (and stays)."""
    from objstore.memory.facts import remember
    from objstore.memory.opening import open_store
    d1, k1 = _turn_ids(store_path, "d1"), _turn_ids(store_path, "k1")
    s = open_store(store_path)
    try:
        remember(s, "project/acme-api/owner", "Dana owns the api", sources=(d1[0],))
        remember(s, "project/acme-api/mixed", "ruff and redis everywhere", trust="derived", owner="derive",
                 sources=(d1[0], k1[0]), command="derive")
        remember(s, "project/acme-api/alone", "the deploy host is walrus-7", trust="derived", owner="derive",
                 sources=tuple(d1), command="derive")
    finally:
        s.close()
    invoke("forget", "--session", "d1", "--yes")
    assert "Dana" in invoke("get", "project/acme-api/owner").stdout
    assert "ruff and redis" in invoke("get", "project/acme-api/mixed").stdout
    from objstore.memory.facts import versions
    s = open_store(store_path)
    try:
        (v,) = versions(s, "project/acme-api/mixed")
    finally:
        s.close()
    assert k1[0] in v.fact.sources and d1[0] not in v.fact.sources   # the other evidence kept, the forgotten named so
    invoke("get", "project/acme-api/alone", exit_code=4)
