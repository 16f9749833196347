"""A change the person typed with no change word but the old value said gone
(test36 T1): "5432 is dead, use 7003 for the billing db from now on", "the
billing db port is 7023 (was 5432)".  Base marked the old *turn* "updated
later" in recall but served the fact first and unmarked in recall, the
session block and the prompt hook.  Real ``mem`` processes on a real Claude
Code transcript, as ``test_later_turn_wordings`` does."""

from __future__ import annotations

import pytest

from tests.retrieval.test_later_turn_wordings import assert_marks
from tests.retrieval.test_later_turn_wordings33 import FACT, QUESTION

MARKS = [
    "5432 is dead, use 7003 for the billing db from now on",
    "the billing db port is 7023 (was 5432)",
]


@pytest.mark.parametrize("said", MARKS, ids=range(len(MARKS)))
def test_the_old_value_said_gone_marks_the_fact(mem, tmp_path, said):
    assert_marks(mem, tmp_path, *FACT, said, QUESTION)
