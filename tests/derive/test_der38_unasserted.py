"""test37b T11 (and its addendum under T18): derive admitted, at trust
``derived`` and served every session, values its cited turns do not state as
so: a question left undecided, the assistant's guess, a counterfactual, a log
line the person says to ignore, a tool tried and ripped out, a value "was X
until yesterday; it is now Y", forum hearsay, an old vendor's value, an
unapproved draft.  The values the same turns do state are still admitted.

test37b T23: a queued, unreviewed derived proposal whose ``replaces`` names
the person's own ``user_stated`` fact marked that fact "IN CONFLICT …
awaiting review" in every session block.

Real ``mem`` processes against a loopback OpenAI-compatible server with
scripted answers."""

from __future__ import annotations

import json

from tests.derive._util import Model, transcript

TURNS = [
    ("user", "UNASSERTED-SESSION: Should we switch the staging db port to 6543? I'm not decided yet."),
    ("assistant", "Maybe the redis port is 6380, I am guessing; I could not confirm it."),
    ("user", "If the cache ttl were 900 seconds the tests would pass, but we keep it at 300."),
    ("user", "The CI log said: ERROR deploy target is prod-eu-9 (this is from a stale fork, ignore)."),
    ("user", "We tried Kafka for the queue last year and ripped it out."),
    ("user", "The deploy command was make ship until yesterday; it is now make release."),
    ("user", "Someone on the forum claims the staging region is us-west-2, but our config says eu-central-1."),
    ("user", "Our old vendor used port 8081; we are moving off them next month, nothing decided yet."),
    ("user", "The api key rotation happens every 90 days per the policy draft, which legal has not approved."),
    ("user", "The web frontend listens on port 8080. Can you switch the linter to ruff?"),
]
WRONG = {"staging-port": ("the staging db port is 6543", [1]), "redis-port": ("the redis port is 6380", [2]),
         "cache-ttl": ("cache ttl 900 seconds", [3]), "deploy-target": ("deploy target is prod-eu-9", [4]),
         "broker": ("Kafka for the queue", [5]), "deploy-command": ("make ship", [6]),
         "region": ("staging region is us-west-2", [7]), "vendor-port": ("vendor port 8081", [8]),
         "rotation": ("api key rotation every 90 days", [9])}
RIGHT = {"deploy-command-ok": ("The deploy command is make release", [6]),
         "web-port-ok": ("The web frontend listens on port 8080", [10]), "linter-ok": ("switch the linter to ruff", [10])}


def _derive(mem, tmp_path, turns, facts, marker):
    transcript(tmp_path / "claude" / "projects" / "-home-dev-acme-api" / "s.jsonl", "s38", turns)
    mem("import", "claude-code", str(tmp_path / "claude" / "projects"))
    model = Model({marker: {"facts": facts}})
    try:
        return json.loads(mem("derive", "--apply", "--json",
                              env={"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "sk-test-derive"}).stdout)
    finally:
        model.close()


def test_derive_rejects_what_the_cited_turns_ask_guess_suppose_or_set_aside(mem, tmp_path):
    facts = [{"key": f"project/acme-api/{k}", "kind": "project", "value": v, "turns": t}
             for k, (v, t) in {**WRONG, **RIGHT}.items()]
    r = _derive(mem, tmp_path, TURNS, facts, "UNASSERTED-SESSION")
    got = {d["key"].rsplit("/", 1)[1]: d["rule"] for d in r["decisions"]}
    assert {k: got.get(k) for k in WRONG} == {k: "no-evidence" for k in WRONG}, got
    assert {k: got.get(k) for k in RIGHT} == {k: "write" for k in RIGHT}, got
    block = mem("context", "--project", "acme-api").stdout
    assert "6543" not in block and "prod-eu-9" not in block and "us-west-2" not in block, block
    assert "make release" in block, block


def test_a_derived_proposal_does_not_mark_the_persons_fact_in_conflict(mem, tmp_path):
    mem("remember", "user/editor", "vim")
    mem("remember", "project/acme-api/db-port", "5432")
    mem("remember", "project/acme-api/cache-host", "redis-1", "--trust", "derived")
    turns = [("user", "CONFLICT-SESSION: I use emacs for org files sometimes."),
             ("user", "The staging db port is 6543 per the runbook. The cache host is redis-2 now.")]
    facts = [{"key": "project/acme-api/tools/editor", "kind": "project", "value": "emacs", "turns": [1],
              "replaces": "user/editor"},
             {"key": "project/acme-api/db/staging", "kind": "project", "value": "staging db port is 6543",
              "turns": [2], "replaces": "project/acme-api/db-port"},
             {"key": "project/acme-api/cache/host", "kind": "project", "value": "cache host is redis-2",
              "turns": [2], "replaces": "project/acme-api/cache-host"}]
    r = _derive(mem, tmp_path, turns, facts, "CONFLICT-SESSION")
    assert sorted(d["rule"] for d in r["decisions"]) == ["key-conflict"] * 3, r["decisions"]
    block = mem("context", "--project", "acme-api").stdout
    lines = {ln.split(" (", 1)[0].lstrip("- "): ln for ln in block.splitlines() if ln.startswith("- ")}
    # the person's own values stay plain until they accept the proposal
    assert "IN CONFLICT" not in lines["user/editor"] and lines["user/editor"].endswith(": vim"), block
    assert "IN CONFLICT" not in lines["project/acme-api/db-port"], block
    # a derived fact against a derived proposal (equal trust): still marked, awaiting review
    assert "IN CONFLICT with project/acme-api/cache/host" in lines["project/acme-api/cache-host"], block
    # an agent's write that contradicts the person's fact: the agent's marked, the person's not
    mem("remember", "project/acme-api/db-note", "the db port is 6000", "--trust", "agent_observed",
        "--contradicts", "project/acme-api/db-port")
    block = mem("context", "--project", "acme-api").stdout
    lines = {ln.split(" (", 1)[0].lstrip("- "): ln for ln in block.splitlines() if ln.startswith("- ")}
    assert "IN CONFLICT" not in lines["project/acme-api/db-port"], block
    assert "IN CONFLICT with project/acme-api/db-port" in lines["project/acme-api/db-note"], block
