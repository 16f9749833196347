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
    "LOWER-SESSION": {"facts": [], "episode": {
        "situation": "asked about the linter", "action": "checked pyproject", "outcome": "ruff",
        "lesson": "the api database is mongodb now, postgres was dropped"}},
    "REVERSED-SESSION": {"facts": [], "episode": {
        "situation": "asked about the database", "action": "read docker-compose", "outcome": "Postgres 16",
        "lesson": "the api database is not Postgres 16"}},
    "CASED-SESSION": {"facts": [], "episode": {
        "situation": "The user asked which linter the project uses", "action": "Checked pyproject",
        "outcome": "Ruff is the linter", "lesson": "Look in pyproject first"}},
    "TESTS-SESSION": {"facts": [], "episode": {
        "situation": "the flaky test in test_orders", "action": "pinned pytest to 8.2",
        "outcome": "the suite passes", "lesson": "pin pytest"}},
}


@pytest.fixture
def rig(invoke, tmp_path, monkeypatch):
    projects = tmp_path / "claude" / "projects" / "-home-dev-acme-api"
    transcript(projects / "lint.jsonl", "lint", [("user", "LINTER-SESSION: what linter do we use?"),
                                                 ("assistant", "ruff, configured in pyproject.")])
    transcript(projects / "lower.jsonl", "lower", [("user", "LOWER-SESSION: what linter do we use?"),
                                                   ("assistant", "ruff, configured in pyproject.")])
    transcript(projects / "reversed.jsonl", "reversed", [("user", "REVERSED-SESSION: is the api database Postgres 16?"),
                                                         ("assistant", "Yes, Postgres 16, per the docker-compose file.")])
    transcript(projects / "cased.jsonl", "cased", [("user", "CASED-SESSION: what linter do we use?"),
                                                   ("assistant", "ruff, configured in pyproject.")])
    transcript(projects / "tests.jsonl", "tests", [("user", "TESTS-SESSION: test_orders is flaky again"),
                                                   ("assistant", "I pinned pytest to 8.2 and the suite passes.")])
    invoke("import", "claude-code", str(tmp_path / "claude" / "projects"))
    invoke("remember", "project/acme-api/database", "the api database is Postgres 16")
    yield from serve_model(monkeypatch, SCRIPT)


def test_an_episode_stating_what_no_turn_said_is_not_filed(rig, invoke):
    dry = invoke("derive", "--json").json
    assert sorted(dry["episodes_refused"]) == ["lint", "lower", "reversed"]
    assert "in none of the session's turns" in dry["episodes_refused"]["lint"]
    assert "words in none of the turns" in dry["episodes_refused"]["lower"]      # test30b S1: lower case
    assert "closest clause" in dry["episodes_refused"]["reversed"]                # its turns say otherwise
    r = invoke("derive", "--apply", "--json").json
    assert r["episodes"] == 2 and sorted(r["episodes_refused"]) == ["lint", "lower", "reversed"]
    assert "MongoDB" not in json.dumps(r)                               # the reason never quotes the value
    invoke("get", "project/acme-api/episodes/lint", exit_code=4)
    assert "pinned pytest to 8.2" in invoke("get", "project/acme-api/episodes/tests").stdout
    assert "Ruff is the linter" in invoke("get", "project/acme-api/episodes/cased").stdout   # test30b S11
    hits = invoke("recall", "which database does the api use", "--project", "acme-api", "--json").json["hits"]
    assert not any("MongoDB" in (h.get("text") or "") for h in hits)
    rep = invoke("derive", "report", "--json").json[0]
    assert rep["episodes"] == 2 and sorted(rep["episodes_refused"]) == ["lint", "lower", "reversed"]


def test_the_run_summary_names_the_rejected_episode(rig, invoke):
    out = invoke("derive", "--apply").stdout
    assert "reject (episode)" in out and "session lint" in out
    assert "2 episodes written; 3 episodes rejected" in out and "MongoDB" not in out


def test_forget_session_takes_its_episode(rig, invoke):
    """test30b S14: ``forget --session`` takes derive's episode of the
    session (``<scope>/episodes/<session>``, the model's summary of it)."""
    invoke("derive", "--apply")
    assert "pinned pytest" in invoke("get", "project/acme-api/episodes/tests").stdout
    invoke("forget", "--session", "tests", "--yes")
    invoke("get", "project/acme-api/episodes/tests", exit_code=4)
    assert "pytest" not in invoke("search", "pinned pytest").stdout
