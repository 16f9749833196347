"""The time rule tells a value's subject from the words around it (tester
test23b's V2), and a current fact that answers the question comes first
even with no history (the fact-alone case).

V2: "The postgres analytics replica uses port 5439, separate from the
primary." said days after "The postgres primary uses port 5432." shares
every word of "which port does the postgres primary use" with it, yet is a
statement about another thing: the primary's turn stays first and is not
marked "updated later".  A later statement of the same subject ("the
postgres primary now uses port 5433", "we moved the primary to port 5433")
still marks it and goes first; a question about the past, or read
``--as-of`` a day before the change, keeps the search order.  The rule is
``objstore.retrieval.timeline`` (rules 3 and 6) with the subjects of
``objstore.retrieval.subjects``; real ``mem`` processes on imported
transcripts where the tester's words are used, the library's ``recall``
for the table of near cases."""

from __future__ import annotations

from pathlib import Path

import pytest
from recall_helpers import turn

from objstore.memory.facts import remember
from objstore.retrieval.recall import recall
from objstore.retrieval.timeline import values_of
from tests.retrieval._sessions import write_session

DAY = 86_400_000
T0 = 1_790_000_000_000  # 2026-09-21
PRIMARY_Q = "which port does the postgres primary use"
PRIMARY = "The postgres primary uses port 5432."
REPLICA = "The postgres analytics replica uses port 5439, separate from the primary."


def _session(d: Path, sid: str, day: int, lines: list[tuple[str, str]]) -> None:
    write_session(d, sid, day, lines, "/src/api")


def _import(mem, tmp_path: Path, later: str | None) -> None:
    d = tmp_path / "tx" / "-src-api"
    _session(d, "61616161-2222-3333-4444-555555555555", 1,
             [("user", "which port does the postgres primary use?"), ("assistant", PRIMARY)])
    if later is not None:
        _session(d, "62626262-2222-3333-4444-555555555555", 6,
                 [("user", "set up the analytics replica"), ("assistant", later)])
    mem("import", "claude-code", str(tmp_path / "tx"))


def test_a_later_turn_about_a_sibling_subject_does_not_mark_the_answer(mem, tmp_path):
    """The tester's V2, word for word, in ``mem recall`` text and JSON."""
    _import(mem, tmp_path, REPLICA)
    hits = mem("recall", PRIMARY_Q, "--project", "api", "--json").json["hits"]
    texts = [h["text"] for h in hits]
    stating = [t for t in texts if t in (PRIMARY, REPLICA)]
    assert stating == [PRIMARY, REPLICA], texts
    assert not any(h["updated_later"] for h in hits), hits
    out = mem("recall", PRIMARY_Q, "--project", "api").stdout
    assert out.index("5432") < out.index("5439") and "updated later" not in out, out


@pytest.mark.parametrize("later", ["The postgres primary now uses port 5433.", "we moved the primary to port 5433"])
def test_a_later_statement_of_the_same_subject_still_supersedes(mem, tmp_path, later):
    _import(mem, tmp_path, later)
    hits = mem("recall", PRIMARY_Q, "--project", "api", "--json").json["hits"]
    texts = [h["text"] for h in hits]
    assert texts.index(later) < texts.index(PRIMARY), texts
    old = hits[texts.index(PRIMARY)]
    assert old["updated_later"] and old["updated_later"]["text"] == later
    assert hits[texts.index(later)]["updated_later"] is None


def _two(store, add_sessions, first: str, second: str, question: str):
    add_sessions({"s1": [turn(question + "?", project="api", ts=T0),
                         turn(first, "assistant", project="api", ts=T0 + 60_000)],
                  "s2": [turn("next task", project="api", ts=T0 + 5 * DAY),
                         turn(second, "assistant", project="api", ts=T0 + 5 * DAY + 60_000)]})
    res = recall(store, [question], projects=("api",))
    return {h.text: (i, h) for i, h in enumerate(res.hits)}


