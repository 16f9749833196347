"""A value stated in a word, not a number, is superseded like one (tester
test24's T2): "We deploy the web app with fabric, …" said on 10-01 and
"Done: the web app now deploys with ansible, …; fabric is removed." on 10-09.
``mem recall "how do we deploy the web app"`` must put the ansible turn
before the fabric one and mark the fabric one "updated later", and with the
facts v1 fabric -> v2 ansible, put the fact first and still mark the fabric
turn.  A word counts as a value only where a later passage says it was
replaced ("moved off", "no longer", "instead of", "is removed", …) or a
fact's older version held it (``objstore.retrieval.wordchange``): a later
passage that merely names both words, one about a sibling subject, or a
question about the past changes nothing.  Real transcript import and real
``mem`` processes for the tester's case, the library's ``recall`` for the
near cases."""

from __future__ import annotations

from pathlib import Path

import pytest
from recall_helpers import turn

from objstore.memory.facts import remember
from objstore.retrieval.recall import recall
from objstore.retrieval.wordchange import _gone_of
from tests.retrieval._sessions import write_session

DAY = 86_400_000
T0 = 1_790_000_000_000  # 2026-09-21
QUESTION = "how do we deploy the web app"
FABRIC = "We deploy the web app with fabric, running fab deploy from the bastion."
ANSIBLE = "Done: the web app now deploys with ansible, run ansible-playbook deploy.yml; fabric is removed."


def _session(d: Path, sid: str, day: int, lines: list[tuple[str, str]]) -> None:
    write_session(d, sid, day, lines, "/src/web")


def _check(hits: list[dict], first: str) -> None:
    texts = [h["text"] for h in hits]
    assert texts.index(first) < texts.index(FABRIC), texts
    old = hits[texts.index(FABRIC)]["updated_later"]
    assert old and "ansible" in old["text"], hits


def test_the_tester_case_a_word_value_replaced_later(mem, tmp_path):
    d = tmp_path / "tx" / "-src-web"
    _session(d, "81818181-2222-3333-4444-555555555555", 1,
             [("user", "how do we deploy the web app?"), ("assistant", FABRIC)])
    _session(d, "82828282-2222-3333-4444-555555555555", 9,
             [("user", "we are moving off fabric"), ("assistant", ANSIBLE)])
    mem("import", "claude-code", str(tmp_path / "tx"))
    hits = mem("recall", QUESTION, "--project", "web", "--json").json["hits"]
    _check(hits, ANSIBLE)
    assert hits[[h["text"] for h in hits].index(ANSIBLE)]["updated_later"] is None
    out = mem("recall", QUESTION, "--project", "web").stdout
    assert out.index("ansible") < out.index("with fabric, running") and "updated later" in out, out
    mem("remember", "project/web/deploy", "web deploys with fabric", "--valid-from", "2026-10-01T10:00:00Z")
    mem("remember", "project/web/deploy", "web deploys with ansible", "--valid-from", "2026-10-09T10:00:00Z")
    hits = mem("recall", QUESTION, "--project", "web", "--json").json["hits"]
    assert hits[0]["kind"] == "fact" and hits[0]["text"] == "web deploys with ansible", hits
    _check(hits, "web deploys with ansible")


def _two(store, add_sessions, first: str, second: str, question: str = QUESTION):
    add_sessions({"s1": [turn(question + "?", project="web", ts=T0),
                         turn(first, "assistant", project="web", ts=T0 + 60_000)],
                  "s2": [turn("next task", project="web", ts=T0 + 5 * DAY),
                         turn(second, "assistant", project="web", ts=T0 + 5 * DAY + 60_000)]})
    res = recall(store, [question], projects=("web",))
    return {h.text: (i, h) for i, h in enumerate(res.hits)}


@pytest.mark.parametrize("later", [
    "We moved the web app deploys off fabric; ansible runs them now.",
    "The web app no longer deploys with fabric: ansible-playbook deploy.yml does it.",
    "Web app deploys run ansible-playbook instead of fabric.",
    "We deploy the web app with ansible; fabric was removed from the repo.",
    "Switched the web app deploy from fabric to ansible.",
])
def test_a_later_statement_that_the_word_was_replaced_supersedes(store, add_sessions, later):
    got = _two(store, add_sessions, FABRIC, later)
    assert got[later][0] < got[FABRIC][0], got
    assert got[FABRIC][1].updated_later and got[FABRIC][1].updated_later["text"] == later
    assert got[later][1].updated_later is None


