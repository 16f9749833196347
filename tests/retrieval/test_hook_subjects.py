"""The prompt hook decides "stated later" as ``mem recall`` does: by the
subjects of the values (session 25; ``objstore.retrieval.timeitems``).

The hook injects a turn passage that states an older value of a key only
with that key's current value, added just above it
(``objstore.retrieval.inject.stale_for_facts``).  Its check read no
subjects and no question, so a fact about a *sibling* ("the analytics
replica uses port 5439") made "The ledger postgres primary uses port 5432"
stale: the replica's fact, which the gate had turned down, was injected
above the primary's answer as if it were its current value, while ``mem
recall`` kept the answer unmarked.  Both now build the rule's items with
one function.  Real ``mem hook claude-code`` processes (UserPromptSubmit)
and ``mem recall`` on a store imported from a transcript."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.retrieval._sessions import prompt_hook, write_session

PROMPT = "which port does the ledger postgres primary use"
ANSWER = "The ledger postgres primary uses port 5432 by default."


def _store(mem, tmp_path: Path, fact: str) -> Path:
    d = tmp_path / "tx" / "-src-api"
    write_session(d, "61616161-2222-3333-4444-555555555555", 1,
                  [("user", "remind me about the db"), ("assistant", ANSWER)], "/src/api")
    mem("import", "claude-code", str(tmp_path / "tx"))
    mem("remember", "project/api/db", fact)
    return Path(os.environ["MEM_HOME"])   # (the test's own store: tests/conftest.py)


def _hook(store: Path, tmp_path: Path) -> tuple[str, dict]:
    """The prompt hook's injected text and its trace record."""
    return prompt_hook(store, PROMPT, "/src/api", tmp_path / "trace.jsonl")


def test_a_sibling_fact_is_not_injected_as_the_answers_current_value(mem, tmp_path):
    store = _store(mem, tmp_path, "the analytics replica uses port 5439 by default")
    text, rec = _hook(store, tmp_path)
    assert ANSWER in text, (text, rec)
    assert "5439" not in text and "added_current_facts" not in rec, (text, rec)
    hits = mem("recall", PROMPT, "--project", "api", "--json").json["hits"]   # recall agrees
    assert hits[0]["text"] == ANSWER and not any(h["updated_later"] for h in hits), hits


@pytest.mark.parametrize("fact", ["it now uses port 5433 by default",
                                  "the ledger primary now uses port 5433 by default"])
def test_a_later_value_of_the_same_subject_still_comes_with_the_answer(mem, tmp_path, fact):
    store = _store(mem, tmp_path, fact)
    text, rec = _hook(store, tmp_path)
    assert ANSWER in text and fact in text, (text, rec)
    assert text.index(fact) < text.index(ANSWER), text   # the current value above the old one
    hits = mem("recall", PROMPT, "--project", "api", "--json").json["hits"]
    old = next(h for h in hits if h["text"] == ANSWER)
    assert old["updated_later"] and old["updated_later"]["key"] == "project/api/db", hits