#: (question, the answer, a later statement about a sibling, a later statement of the answer's subject)
NEAR = [
    (PRIMARY_Q, PRIMARY, REPLICA, "The postgres primary now uses port 5433."),
    ("which port does the postgres replica use", "The postgres replica uses port 5439.",
     "The postgres primary uses port 5433, separate from the replica.", "The postgres replica now uses port 5440."),
    ("which port does the production api listen on", "The production api listens on port 8080.",
     "The staging api listens on port 8081.", "The production api now listens on port 8443."),
    ("which port does v1 of the payments api use", "v1 of the payments API is served on port 8080.",
     "v2 of the payments API is served on port 8090.", "v1 of the payments API is served on port 8443 now."),
    ("which port does the billing service use", "The billing service listens on port 9000.",
     "The auth service listens on port 9001, next to the billing service.", "The billing service moved to port 9100."),
    ("which postgres version does the reporting database run", "The reporting database runs Postgres 14.",
     "The orders database runs Postgres 16, unlike the reporting one.",
     "We upgraded the reporting database to Postgres 16."),
]
NEAR_IDS = ["primary-replica", "replica-primary", "production-staging", "v1-v2", "billing-auth", "reporting-orders"]


@pytest.mark.parametrize("question,answer,sibling,_same", NEAR, ids=NEAR_IDS)
def test_sibling_subjects_keep_the_answer_first_and_unmarked(store, add_sessions, question, answer, sibling, _same):
    got = _two(store, add_sessions, answer, sibling, question)
    assert got[answer][0] < got[sibling][0], got
    assert got[answer][1].updated_later is None and got[sibling][1].updated_later is None


@pytest.mark.parametrize("question,answer,_sibling,same", NEAR, ids=NEAR_IDS)
def test_the_same_subject_with_a_new_value_still_supersedes(store, add_sessions, question, answer, _sibling, same):
    got = _two(store, add_sessions, answer, same, question)
    assert got[same][0] < got[answer][0], got
    assert got[answer][1].updated_later and got[answer][1].updated_later["text"] == same


def test_the_new_value_of_one_subject_marks_neither_its_sibling(store, add_sessions):
    """All three: the primary's new port supersedes its old one only; the
    replica's turn is not "updated later" by a port of the primary."""
    add_sessions({"a": [turn(PRIMARY, "assistant", project="api", ts=T0)],
                  "b": [turn(REPLICA, "assistant", project="api", ts=T0 + 5 * DAY)],
                  "c": [turn("The postgres primary now uses port 5433.", "assistant", project="api", ts=T0 + 9 * DAY)]})
    res = recall(store, [PRIMARY_Q], projects=("api",))
    by = {h.text: h for h in res.hits}
    assert res.hits[0].text == "The postgres primary now uses port 5433."
    assert by[PRIMARY].updated_later["session"] == "c"
    assert by[REPLICA].updated_later is None


def test_questions_about_the_past_and_as_of_keep_the_search_order(store, add_sessions):
    add_sessions({"a": [turn(PRIMARY, "assistant", project="api", ts=T0)],
                  "c": [turn("The postgres primary now uses port 5433.", "assistant", project="api", ts=T0 + 9 * DAY)]})
    past = recall(store, ["which port did the postgres primary use"], projects=("api",))
    assert not any(h.updated_later for h in past.hits)
    before = recall(store, [PRIMARY_Q], projects=("api",), as_of=T0 + 2 * DAY)
    assert [h.text for h in before.hits] == [PRIMARY] and before.hits[0].updated_later is None


LONG = ("Sure. The postgres primary uses port 5432. I checked pg_hba.conf and postgresql.conf on the primary: "
        "listen_addresses is set to all interfaces, max_connections is 200, and the port for the postgres primary "
        "stays the default so every client reaches it without extra config.")


@pytest.mark.parametrize("body,marked", [("postgres primary port is 5432", False),
                                         ("postgres primary port is 5433", True)])
