"""test37 T2: derive admitted, at trust ``derived`` and served unmarked,
values its own evidence rules name as unevidenced: a value paired with a
subject the turns pair with another value ("The api uses port 8080" from
"the web frontend uses port 8080 and the api uses port 9090": the words
said of both, "uses port", let it through), and a value the turns say was
dropped ("The cache is Redis" from "we evaluated Redis … but decided
against it"; "Redis is used" after "Redis is not used"; "The deploy window
is Friday" from "… used to be Friday; it is Tuesday now").  The right
proposals of the same turns are still admitted.  Real ``mem`` processes
against a loopback OpenAI-compatible server with scripted answers."""

from __future__ import annotations

import json

from tests.derive._util import Model, transcript

TURNS = [
    ("user", "PAIR-SESSION: The web frontend uses port 8080 and the api uses port 9090."),
    ("assistant", "Got it. I will configure the reverse proxy so that the web frontend listens on 8080 and the api "
                  "on 9090."),
    ("user", "We evaluated Redis for the cache but decided against it; the cache is memcached."),
    ("assistant", "Understood, memcached is the cache. Redis is not used."),
    ("user", "The staging database is Postgres 15. Production runs Postgres 16."),
    ("assistant", "Noted: staging database Postgres 15, production Postgres 16."),
    ("user", "The deploy window used to be Friday; it is Tuesday now."),
    ("assistant", "OK, Tuesday deploys from now on."),
]
WRONG = {"api-port": ("The api uses port 8080", [1]), "web-port": ("The web frontend uses port 9090", [1, 2]),
         "cache": ("The cache is Redis", [3]), "cache2": ("Redis is used for the cache", [3, 4]),
         "prod-db": ("Production database is Postgres 15", [5]),
         "staging-db": ("The staging database is Postgres 16", [5, 6]),
         "deploy-day": ("The deploy window is Friday", [7, 8])}
RIGHT = {"api-port-ok": ("The api uses port 9090", [1]), "web-port-ok": ("The web frontend uses port 8080", [1, 2]),
         "cache-ok": ("The cache is memcached", [3, 4]), "prod-db-ok": ("Production runs Postgres 16", [5]),
         "staging-db-ok": ("The staging database is Postgres 15", [5, 6]),
         "deploy-day-ok": ("The deploy window is Tuesday", [7, 8])}


def test_derive_rejects_a_value_paired_with_another_values_subject_or_said_dropped(mem, tmp_path):
    projects = tmp_path / "claude" / "projects" / "-home-dev-acme-api"
    transcript(projects / "pair.jsonl", "pair", TURNS)
    mem("import", "claude-code", str(tmp_path / "claude" / "projects"))
    facts = [{"key": f"project/acme-api/{k}", "kind": "project", "value": v, "turns": t}
             for k, (v, t) in {**WRONG, **RIGHT}.items()]
    model = Model({"PAIR-SESSION": {"facts": facts}})
    try:
        r = json.loads(mem("derive", "--apply", "--json",
                           env={"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "sk-test-derive"}).stdout)
    finally:
        model.close()
    got = {d["key"].rsplit("/", 1)[1]: d["rule"] for d in r["decisions"]}
    assert {k: got.get(k) for k in WRONG} == {k: "negated" for k in WRONG}, got
    assert {k: got.get(k) for k in RIGHT} == {k: "write" for k in RIGHT}, got
    for k in WRONG:
        mem("get", f"project/acme-api/{k}", exit_code=4)
    assert mem("get", "project/acme-api/deploy-day-ok").stdout.strip() == "The deploy window is Tuesday"
