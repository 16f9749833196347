"""Forget reaches what recall and context keep: the history index and the
session state."""

from __future__ import annotations

from objstore.retrieval.context import session_start_block, state_path
from objstore.retrieval.inject import inject_for_prompt
from objstore.memory.facts import remember
from objstore.memory.forget import forget, scan_store
from objstore.retrieval.recall import recall


def test_forgetting_an_old_version_purges_it_from_history(store, store_path):
    remember(store, "project/acme/db", "postgres on port zebraquokka7731")
    old = recall(store, ["zebraquokka7731"], projects=("acme",)).hits[0]
    remember(store, "project/acme/db", "postgres 16 on port 5433")
    assert recall(store, ["zebraquokka7731"], projects=("acme",)).hits[0].resolved_from == old.id
    res = forget(store, what="project/acme/db@v1")
    assert res.index_problems == []
    assert store.index.term_doc_freq("zebraquokka7731") == {"zebraquokka7731": 0}
    assert recall(store, ["zebraquokka7731"], projects=("acme",)).hits == []
    assert recall(store, ["postgres port"], projects=("acme",)).hits[0].text == "postgres 16 on port 5433"


def test_forgetting_a_key_scrubs_the_session_state(store, store_path):
    remember(store, "project/acme/secretish", "the staging host is tr0ub4dorquokka", pinned=True)
    remember(store, "project/acme/db", "postgres 16 on port 5433")
    block = session_start_block(store, "s1", "startup", None, project="acme")
    assert "tr0ub4dorquokka" in block and state_path(store, "s1").exists()
    forget(store, what="project/acme/secretish")
    assert scan_store(store_path, [b"tr0ub4dorquokka"]) == []
    again = session_start_block(store, "s1", "resume", None, project="acme")
    assert "tr0ub4dorquokka" not in again and "5433" in again
    assert inject_for_prompt(store, "s1", "what is the staging host tr0ub4dorquokka",
                             project="acme").text == ""