def test_a_current_fact_without_history_that_answers_comes_first(mem, tmp_path, body, marked):
    """The fact-alone case: a fact remembered once (no older version)
    that states the port of the subject asked about ranks above the long
    old turn BM25 prefers; the turn is marked only if the fact contradicts
    it."""
    d = tmp_path / "tx" / "-src-api"
    _session(d, "63636363-2222-3333-4444-555555555555", 1,
             [("user", "which port does the postgres primary use?"), ("assistant", LONG)])
    mem("import", "claude-code", str(tmp_path / "tx"))
    mem("remember", "project/api/db-port", body)
    hits = mem("recall", PRIMARY_Q, "--project", "api", "--json").json["hits"]
    fact = next(i for i, h in enumerate(hits) if h["kind"] == "fact")
    old = next(i for i, h in enumerate(hits) if h["text"].startswith("Sure. The postgres primary"))
    assert fact < old, [h["text"][:40] for h in hits]
    assert bool(hits[old]["updated_later"]) is marked
    if marked:
        assert hits[old]["updated_later"]["key"] == "project/api/db-port"
    assert hits[fact]["updated_later"] is None


@pytest.mark.parametrize("body", ["postgres analytics replica port is 5439",
                                  "postgres primary max_connections is 300"])
def test_a_fact_of_a_sibling_or_of_another_setting_neither_outranks_nor_marks(store, add_sessions, body):
    add_sessions({"a": [turn(PRIMARY_Q + "?", project="api", ts=T0),
                        turn(LONG, "assistant", project="api", ts=T0 + 60_000)]})
    remember(store, "project/api/other", body, valid_from=T0 + 20 * DAY)
    res = recall(store, [PRIMARY_Q], projects=("api",))
    order = [h.kind if h.kind == "fact" else h.text[:5] for h in res.hits]
    assert order.index("Sure.") < order.index("fact"), order
    assert not any(h.updated_later for h in res.hits)


def test_subjects_and_their_comparison():
    from objstore.retrieval.subjects import Subject, compare, subjects_of  # (new in session 24: the rest runs on main)

    def subj(text: str, value: str) -> Subject:
        return subjects_of(text, values_of(text, {"postgres", "primary", "port"}))[value]
    q = {"postgr", "primari", "port", "use"}
    primary, replica = subj(PRIMARY, "5432"), subj(REPLICA, "5439")
    assert (primary.words, primary.attribute) == (("postgres", "primary"), "port")
    assert replica.words == ("postgres", "analytics", "replica")
    assert compare(primary, replica, q) is False
    assert compare(primary, subj("we moved the primary to port 5433", "5433"), q) is True
    assert compare(primary, subj("we moved it to port 5433", "5433"), q) is None   # a pronoun: unknown
    fact = subj("postgres primary port is 5432", "5432")
    assert (fact.words, fact.attribute) == (("postgres", "primary"), "port")
    assert subj("For staging, the api uses 8081", "8081").words == ("staging", "api")
    assert subj("the primary uses 5432 and the replica uses 5439", "5439").words == ("replica",)
    # words that differ but are not the question's: a paraphrase as often as another thing
    ttl = {"cach", "ttl"}
    assert compare(subj("The harbor gateway cache TTL is 600 seconds.", "600"),
                   subj("Cache entries expire after 1800 seconds now.", "1800"), ttl) is None


def test_a_fact_about_another_setting_of_the_same_subject_does_not_mark_it(store, add_sessions):
    """Rule 6 vouches for a fact only where both name one attribute: the
    port fact does not make "keeps 200 connections" stale."""
    add_sessions({"a": [turn("The postgres primary keeps 200 connections open.", "assistant", project="api", ts=T0)]})
    remember(store, "project/api/db-port", "postgres primary port is 5433", valid_from=T0 + 20 * DAY)
    res = recall(store, ["the postgres primary"], projects=("api",))
    assert len(res.hits) == 2 and not any(h.updated_later for h in res.hits), res.hits
