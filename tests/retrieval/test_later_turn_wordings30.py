"""The wordings of "a later turn says it changed" that rule 8 still missed
(session 30, test29 P4; ``objstore.retrieval.factchange``):

* "db" for "database", and the attribute inside the turn's subject: "The
  billing DB port changed to 6543.", "The port of the billing DB changed
  to 6543." against "The billing database is Postgres 15 on port 5432";
* the old value said replaced in so many words: "changed from 5432 to
  6543", ``5432 -> 6543``, ``5432 → 6543``.

Each through real ``mem`` processes on a real Claude Code transcript, as
``test_later_turn_wordings`` does: recall (the turn first, the fact marked),
``mem context`` and the prompt hook (the later turn just above the fact,
marked); an arrow with no change word beside it in recall only (the session
block and the hook search the later turns by their change words); and the
turns that must mark nothing."""

from __future__ import annotations

import pytest

from tests.retrieval.test_later_turn_wordings import _later, assert_marks

FACT = ("project/billing/db", "The billing database is Postgres 15 on port 5432")
QUESTION = "which port does the billing database use"

#: the person's later turns that mark FACT everywhere
MARKS = [
    "The billing DB port changed to 6543.",
    "The billing db port changed to 6543.",
    "The billing DB port changed from 5432 to 6543.",
    "The port of the billing DB changed to 6543.",
    "The billing database moved 5432 \u2192 6543.",
    "The billing database moved 5432 -> 6543 today.",
]

#: later turns that say nothing of FACT's port
KEEPS = [
    "The analytics DB port changed to 6543.",                       # a sibling
    "analytics database: port 5432 -> 6543 (done)",                 # a sibling, with the fact's own old value
    "Did the billing DB port change to 6543?",                      # asks
    "The billing DB ports 5432 to 6543 are open on the firewall now.",   # a range, no "from"
    "The billing DB changed its pool size to 64.",                  # another attribute
]


@pytest.mark.parametrize("said", MARKS, ids=range(len(MARKS)))
def test_the_later_turn_marks_the_fact(mem, tmp_path, said):
    key, fact = FACT
    assert_marks(mem, tmp_path, key, fact, said, QUESTION)


def test_an_arrow_with_no_change_word_marks_the_fact_in_recall(mem, tmp_path):
    key, fact = FACT
    said = "billing database: port 5432 -> 6543 (done)"
    _later(mem, tmp_path, key, fact, said)
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    assert hits[0]["kind"] == "turn" and hits[0]["text"] == said, hits
    got = next(h for h in hits if h["kind"] == "fact" and h["key"] == key)
    assert got["updated_later"] and got["updated_later"]["text"] == said, hits


@pytest.mark.parametrize("said", KEEPS, ids=range(len(KEEPS)))
def test_a_turn_that_changes_nothing_of_it_marks_nothing(mem, tmp_path, said):
    key, fact = FACT
    _later(mem, tmp_path, key, fact, said)
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    got = next(h for h in hits if h["kind"] == "fact" and h["key"] == key)
    assert got["updated_later"] is None and hits[0] == got, hits
    assert "MAY BE OUT OF DATE" not in mem("context", "--project", "billing").stdout
