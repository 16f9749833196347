"""test35 T10: derive filed the person's replaced value under a synonym
key — a bare "5432" under ``database-port`` beside the person's later
``db-port`` = 6543 — and the prompt hook then served only the 5432: the
``updated-later`` rule asked its question from the value alone ("5432"
less its values: nothing).  The proposal's key words are the question now.
(The script is keyed by the prompt's own words: a marker word in the turn
is a value of its own and reads the turn as of another thing.)
A loopback OpenAI-compatible server with scripted answers; real imports."""

from __future__ import annotations

import pytest

from tests.derive._util import Model, transcript

SCRIPT = {"please wire the tests to it": {"facts": [
    {"key": "project/shop/db-host", "kind": "project", "value": "pg-7", "turns": [1]},
    {"key": "project/shop/database-host", "kind": "project", "value": "pg-7", "turns": [1]},
    {"key": "project/shop/search-host", "kind": "project", "value": "heron-search-2.internal", "turns": [3]}]}}


@pytest.fixture
def model(invoke, tmp_path, monkeypatch):
    projects = tmp_path / "claude" / "projects" / "-home-dev-shop"
    transcript(projects / "bare.jsonl", "bare", [
        ("user", "the db host is pg-7, please wire the tests to it"),
        ("assistant", "Done, the tests use pg-7."),
        ("user", "The search index host is heron-search-2.internal.")], cwd="/home/dev/shop")
    invoke("import", "claude-code", str(tmp_path / "claude" / "projects"))
    m = Model(SCRIPT)
    monkeypatch.setenv("OPENAI_BASE_URL", m.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-derive")
    yield m
    m.close()


def test_a_bare_value_under_a_synonym_key_of_a_later_fact_is_queued(model, invoke):
    invoke("remember", "project/shop/db-host", "pg-9")                 # the person, later
    got = {d["key"]: d for d in invoke("derive", "--apply", "--json").json["decisions"]}
    assert got["project/shop/db-host"]["rule"] == "change-user-stated"
    d = got["project/shop/database-host"]
    assert d["rule"] == "updated-later" and "project/shop/db-host" in d["detail"], d
    assert invoke("get", "project/shop/database-host", exit_code=None).exit_code != 0
    assert got["project/shop/search-host"]["rule"] == "write"         # another subject: filed
    assert invoke("get", "project/shop/db-host").stdout.strip() == "pg-9"
