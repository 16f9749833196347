"""Common ways a person types a changed value (test33 T20): "fyi the billing
db is on port 6543 these days", "billing db port: 5432 -> 6543", "heads up,
billing db moved to 6543", "The billing database now listens on 6543."
After ``mem remember project/billing/db-port "the billing db port is 5432"``
each left the fact unmarked in the session block, recall and the hook (base:
none marked; the last one was not found by recall's search for "which port does
the billing db use", which shares only the project's name with it, until
session 36: recall follows a fact forward in time as it does a turn, its words'
other spellings with them, "db" finding "database").  Real ``mem`` processes on a real Claude Code transcript, as
``test_later_turn_wordings`` does."""

from __future__ import annotations

import pytest

from tests.retrieval._sessions import prompt_hook
from tests.retrieval.test_fact_later_turn import CWD
from tests.retrieval.test_later_turn_wordings import _later, assert_marks

FACT = ("project/billing/db-port", "the billing db port is 5432")
QUESTION = "which port does the billing db use"

MARKS = [
    "fyi the billing db is on port 6543 these days",
    "billing db port: 5432 -> 6543",
    "heads up, billing db moved to 6543",
    # the old value said gone, no change word (test36 T1; base: the fact unmarked in recall, block and hook)
    "5432 is dead, use 7003 for the billing db from now on",
    "the billing db port is 7023 (was 5432)",
]
#: shares no word but the project's name with the question: the block and hook mark it, recall since session 36
LISTENS = "The billing database now listens on 6543."


@pytest.mark.parametrize("said", MARKS, ids=range(len(MARKS)))
def test_a_typed_change_marks_the_fact(mem, tmp_path, said):
    assert_marks(mem, tmp_path, *FACT, said, QUESTION)


def test_now_listens_marks_the_fact_in_the_block_hook_and_recall(mem, tmp_path):
    key, fact = FACT
    _later(mem, tmp_path, key, fact, LISTENS)
    block = mem("context", "--project", "billing").stdout.splitlines()
    at = next(i for i, x in enumerate(block) if x.startswith(f"- {key} ("))
    assert "MAY BE OUT OF DATE" in block[at] and block[at - 1].endswith(LISTENS), block
    text, trace = prompt_hook(tmp_path / "store", QUESTION, CWD, tmp_path / "trace.jsonl")
    assert [x["key"] for x in trace["later_turns"]] == [key], trace
    assert mem("get", key).stdout.strip() == fact
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]   # (session 36)
    f = next(h for h in hits if h["kind"] == "fact")
    assert f["updated_later"] and f["updated_later"]["text"] == LISTENS, hits


#: capture's take-backs (``core.takeback.TAKE_BACK_PHRASES``, one list since tl33) now read by rule 8 too: base marked
#: the fact for these; a softer one ("Actually, …") takes the change back only before a clause saying the value stands
TAKEN_BACK = [
    "The billing DB port changed to 6543. Forget it.",
    "The billing DB port changed to 6543. Oops.",
]


@pytest.mark.parametrize("said", TAKEN_BACK, ids=range(len(TAKEN_BACK)))
def test_capture_s_take_backs_take_the_change_back_in_rule_8(mem, tmp_path, said):
    from tests.retrieval import test_later_turn_wordings31 as w31
    w31.test_a_change_taken_back_or_narrowed_marks_nothing(mem, tmp_path, *w31.FACT, said, w31.QUESTION)


def test_a_soft_word_with_no_value_standing_takes_nothing_back(mem, tmp_path):
    from tests.retrieval import test_later_turn_wordings31 as w31
    assert_marks(mem, tmp_path, *w31.FACT, "The billing DB port changed to 6543. Actually, I'll update the docs.",
                 w31.QUESTION)
