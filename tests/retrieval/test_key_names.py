"""Key names in recall and search (``objstore.retrieval.keyrank`` rules 3
and 4, and the older-version mark of rule 1): a question names a key
whichever spelling of an abbreviation it uses, a named key is in the hits
however many other facts match, and a hit on an older version says so in
search as in recall."""

from __future__ import annotations

import pytest
from recall_helpers import turn

from objstore.memory.facts import remember
from objstore.retrieval.keyrank import KEY_ABBREVIATIONS, key_term, name_terms, names_key, other_forms
from objstore.retrieval.recall import recall
from objstore.retrieval.search import search

#: key -> value; the keys use one spelling, the questions below the other
FACTS = {
    "project/acme/db": "Postgres 16 on pg2.acme.internal:5433",
    "project/acme/cfg": "settings live in settings.toml at the repo root, loaded by dynaconf",
    "project/acme/k8s": "GKE cluster prod-1 in europe-west1, three node pools",
    "project/acme/repo": "github.com/acme/platform, monorepo, main is protected",
    "project/acme/auth": "Keycloak OIDC at sso.acme.internal, JWT tokens expire after 15 min",
    "project/acme/documentation": "docs are built with mkdocs and published on merge",
    "project/acme/dependencies": "pinned with uv lock; renovate opens the update PRs",
    # facts whose text holds the long spellings: BM25 alone finds these first
    "project/acme/deploy": "deploy with ArgoCD; the database migrations run first, the configuration "
                           "comes from the repository, kubernetes manifests under k8s/; authentication "
                           "secrets from Vault",
    "project/acme/backups": "nightly database backups of the whole repository of configuration files",
}

#: question -> the key it names with the other spelling
QUESTIONS = {
    "what database do we use": "project/acme/db",
    "where is the configuration": "project/acme/cfg",
    "which kubernetes cluster": "project/acme/k8s",
    "which repository holds the code": "project/acme/repo",
    "how does authentication work": "project/acme/auth",
    "where do the docs get published": "project/acme/documentation",
    "how are deps pinned": "project/acme/dependencies",
}

TALK = [
    ("user", "the database is slow, and the configuration of the pool looks wrong"),
    ("assistant", "The database pool size in the configuration is 5; the repository has no override."),
    ("user", "can kubernetes restart the pods when authentication fails?"),
    ("assistant", "Kubernetes restarts them; authentication failures are logged, the docs say so."),
    ("user", "do the deps of the repository pin the database driver?"),
]


@pytest.fixture(scope="module")
def acme(tmp_path_factory):
    """One store for the module (read only by the tests)."""
    from objstore.memory.opening import open_store
    from objstore.retrieval.evaluate import write_sessions
    store = open_store(tmp_path_factory.mktemp("acme") / "store", create=True)
    for key, value in FACTS.items():
        remember(store, key, value)
    ts = 1_760_000_000_000
    write_sessions(store, {"talk": [turn(t, r, ts=ts + i * 60_000) for i, (r, t) in enumerate(TALK)]}.items())
    yield store
    store.close()


@pytest.mark.parametrize("question", list(QUESTIONS))
def test_a_question_names_a_key_by_either_spelling_of_its_word(acme, question):
    key = QUESTIONS[question]
    first = recall(acme, [question], projects=("acme",)).hits[0]
    assert (first.kind, first.key, first.text) == ("fact", key, FACTS[key]), question
    assert recall(acme, [question], projects=("acme",), what="facts").hits[0].key == key
    assert recall(acme, [question]).hits[0].key == key   # all projects
    assert [r.ref for r in search(acme, question) if r.kind == "fact"][0] == key
    assert search(acme, question, kinds=("fact",))[0].ref == key


def test_the_spelling_applies_to_the_key_name_not_to_the_text(acme):
    # "database" is in the deploy and backups facts' text: they are hits, after the db key, not named
    hits = search(acme, "what database do we use", kinds=("fact",))
    assert hits[0].ref == "project/acme/db"
    assert {"project/acme/deploy", "project/acme/backups"} <= {h.ref for h in hits}
    # a text holding only "db" is not found by "database" (no synonym in BM25)
    assert "project/acme/k8s" not in {h.ref for h in search(acme, "database", kinds=("fact",))}


def test_the_abbreviation_table():
    assert key_term("databas") == "db" and key_term("db") == "db" and key_term("kubernet") == "k8s"
    assert key_term("postgr") == "pg" and key_term("cach") == "cach"
    assert name_terms("project/acme/database-host") == {"db", "host"}
    assert names_key("project/acme/db", {"databas", "use"}) and names_key("project/acme/database", {"db"})
    assert names_key("project/acme/db-host", {"databas", "host"}) and not names_key("project/acme/db-host", {"db"})
    assert other_forms({"databas", "use"}) == ["db", "dbs"]
    assert other_forms({"cach", "use"}) == []
    words = [w for g in KEY_ABBREVIATIONS for w in g]
    assert len(words) == len(set(words)), "a spelling is in one group only"


def test_a_named_key_is_in_the_search_hits_however_many_facts_match(store):
    # 40 facts that say "deploy" more often, in shorter texts, than the fact of the key named deploy
    for i in range(40):
        remember(store, f"project/p{i}/notes", f"deploy deploy: deploy p{i} with deploy.sh")
    remember(store, "project/acme/deploy",
             "merging to main runs the GitHub Actions pipeline, which builds the images, pushes them to the "
             "registry and lets ArgoCD sync the cluster; a failed health check rolls back to the last good "
             "release and pages the on-call person")
    assert search(store, "deploy")[0].ref == "project/acme/deploy"
    assert search(store, "deploy", kinds=("fact",))[0].ref == "project/acme/deploy"
    assert recall(store, ["deploy"]).hits[0].key == "project/acme/deploy"
    assert recall(store, ["deploy"], what="facts").hits[0].key == "project/acme/deploy"
    # the project scope still holds: another project's named key is not added
    assert "project/acme/deploy" not in {h.key for h in recall(store, ["deploy"], projects=("p3",)).hits}


def test_search_marks_a_match_on_an_older_version_as_recall_does(invoke):
    invoke("remember", "project/acme/db", "Postgres 15 on port 5432")
    invoke("remember", "project/acme/db", "Postgres 16 on port 5433")
    cur = invoke("log", "project/acme/db", "--json").json[0]["id"]
    out = invoke("search", "5432").stdout
    assert out.splitlines()[1].strip() == "Postgres 16 on port 5433"      # the current value, its id
    assert cur[:12] in out.splitlines()[0]
    assert "(matched an older version" in out and "this is the current value" in out
    got = invoke("search", "5432", "--json").json[0]
    assert got["id"] == cur and got["resolved_from"] not in (None, cur)
    assert invoke("recall", "5432", "--project", "acme", "--json").json["hits"][0]["resolved_from"] == \
        got["resolved_from"]
    # a match on the current version is not marked
    out = invoke("search", "5433").stdout
    assert "older version" not in out
    assert invoke("search", "5433", "--json").json[0]["resolved_from"] is None
