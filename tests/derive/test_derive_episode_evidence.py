"""test30 R3: a model's episode (its summary of a session) passes an
evidence check before it is filed: a value it states (a name, a number, a
host) that none of the session's turns holds keeps it out, and the run
says so (it was written as a derived fact with no check, and nothing
said).  A loopback OpenAI-compatible server gives scripted answers."""

from __future__ import annotations

import json

import pytest

from tests.derive._util import serve_model, transcript

SCRIPT = {
    "LINTER-SESSION": {"facts": [], "episode": {
        "situation": "asked about the linter", "action": "checked pyproject", "outcome": "ruff",
        "lesson": "the api database is MongoDB 3.6 on mongo-legacy-1, Postgres was dropped"}},
    "TESTS-SESSION": {"facts": [], "episode": {
        "situation": "the flaky test in test_orders", "action": "pinned pytest to 8.2",
        "outcome": "the suite passes", "lesson": "pin pytest"}},
}


@pytest.fixture
def rig(invoke, tmp_path, monkeypatch):
    projects = tmp_path / "claude" / "projects" / "-home-dev-acme-api"
    transcript(projects / "lint.jsonl", "lint", [("user", "LINTER-SESSION: what linter do we use?"),
                                                 ("assistant", "ruff, configured in pyproject.")])
    transcript(projects / "tests.jsonl", "tests", [("user", "TESTS-SESSION: test_orders is flaky again"),
                                                   ("assistant", "I pinned pytest to 8.2 and the suite passes.")])
    invoke("import", "claude-code", str(tmp_path / "claude" / "projects"))
    invoke("remember", "project/acme-api/database", "the api database is Postgres 16")
    yield from serve_model(monkeypatch, SCRIPT)


def test_an_episode_stating_what_no_turn_said_is_not_filed(rig, invoke):
    dry = invoke("derive", "--json").json
    assert list(dry["episodes_refused"]) == ["lint"] and "in none of the session's turns" in dry["episodes_refused"]["lint"]
    r = invoke("derive", "--apply", "--json").json
    assert r["episodes"] == 1 and list(r["episodes_refused"]) == ["lint"]
    assert "MongoDB" not in json.dumps(r)                               # the reason never quotes the value
    invoke("get", "project/acme-api/episodes/lint", exit_code=4)
    assert "pinned pytest to 8.2" in invoke("get", "project/acme-api/episodes/tests").stdout
    hits = invoke("recall", "which database does the api use", "--project", "acme-api", "--json").json["hits"]
    assert not any("MongoDB" in (h.get("text") or "") for h in hits)
    rep = invoke("derive", "report", "--json").json[0]
    assert rep["episodes"] == 1 and list(rep["episodes_refused"]) == ["lint"]


def test_the_run_summary_names_the_rejected_episode(rig, invoke):
    out = invoke("derive", "--apply").stdout
    assert "reject (episode)" in out and "session lint" in out
    assert "1 episode written; 1 episode rejected" in out and "MongoDB" not in out