@pytest.mark.parametrize("later", [
    "We compared fabric and ansible for deploying the web app; both work.",   # names both words, says no change
    "The web app deploy docs mention fabric and ansible.",
    "Should we move the web app deploys off fabric to ansible?",              # a question, not a change
    "We will not replace fabric for the web app deploys, ansible is too slow.",   # a denial
])
def test_a_later_passage_that_only_mentions_the_words_changes_nothing(store, add_sessions, later):
    got = _two(store, add_sessions, FABRIC, later)
    assert got[FABRIC][1].updated_later is None and got[later][1].updated_later is None, got


def test_a_replaced_word_of_a_sibling_subject_marks_nothing(store, add_sessions):
    """V2's siblings with a word value: the replica dropped pgbouncer, not the primary."""
    q = "which pooler does the postgres primary use"
    primary = "The postgres primary uses pgbouncer as its pooler."
    replica = "The postgres analytics replica no longer uses pgbouncer, unlike the primary pooler."
    got = _two(store, add_sessions, primary, replica, q)
    assert got[primary][0] < got[replica][0], got
    assert got[primary][1].updated_later is None and got[replica][1].updated_later is None


def test_the_same_subject_dropping_the_word_supersedes(store, add_sessions):
    q = "which pooler does the postgres primary use"
    primary = "The postgres primary uses pgbouncer as its pooler."
    same = "The postgres primary no longer uses pgbouncer as its pooler; odyssey does it now."
    got = _two(store, add_sessions, primary, same, q)
    assert got[same][0] < got[primary][0], got
    assert got[primary][1].updated_later["text"] == same


def test_a_fact_whose_older_version_held_the_word_supersedes_the_turn(store, add_sessions):
    """Rule 4 with a word: the key's history ties the fact to the turn."""
    add_sessions({"s1": [turn(QUESTION + "?", project="web", ts=T0),
                         turn(FABRIC, "assistant", project="web", ts=T0 + 60_000)]})
    remember(store, "project/web/deploy", "web deploys with fabric", valid_from=T0)
    remember(store, "project/web/deploy", "web deploys with ansible", valid_from=T0 + 8 * DAY)
    res = recall(store, [QUESTION], projects=("web",))
    texts = [h.text for h in res.hits]
    assert texts.index("web deploys with ansible") < texts.index(FABRIC), texts
    assert res.hits[texts.index(FABRIC)].updated_later["key"] == "project/web/deploy"


def test_questions_about_the_past_and_as_of_keep_the_search_order(store, add_sessions):
    add_sessions({"a": [turn(FABRIC, "assistant", project="web", ts=T0)],
                  "c": [turn(ANSIBLE, "assistant", project="web", ts=T0 + 8 * DAY)]})
    now = recall(store, [QUESTION], projects=("web",))
    assert [h.text for h in now.hits][0] == ANSIBLE and now.hits[1].updated_later
    past = recall(store, ["how did we deploy the web app"], projects=("web",))
    assert not any(h.updated_later for h in past.hits)
    before = recall(store, [QUESTION], projects=("web",), as_of=T0 + 2 * DAY)
    assert [h.text for h in before.hits] == [FABRIC] and before.hits[0].updated_later is None


@pytest.mark.parametrize("text,gone", [
    ("we are moving off fabric", {"fabric"}),
    ("Done: now ansible; fabric is removed.", {"fabric"}),
    ("we migrated the deploys away from the old fabric scripts", {"fabric"}),
    ("Jest is no longer used, we replaced it", {"jest", "it"}),
    ("use ansible instead of fabric", {"fabric"}),
    ("we compared fabric and ansible", set()),
    ("a drop-in dropdown from the menu", set()),
    ("should we move off fabric?", set()),
    ("we won't move off fabric this quarter", set()),
    ("we could replace fabric with ansible later.", set()),
    ("we are not planning to drop fabric. We moved the web app off fabric.", {"fabric"}),
])
def test_the_change_statements_read(text, gone):
    assert set(_gone_of(text)) == gone
