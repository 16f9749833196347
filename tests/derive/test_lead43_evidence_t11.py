"""test42 T11: derive's evidence check admitted a value its turn denies in a parenthesis or after a dash ("The db
port is 5432 (no longer true).", "… - no longer true.") and refused a value the turn says it was changed TO ("In March
the db port was changed to 6543.", its current value) and an e-mail subject read as a chat name ("Re: the db port is
6543").  One proposal per case, citing its turn; real ``mem import`` + ``mem derive --json`` against a loopback
OpenAI-compatible server (``tests.derive._util.assert_decided_as_table``)."""

from __future__ import annotations

from tests.derive._util import assert_decided_as_table

OLD, NEW = "the db port is 5432", "the db port is 6543"
CASES = [  # (the cited turn, the proposed value, admitted?)
    ("The db port is 5432 (no longer true).", OLD, False),
    ("The db port is 5432 - no longer true.", OLD, False),
    ("The db port is 5432 \u2014 no longer the case.", OLD, False),
    ("In March the db port was changed to 6543.", NEW, True),
    ("Last month the db port was switched to 6543.", NEW, True),
    ("Re: the db port is 6543", NEW, True),
    # neighbours that keep their decision
    ("In March the db port was 5432.", OLD, False),
    ("Bob: the db port is 5432", OLD, False),
]


def test_each_proposal_is_decided_as_the_table_says(mem, tmp_path):
    assert_decided_as_table(mem, tmp_path, CASES, "LEAD43")
