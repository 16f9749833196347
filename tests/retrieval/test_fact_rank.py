"""The order of facts in recall and search (``objstore.retrieval.keyrank``):
the fact a question aims at comes first with its current value, ahead of
the turns that discuss it or state its old values, and search orders the
facts as recall does."""

from __future__ import annotations

import pytest
from recall_helpers import turn

from objstore.memory.facts import remember
from objstore.retrieval.keyrank import key_name, name_terms, names_key, rank_keys
from objstore.retrieval.recall import recall
from objstore.retrieval.search import search

FACTS = {
    "db": ["Postgres 13 on db-old.acme.internal:5432",
           "Postgres 15, host db1.acme.internal port 5432",
           "Postgres 16, host db2.acme.internal port 5433 (primary), replica db2-ro"],
    "cache": ["Memcached on cache1.acme.internal; no TTL",
              "Redis 6 at redis.acme.internal:6379 caches the db query results, TTL 60 s",
              "Redis 7 cluster at redis2.acme.internal:6379 caches db queries and sessions, TTL 300 s"],
    "deploy": ["deploy by hand with fab deploy from a laptop",
               "deploy with GitHub Actions on merge to main, then ArgoCD syncs the cluster"],
    "auth": ["auth uses session cookies signed with itsdangerous",
             "auth via Auth0 OIDC, JWT access tokens, 15 min expiry",
             "auth via Keycloak OIDC at sso.acme.internal, JWT tokens expire after 15 min"],
    "job-queue": ["job queue is Celery with RabbitMQ", "job queue is RQ on the Redis cache host"],
}

#: a session talking about the same things, older values among them
TALK = [
    ("user", "the db is slow again, can you check the cache hit rate on the db queries?"),
    ("assistant", "The cache hit rate is 40%. Most db queries miss the cache because the TTL is 60 s; "
                  "the db host db1.acme.internal is at 90% CPU."),
    ("user", "which cache do we use in front of the db, memcached still?"),
    ("assistant", "We moved from Memcached to Redis last month; the cache sits in front of the db."),
    ("user", "what is the db host for the migration script?"),
    ("assistant", "The migration script reads DATABASE_URL; the db host was db-old.acme.internal before the move."),
    ("user", "how do we deploy the hotfix?"),
    ("assistant", "Deploy is by merging to main; the deploy job runs in GitHub Actions. "
                  "Auth tokens for the deploy come from the CI secrets."),
    ("user", "does auth still use Auth0?"),
    ("assistant", "Auth moved to Keycloak; the auth tokens are JWT. The cache of auth sessions is in Redis."),
]

#: question -> the key it aims at
QUESTIONS = {
    "what is the db host": "project/acme/db",
    "which cache do we use": "project/acme/cache",
    "how do we deploy": "project/acme/deploy",
    "how does auth work": "project/acme/auth",
    "which job queue runs the workers": "project/acme/job-queue",
}


@pytest.fixture(scope="module")
def acme(tmp_path_factory):
    """One store for the module (read only by the tests): building it takes seconds."""
    from objstore.memory.opening import open_store
    from objstore.retrieval.evaluate import write_sessions
    store = open_store(tmp_path_factory.mktemp("acme") / "store", create=True)
    for name, values in FACTS.items():
        for v in values:
            remember(store, f"project/acme/{name}", v)
    ts = 1_760_000_000_000
    talk = [turn(text, role, ts=ts + i * 60_000) for i, (role, text) in enumerate(TALK)]
    # build noise: turns of the project that use the same words
    noise = {f"n{i}": [turn(f"I'll use the cache helper in step {i} so the build can use it again.", "assistant",
                            ts=ts - i * 3_600_000),
                       turn(f"Run {i}: use the cached wheel, cache key {i}.", "tool", ts=ts - i * 3_600_000 + 1)]
             for i in range(30)}
    write_sessions(store, {"talk": talk, **noise}.items())
    yield store
    store.close()


@pytest.mark.parametrize("question", list(QUESTIONS))
def test_recall_puts_the_fact_the_question_aims_at_first_with_its_current_value(acme, question):
    key = QUESTIONS[question]
    res = recall(acme, [question], projects=("acme",))
    first = res.hits[0]
    assert (first.kind, first.key) == ("fact", key), [(h.kind, h.key, h.text[:50]) for h in res.hits[:4]]
    assert first.text == FACTS[key.rsplit("/", 1)[1]][-1]  # the current value, never an older one
    facts = recall(acme, [question], projects=("acme",), what="facts")
    assert facts.hits[0].key == key


@pytest.mark.parametrize("question", list(QUESTIONS))
def test_search_orders_the_facts_as_recall_does(acme, question):
    assert [r.ref for r in search(acme, question, limit=20) if r.kind == "fact"][0] == QUESTIONS[question]
    found = [r.ref for r in search(acme, question, limit=20, kinds=("fact",))]
    recalled = [h.key for h in recall(acme, [question], projects=("acme",), what="facts", limit=20).hits]
    assert found == recalled


def test_a_match_on_an_older_version_still_finds_the_key_showing_its_current_value(acme):
    res = recall(acme, ["is the db still on Postgres 13"], projects=("acme",))
    assert res.hits[0].key == "project/acme/db" and res.hits[0].text == FACTS["db"][-1]
    res = recall(acme, ["itsdangerous cookies"], projects=("acme",))
    assert res.hits[0].key == "project/acme/auth" and res.hits[0].text == FACTS["auth"][-1]
    assert res.hits[0].resolved_from is not None
    hit = [r for r in search(acme, "itsdangerous cookies") if r.kind == "fact"][0]
    assert hit.ref == "project/acme/auth" and "Keycloak" in hit.snippet and hit.resolved_from


def test_the_key_name_rule():
    assert key_name("project/acme/db-host") == "db-host" and key_name("user/editor") == "editor"
    assert key_name("project/acme/deploy/prod") == "deploy prod"
    assert names_key("project/acme/db-host", {"db", "host", "what"})
    assert not names_key("project/acme/db-host", {"db"})          # every word of the name
    assert names_key("project/acme/cache", {"cach", "use"})      # stemmed as the index stems
    assert not names_key("project/acme/how-we", {"how", "we"})   # stop words name nothing
    assert name_terms("project/acme/how-we") == frozenset()

    class H:
        def __init__(self, kind, ref, score, id):
            self.kind, self.ref, self.score, self.id = kind, ref, score, id
    ranks = rank_keys([H("history", "project/a/auth", 3.0, "o"), H("fact", "project/a/auth", 1.0, "c"),
                       H("fact", "project/a/queue", 1.2, "q"), H("fact", "project/a/cache", 0.5, "k"),
                       H("turn", "s", 9.0, "t")], {"cach", "use"})
    assert [(r.key, r.score, r.hit_id, r.named) for r in ranks] == [
        ("project/a/cache", 0.5, "k", True), ("project/a/auth", 1.5, "o", False),
        ("project/a/queue", 1.2, "q", False)]
