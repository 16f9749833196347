"""A change taken back and said again with a new value of "it" (tl31's
left-out, lane cue32): "The billing DB port changed to 6543. Scratch that.
It changed to 7000." — the take-back withdraws 6543, yet the fact's 5432 is
still out of date: 7000 is said of "it", the thing of the value taken back
(``factchange._stands_for``).  Base left all of these unmarked (7000's
subject unread).  The other way: a take-back back to the old value ("…
Just kidding. It is still 5432.", "… Actually no, make it 5432 again.")
marks nothing.  Real ``mem`` processes on a real Claude Code transcript, as
``test_later_turn_wordings31`` does."""

from __future__ import annotations

import pytest

from tests.retrieval.test_later_turn_wordings import assert_marks
from tests.retrieval import test_later_turn_wordings31 as w31
from tests.retrieval.test_later_turn_wordings31 import FACT, QUESTION

MARKS = [
    "The billing DB port changed to 6543. Scratch that. It changed to 7000.",
    "The billing DB port changed to 6543. Actually no. Make it 6000.",
    "The billing DB port changed to 6543. Never mind. It is 6000 now.",
    "The billing DB port changed to 6543. Just kidding. It moved to 7000.",
    "The billing DB port changed to 6543. My mistake. It is 7000.",
]
KEEPS = [
    "The billing DB port changed to 6543. Just kidding. It is still 5432.",
    "The billing DB port changed to 6543. Actually no, make it 5432 again.",
]


@pytest.mark.parametrize("said", MARKS, ids=range(len(MARKS)))
def test_a_new_value_of_it_after_a_take_back_marks_the_fact(mem, tmp_path, said):
    assert_marks(mem, tmp_path, *FACT, said, QUESTION)


@pytest.mark.parametrize("said", KEEPS, ids=range(len(KEEPS)))
def test_a_take_back_to_the_old_value_marks_nothing(mem, tmp_path, said):
    w31.test_a_change_taken_back_or_narrowed_marks_nothing(mem, tmp_path, *FACT, said, QUESTION)
