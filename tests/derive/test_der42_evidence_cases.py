"""test41 T18: derive's evidence check admitted ("write") values the cited
turn does not assert now — a past value told with a year first ("In 2023
the db port was 5432."), a chat line quoted ("Bob: the db port is 5432"), a
tool or model as the source ("ChatGPT said …") and a denial in the value's
own unit ("…, which is no longer true") — and refused values the person
asserts beside a source in another clause ("Dave said it's fine, and the db
port is 6543.", "… 6543 (Bob thinks it is 5432, he is wrong).", "I was told
to check it: …", "… - Bob said that's right"): a source verb governs its
own clause only.  The table holds those, neighbours of each kind, and what
must still be admitted (a label before a colon, a year with "is", a source
that names the unit's own value stays hearsay).  One proposal per case,
citing its turn; real ``mem import`` + ``mem derive --json`` against a
loopback OpenAI-compatible server (``tests.derive._util.assert_decided_as_table``)."""

from __future__ import annotations

from tests.derive._util import assert_decided_as_table

OLD, NEW = "the db port is 5432", "the db port is 6543"
CASES = [  # (the cited turn, the proposed value, admitted?)
    # test41 T18: admitted on batch, not asserted now
    ("In 2023 the db port was 5432.", OLD, False),
    ("Bob: the db port is 5432", OLD, False),
    ("ChatGPT said the db port is 5432.", OLD, False),
    ("The db port is 5432, which is no longer true.", OLD, False),
    # test41 T18: refused on batch, asserted
    ("Dave said it's fine, and the db port is 6543.", NEW, True),
    ("The db port is 6543 (Bob thinks it is 5432, he is wrong).", NEW, True),
    ("I was told to check it: the db port is 6543", NEW, True),
    ("The db port is 6543 - Bob said that's right.", NEW, True),
    # the same kinds in other words
    ("In early 2024 the db port was 5432.", OLD, False),
    ("Back in March the db port was 5432.", OLD, False),
    ("Alice: the db port is 5432.", OLD, False),
    ("The AI thinks the db port is 5432.", OLD, False),
    ("Copilot suggested the db port is 5432.", OLD, False),
    ("The db port is 5432, that is no longer the case.", OLD, False),
    ("The db port is 5432 (per Alice).", OLD, False),
    ("I was told the db port is 5432.", OLD, False),
    ("Bob said the db port is 5432, and he is usually right.", OLD, False),
    # still admitted
    ("Note: the db port is 6543.", NEW, True),
    ("Confirmed: the db port is 6543.", NEW, True),
    ("Update: the db port is 6543.", NEW, True),
    ("In 2024 the db port is 6543.", NEW, True),
    ("The db port is 6543, which is still true.", NEW, True),
    ("Bob said so: the db port is 6543.", NEW, True),
    ("Bob said that's right: the db port is 6543", NEW, True),
    ("Alice thinks we should upgrade, and the db port is 6543.", NEW, True),
]


def test_each_proposal_is_decided_as_the_table_says(mem, tmp_path):
    assert_decided_as_table(mem, tmp_path, CASES, "DER42")
