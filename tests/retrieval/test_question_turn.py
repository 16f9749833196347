"""A turn that only asks never goes above what answers it (session 25, rule 7
of ``objstore.retrieval.timeline``).

"what port does the api use?", asked in an earlier session, holds every word
of ``mem recall "what port does the api use"`` and no answer; BM25 put it
first, above the later turn or the fact that says 8080.  An item that states
a value and holds the question's words (verbs aside) now goes before it,
without marking it "updated later"; a statement about a *sibling* of what
is asked ("the analytics replica uses 5439, separate from the primary") is
no answer and stays where it was; a turn that asks and also states
something, or whose question words are all verbs, keeps its place.  Real
``mem`` processes on imported transcripts, the library's ``recall`` for the
near cases."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from recall_helpers import turn

from objstore.memory.facts import remember
from objstore.retrieval.recall import recall
from tests.retrieval._sessions import DAY, T0, prompt_hook, write_session

QUESTION = "what port does the api use"
ASKED = "what port does the api use?"
ANSWER = "The api listens on port 8080; started it."


def _import(mem, tmp_path: Path, later: list[tuple[str, str]] | None) -> None:
    d = tmp_path / "tx" / "-src-api"
    write_session(d, "71717171-2222-3333-4444-555555555555", 1,
                  [("user", ASKED), ("assistant", "Let me look at the config.")], "/src/api")
    if later:
        write_session(d, "72727272-2222-3333-4444-555555555555", 3, later, "/src/api")
    mem("import", "claude-code", str(tmp_path / "tx"))


def test_a_later_turn_that_answers_goes_before_the_question(mem, tmp_path):
    _import(mem, tmp_path, [("user", "start the dev server"), ("assistant", ANSWER)])
    hits = mem("recall", QUESTION, "--project", "api", "--json").json["hits"]
    texts = [h["text"] for h in hits]
    assert texts.index(ANSWER) < texts.index(ASKED), texts
    assert texts[0] == ANSWER, texts
    assert not any(h["updated_later"] for h in hits), hits   # the question is not "updated": it said nothing
    out = mem("recall", QUESTION, "--project", "api").stdout
    assert out.index("8080") < out.index(ASKED) and "updated later" not in out, out


def test_a_fact_that_answers_goes_before_the_question(mem, tmp_path):
    """The fact's key does not name the question's words: BM25 alone put
    the question first and the fact last."""
    _import(mem, tmp_path, None)
    mem("remember", "project/api/net", "the api serves http on port 8080")
    hits = mem("recall", QUESTION, "--project", "api", "--json").json["hits"]
    assert hits[0]["kind"] == "fact" and hits[0]["key"] == "project/api/net", [h["text"] for h in hits]
    assert [h["text"] for h in hits].index(ASKED) == 1
    assert not any(h["updated_later"] for h in hits)


def test_without_an_answer_the_question_keeps_its_place(mem, tmp_path):
    _import(mem, tmp_path, [("user", "start the dev server"), ("assistant", "Started it, the logs look clean.")])
    hits = mem("recall", QUESTION, "--project", "api", "--json").json["hits"]
    assert hits[0]["text"] == ASKED, [h["text"] for h in hits]


PRIMARY_Q = "which port does the postgres primary use"
PRIMARY = "The postgres primary uses port 5432."
REPLICA = "The postgres analytics replica uses port 5439, separate from the primary."


def _recall(store, add_sessions, sessions: dict, question: str) -> list[str]:
    add_sessions(sessions)
    res = recall(store, [question], projects=("api",))
    assert not any(h.updated_later for h in res.hits), res.hits
    return [h.text for h in res.hits]


def test_a_statement_about_a_sibling_is_no_answer(store, add_sessions):
    """The replica's port holds "postgres", "primary" and "port" but is
    stated of the replica: it stays below the question, which the primary's
    port (said later still) answers."""
    texts = _recall(store, add_sessions, {
        "a": [turn(PRIMARY_Q + "?", project="api", ts=T0), turn("I'll check.", "assistant", project="api", ts=T0 + 60_000)],
        "b": [turn("set up the analytics replica", project="api", ts=T0 + 5 * DAY),
              turn(REPLICA, "assistant", project="api", ts=T0 + 5 * DAY + 60_000)],
        "c": [turn("db notes", project="api", ts=T0 + 6 * DAY),
              turn(PRIMARY, "assistant", project="api", ts=T0 + 6 * DAY + 60_000)]}, PRIMARY_Q)
    assert texts[0] == PRIMARY, texts
    assert texts.index(PRIMARY_Q + "?") < texts.index(REPLICA), texts


@pytest.mark.parametrize("asked,question", [
    ("The api config lives in config/api.yaml. what port does the api use?", QUESTION),   # it states something
    ("what port does the api use? the api config is in config/api.yaml", QUESTION),        # likewise
    ("how do we deploy?", "how do we deploy"),                                           # only verbs asked
])
def test_a_turn_that_does_not_only_ask_keeps_its_place(store, add_sessions, asked, question):
    texts = _recall(store, add_sessions, {
        "a": [turn(asked, project="api", ts=T0)],
        "b": [turn("The api listens on port 8080, deploy took 35 s.", "assistant", project="api", ts=T0 + 2 * DAY)]},
        question)
    assert texts[0] == asked, texts


def test_a_question_about_the_past_keeps_the_search_order(store, add_sessions):
    add_sessions({"a": [turn("what port did the api use?", project="api", ts=T0)],
                  "b": [turn("The api listens on port 8080.", "assistant", project="api", ts=T0 + 2 * DAY)]})
    res = recall(store, ["what port did the api use"], projects=("api",))
    assert res.hits[0].text == "what port did the api use?", [h.text for h in res.hits]


def test_which_turns_only_ask():
    from objstore.retrieval.timeline import asks  # (new in session 25: the rest runs on the base too)
    terms = {"port", "api"}
    assert asks("what port does the api use?", terms)
    assert asks("hi. which port does the api use? thanks", terms)
    assert asks("what port does the api use?\nand the worker?", terms)
    assert not asks("The api config lives in api.yaml. what port does the api use?", terms)
    assert not asks("the api port, please", terms)
    assert not asks("what is the weather like?", terms)   # asks, but not about the question's words


def test_the_prompt_hook_injects_the_answer_not_the_question(mem, tmp_path):
    """The hook's one turn passage: the earlier question holds every word
    of the prompt as the answer does (equal evidence, a better BM25); the
    answer is injected."""
    prompt = "which port does the ledger postgres primary use"
    answer = "The ledger postgres primary uses port 5432 by default."
    d = tmp_path / "tx" / "-src-api"
    write_session(d, "73737373-2222-3333-4444-555555555555", 1,
                  [("user", prompt + "?"), ("assistant", "Let me check the config.")], "/src/api")
    write_session(d, "74747474-2222-3333-4444-555555555555", 3,
                  [("user", "db notes"), ("assistant", answer)], "/src/api")
    mem("import", "claude-code", str(tmp_path / "tx"))
    store = Path(os.environ["MEM_HOME"])
    text, _rec = prompt_hook(store, prompt, "/src/api", tmp_path / "trace.jsonl")
    assert answer in text and prompt + "?" not in text, text


# -- test29 P19: a stored copy of the question after the facts recall found (recall.asking_last)

def _recalled(mem, query: str, project: str) -> list[tuple[str, str]]:
    got = json.loads(mem("recall", query, "--project", project, "--json").stdout)
    return [(h["kind"], h.get("key") or h.get("text", "")) for h in got["hits"]]


def test_a_stored_question_comes_after_the_fact_that_answers_it(store, add_sessions, mem):
    """P19 through ``mem recall``: the person asked once (the prompt hook
    stored it); asking again gets the fact first, then the question."""
    remember(store, "project/api/pg-port", "5432")
    add_sessions({"q1": [turn("which port does the api database use?", project="api",
                              ts=4_000_000_000_000)]})
    store.close()
    hits = _recalled(mem, "which port does the api database use", "api")
    assert ("fact", "project/api/pg-port") in hits
    asked = [i for i, (kind, text) in enumerate(hits) if kind == "turn" and "which port" in text]
    assert asked and hits.index(("fact", "project/api/pg-port")) < asked[0]


def test_a_question_with_no_fact_after_it_keeps_its_place(store, add_sessions, mem):
    """Only a fact among the hits, or a turn that answers (rule 7, unchanged),
    goes before a stored question: a turn that does not answer stays below it."""
    remember(store, "project/web/test-cmd", "make check")
    add_sessions({"t1": [turn("how do I run the tests?", project="web", ts=4_000_000_000_000)],
                  "t0": [turn("the tests were slow yesterday", project="web")]})
    store.close()
    hits = _recalled(mem, "how do I run the tests", "web")
    kinds = [(kind, text.split("\n")[0]) for kind, text in hits]
    assert kinds[0] == ("fact", "project/web/test-cmd"), hits
    asked = [i for i, (kind, text) in enumerate(hits) if kind == "turn" and text.startswith("how do I run")]
    slow = [i for i, (kind, text) in enumerate(hits) if kind == "turn" and "slow" in text]
    assert asked and (not slow or asked[0] < slow[0]), hits
