"""A turn that names the database by its product ("the billing postgres on
port 5432") and the fact of the key ``project/billing/db-port`` (6543)
recorded later (test36 T9): base read "postgres" and "db" as two sibling
things, so recall ranked the person's stale turn first with no "updated
later", and the prompt hook injected it alone and unmarked.  A product name
is "the db" of a subject that names no other product
(``subjects._DB_PRODUCTS``); two products stay two things.  Real ``mem``
processes on a real Claude Code transcript."""

from __future__ import annotations

import time

from tests.retrieval._sessions import prompt_hook
from tests.retrieval.test_fact_later_turn import CWD, _session

KEY = "project/billing/db-port"
OLD = "connect to the billing postgres on port 5432 with psql -h bl-db -p 5432"


def _store(mem, tmp_path, said: str = OLD) -> None:
    _session(tmp_path / "tx", "dddd1111-2222-3333-4444-555555555555", [("user", said), ("assistant", "Connected.")],
             int(time.time() * 1000) - 60_000)
    mem("import", "claude-code", str(tmp_path / "tx"))
    mem("remember", KEY, "6543")


def test_the_product_named_turn_is_updated_later_by_the_db_fact(mem, tmp_path):
    _store(mem, tmp_path)
    hits = mem("recall", "psql port billing postgres", "--project", "billing", "--json").json["hits"]
    assert hits[0]["kind"] == "fact" and hits[0]["key"] == KEY, hits
    turn = next(h for h in hits if h["kind"] == "turn" and h["text"] == OLD)
    assert turn["updated_later"] and turn["updated_later"]["key"] == KEY, hits
    text, _trace = prompt_hook(tmp_path / "store", "which port should I use for psql against the billing postgres?",
                               CWD, tmp_path / "trace.jsonl")
    if OLD in text:   # never alone: the current fact above it, or the turn marked
        at = text.index(OLD)
        assert f"- {KEY} (" in text[:at] or f"updated later: {KEY} holds the current value" in text, text


def test_another_product_is_another_thing(mem, tmp_path):
    """The control: the mysql's port is not the postgres's."""
    said = "connect to the billing mysql on port 3306 with mysql -h bl-db -P 3306"
    _session(tmp_path / "tx", "dddd1111-2222-3333-4444-555555555555", [("user", said), ("assistant", "Connected.")],
             int(time.time() * 1000) - 60_000)
    mem("import", "claude-code", str(tmp_path / "tx"))
    mem("remember", "project/billing/postgres-port", "6543")
    hits = mem("recall", "which port does the billing mysql use", "--project", "billing", "--json").json["hits"]
    turn = next(h for h in hits if h["kind"] == "turn" and h["text"] == said)
    assert turn["updated_later"] is None, hits
