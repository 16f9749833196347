"""test30c T9: derive's episode check judges an outcome or lesson by the
values it asserts, not by its plain words.  A lesson restating as current a
value the turns say was dropped or replaced, or pairing a value with what
the turns pair with another, is refused with its reason; a faithful
generalisation in the model's own words is filed.  A loopback
OpenAI-compatible server gives scripted answers (no real model)."""

from __future__ import annotations

import json

import pytest

from objstore.derive.evidence import claims_contradicted
from tests.derive._util import serve_model, transcript


def _ep(situation, action, outcome, lesson):
    return {"facts": [], "episode": {"situation": situation, "action": action, "outcome": outcome, "lesson": lesson}}


SESSIONS = {
    # refused: a swap of two values the turns hold
    "swap-dropped": ([("user", "SWAPDROP: what linter do we use?"),
                      ("assistant", "ruff, configured in pyproject. we dropped flake8 last year.")],
                     _ep("asked about the linter", "checked pyproject", "ruff",
                         "flake8 is the linter, configured in pyproject")),
    "swap-paired": ([("user", "SWAPPAIR: which tools format and lint the code?"),
                     ("assistant", "ruff is the linter and black is the formatter.")],
                    _ep("asked about the tools", "read the config", "found both tools",
                        "black is the linter")),
    "swap-replaced": ([("user", "SWAPREPL: why did the http calls hang?"),
                       ("assistant", "We replaced requests with httpx last sprint; httpx sets a timeout.")],
                      _ep("http calls hung", "read the client code", "the client sets a timeout",
                          "use requests for http calls")),
    "swap-moved": ([("user", "SWAPMOVE: the api port changed, right?"),
                    ("assistant", "Yes, the api moved from 8080 to 9090 in the last release.")],
                   _ep("asked about the api port", "checked the release notes", "the api listens on port 8080",
                       "check the release notes for port changes")),
    # filed: faithful generalisations in the model's own words
    "general-fixture": ([("user", "GENFIX: the integration tests keep failing on CI, can you look?"),
                         ("assistant", "The failures come from the postgres fixture: it starts before the container "
                                       "is ready. I added a wait-for-port loop in conftest.py and the suite passes now.")],
                        _ep("Integration tests were failing in CI",
                            "Investigated the postgres fixture and added a wait-for-port loop in conftest.py",
                            "The suite passes after waiting for the container to become ready",
                            "Fixtures that depend on containers should wait until the service accepts connections")),
    "general-migrate": ([("user", "GENMIG: the app crashed on start with a missing column"),
                         ("assistant", "The alembic migration had not run. I ran alembic upgrade head and the app starts.")],
                        _ep("The app crashed on start", "Ran alembic upgrade head",
                            "The app starts once the schema is current",
                            "Schema changes must be applied before deploying code that relies on them")),
    "general-linter": ([("user", "GENLINT: what linter do we use?"),
                        ("assistant", "ruff, configured in pyproject. we dropped flake8 last year.")],
                       _ep("asked about the linter", "checked pyproject", "ruff is the linter",
                           "Linting settings live in one config file; old tools that were dropped should not come back")),
}


@pytest.fixture
def rig(invoke, tmp_path, monkeypatch):
    projects = tmp_path / "claude" / "projects" / "-home-dev-acme-api"
    script = {}
    for sid, (turns, ep) in SESSIONS.items():
        transcript(projects / f"{sid}.jsonl", sid, turns)
        script[turns[0][1].split(":")[0]] = ep
    invoke("import", "claude-code", str(tmp_path / "claude" / "projects"))
    yield from serve_model(monkeypatch, script)


REFUSED = ["swap-dropped", "swap-moved", "swap-paired", "swap-replaced"]
FILED = ["general-fixture", "general-linter", "general-migrate"]


def test_a_swapped_value_is_refused_and_a_generalisation_filed(rig, invoke):
    r = invoke("derive", "--apply", "--json").json
    assert sorted(r["episodes_refused"]) == REFUSED and r["episodes"] == len(FILED)
    why = r["episodes_refused"]
    for sid in ("swap-dropped", "swap-replaced", "swap-moved"):
        assert "dropped or replaced" in why[sid], (sid, why[sid])
    assert "pair with another value" in why["swap-paired"]
    assert "flake8" not in json.dumps(why) and "requests" not in json.dumps(why)   # the reason never quotes a value
    for sid in REFUSED:
        invoke("get", f"project/acme-api/episodes/{sid}", exit_code=4)
    assert "accepts connections" in invoke("get", "project/acme-api/episodes/general-fixture").stdout
    assert "Schema changes must be applied" in invoke("get", "project/acme-api/episodes/general-migrate").stdout
    assert "ruff is the linter" in invoke("get", "project/acme-api/episodes/general-linter").stdout
    hits = invoke("recall", "which linter do we use", "--project", "acme-api", "--json").json["hits"]
    assert not any("flake8 is the linter" in (h.get("text") or "") for h in hits)


@pytest.mark.parametrize("claims, turns, reason", [
    ("flake8 is the linter", ["ruff is the linter. we dropped flake8."], "dropped or replaced"),
    ("the linter is flake8", ["we switched from flake8 to ruff"], "dropped or replaced"),
    ("we use flake8", ["we don't use flake8 any more, ruff does it"], "dropped or replaced"),
    ("the db host is pg-1", ["pg-1 was retired, the db host is pg-2 now"], "dropped or replaced"),
    ("black is the linter", ["ruff is the linter, black is the formatter"], "pair with another value"),
    ("the api database is mongodb now", ["what linter do we use?", "ruff, configured in pyproject."],
     "value words in none of the turns"),
    # der31's left-out: a name ending in -ed no turn holds is a value, not a describing word
    ("the cache is memcached now", ["the cache is stale after deploys", "redis keeps old keys; I added a flush"],
     "value words in none of the turns"),
])
def test_claims_contradicting_the_turns(claims, turns, reason):
    assert reason in claims_contradicted(claims, turns)


@pytest.mark.parametrize("claims, turns", [
    ("ruff is the linter", ["ruff is the linter. we dropped flake8."]),
    ("flake8 was dropped for ruff", ["ruff is the linter. we dropped flake8."]),
    ("we no longer use flake8", ["ruff is the linter. we dropped flake8."]),
    ("flake8 is the linter again", ["we dropped flake8 in may", "we brought it back: flake8 is the linter again"]),
    ("black is the formatter", ["ruff is the linter, black is the formatter"]),
    ("Retries are important for flaky networks", ["the upload failed twice, then passed on a retry"]),
    ("Pin tools to exact versions so builds repeat", ["pytest 8.3 broke the suite, I pinned it to 8.2"]),
    ("Always use explicit timeouts on outbound calls", ["the http call hung; httpx now sets a timeout"]),
    ("the cache is enabled now", ["I had to enable the cache in settings.py"]),          # an -ed word the turns hold
    ("the cache is memcached now", ["we moved the cache from redis to memcached"]),
    ("the job is scheduled", ["I scheduled the job for 2am"]),
])
def test_claims_the_turns_allow(claims, turns):
    assert claims_contradicted(claims, turns) == ""
