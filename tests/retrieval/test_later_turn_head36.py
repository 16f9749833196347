"""A later turn about another thing whose name holds the fact's subject
marks nothing (session 36, test35b T5).

``mem remember project/billing/db-port "the db port is 5432"``, then a later
session where the person says "The database admin console is on port 8080
now.": recall, the session block and (since session 35 joined "db" and
"database" in its search) the prompt hook marked the true 5432 MAY BE OUT OF
DATE below the console's 8080.  Rule 8 reads one attribute ("port") of one
thing only where the two subjects end in one word
(``factchange.measured``, ``subjects.one_head``): the console is not the
db.  The production database's new port still marks it.  Real ``mem``
processes on real Claude Code transcripts."""

from __future__ import annotations

import time

import pytest

from tests.retrieval._sessions import prompt_hook
from tests.retrieval.test_fact_later_turn import CWD, _session

KEY = "project/billing/db-port"
FACT = "the db port is 5432"
QUESTION = "which port is the db on"


def _later(mem, tmp_path, said: str) -> None:
    mem("remember", KEY, FACT)
    _session(tmp_path / "tx", "aaaabbbb-3636-3333-4444-555555555555", [("user", said), ("assistant", "ok")],
             int(time.time() * 1000) + 2000)
    mem("import", "claude-code", str(tmp_path / "tx"))


def _fact(mem):
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    return next(h for h in hits if h["kind"] == "fact" and h["key"] == KEY)


def test_another_thing_named_with_the_db_marks_nothing(mem, tmp_path):
    _later(mem, tmp_path, "The database admin console is on port 8080 now.")
    assert _fact(mem)["updated_later"] is None
    assert "MAY BE OUT OF DATE" not in mem("context", "--project", "billing").stdout
    text, _trace = prompt_hook(tmp_path / "store", QUESTION, CWD, tmp_path / "trace.jsonl")
    assert "MAY BE OUT OF DATE" not in text and "8080" not in text, text


@pytest.mark.parametrize("said", ["The production database now listens on port 6543.",
                                  "The db port is 6543 now.", "We moved the database server to port 6543 today."])
def test_the_db_itself_on_a_new_port_still_marks_it(mem, tmp_path, said):
    _later(mem, tmp_path, said)
    later = _fact(mem)["updated_later"]
    assert later and later["text"] == said
