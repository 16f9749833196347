"""A sibling the question does not name no longer marks the answer where
the later passage itself sets its subject apart from the answer's
(session 25; ``objstore.retrieval.subjects``, ``Subject.apart``).

"The postgres analytics replica uses port 5439, separate from the primary."
said days after "The postgres primary uses port 5432." marked the primary's
turn "updated later" for "which port does postgres use": the question names
neither, and a difference the question does not make was left unknown (a
paraphrase as often as another thing).  A passage that says its subject is
*separate from*, *unlike*, *next to* … a word only the other subject holds
states a value of another thing: both values are current.  A paraphrased
update without such a phrase still supersedes.  Real ``mem`` processes on
imported transcripts, the library's ``recall`` for the near cases."""

from __future__ import annotations

from pathlib import Path

import pytest
from recall_helpers import turn

from objstore.retrieval.recall import recall
from objstore.retrieval.subjects import compare, subjects_of
from tests.retrieval._sessions import DAY, T0, write_session

PRIMARY = "The postgres primary uses port 5432."
REPLICA = "The postgres analytics replica uses port 5439, separate from the primary."


def test_a_sibling_set_apart_does_not_mark_the_answer(mem, tmp_path: Path):
    d = tmp_path / "tx" / "-src-api"
    write_session(d, "91919191-2222-3333-4444-555555555555", 1,
                  [("user", "note the db setup"), ("assistant", PRIMARY)], "/src/api")
    write_session(d, "92929292-2222-3333-4444-555555555555", 6,
                  [("user", "set up the analytics replica"), ("assistant", REPLICA)], "/src/api")
    mem("import", "claude-code", str(tmp_path / "tx"))
    for question in ("which port does postgres use", "what port does the database listen on"):
        hits = mem("recall", question, "--project", "api", "--json").json["hits"]
        assert {PRIMARY, REPLICA} <= {h["text"] for h in hits}, (question, hits)
        assert not any(h["updated_later"] for h in hits), (question, hits)
    assert "updated later" not in mem("recall", "which port does postgres use", "--project", "api").stdout


#: (question, an earlier statement, a later one about a sibling set apart from it)
APART = [
    ("which port does postgres use", PRIMARY, REPLICA),
    ("what port does the api listen on", "The production api listens on port 8080.",
     "The staging api listens on port 8081, unlike the production one."),
    ("which port does the service use", "The billing service listens on port 9000.",
     "The auth service listens on port 9001, next to the billing service."),
    ("which postgres version do we run", "The reporting database runs Postgres 14.",
     "The orders database runs Postgres 16, unlike the reporting one."),
    ("which port does postgres use", PRIMARY, "Apart from the primary, the postgres replica uses port 5439."),
]
#: (question, an earlier statement, a paraphrased update of it: still supersedes)
UPDATES = [
    ("what is the cache ttl", "The harbor gateway cache TTL is 600 seconds.",
     "Cache entries expire after 1800 seconds now."),
    ("which port does the frontend use", "The web frontend uses port 3000.", "The frontend dev server now uses port 5173."),
    ("which port does postgres use", PRIMARY, "The postgres primary now uses port 5433, separate from the replica."),
]


def _two(store, add_sessions, question: str, first: str, second: str) -> dict:
    add_sessions({"a": [turn(first, "assistant", project="api", ts=T0)],
                  "b": [turn(second, "assistant", project="api", ts=T0 + 5 * DAY)]})
    return {h.text: h for h in recall(store, [question], projects=("api",)).hits}


@pytest.mark.parametrize("question,first,second", APART)
def test_siblings_set_apart_mark_neither(store, add_sessions, question, first, second):
    got = _two(store, add_sessions, question, first, second)
    assert got[first].updated_later is None and got[second].updated_later is None, got


@pytest.mark.parametrize("question,first,second", UPDATES)
def test_a_paraphrased_update_still_supersedes(store, add_sessions, question, first, second):
    got = _two(store, add_sessions, question, first, second)
    assert got[first].updated_later and got[first].updated_later["text"] == second, got


def test_what_a_sentence_sets_apart():
    replica = subjects_of(REPLICA, ("5439",))["5439"]
    primary = subjects_of(PRIMARY, ("5432",))["5432"]
    assert replica.words == ("postgres", "analytics", "replica") and replica.apart == ("primari",)
    assert primary.apart == ()
    assert compare(primary, replica, {"postgr", "port", "use"}) is False
    staging = subjects_of("The staging api listens on 8081, unlike the production one.", ("8081",))["8081"]
    assert staging.apart == ("product",)   # ("one" stands for the api)
    # the subject's own words are not set apart from it
    assert subjects_of("The postgres replica uses 5439, separate from the replica pool.", ("5439",))["5439"].apart \
        == ("pool",)
