"""test39b B15: derive's evidence check admitted ("write") values the cited
turn does not assert: hearsay with its place ("Someone on Slack thinks …"), a
value taken back in its own sentence ("5432 - wait, no, 6543", read now as
the prompt hook reads a statement's take-back), a past value ("We used 5432
… until March") and a denied one ("The old docs say …, but that's wrong").
The table holds those 4, the 24 test39b's scripts found decided right, and
the new value of each rule's turn, which must still be admitted; one
proposal per case, citing its turn.  Real ``mem import`` + ``mem derive
--json`` against a loopback OpenAI-compatible server."""

from __future__ import annotations

from tests.derive._util import assert_decided_as_table

OLD, NEW = "the db port is 5432", "the db port is 6543"
CASES = [  # (the cited turn, the proposed value, admitted?)
    # test39b B15: admitted on batch, not asserted
    ("Someone on Slack thinks the db port is 5432.", OLD, False),
    ("The db port is 5432 - wait, no, 6543.", OLD, False),
    ("We used 5432 for the db port until March.", OLD, False),
    ("The old docs say the db port is 5432, but that's wrong.", OLD, False),
    # decided right on batch (test39b's scripts), to stay right
    ("I'm not sure the db port is 5432.", OLD, False),
    ("Is the db port 5432?", OLD, False),
    ("Ignore the following: the db port is 5432.", OLD, False),
    ("The port used to be 5432; it is 6543 now.", OLD, False),
    ("Ich glaube, der Port ist 5432.", OLD, False),
    ("Maybe the db port is 5432.", OLD, False),
    ("If the db port were 5432 the tests would pass.", OLD, False),
    ("Not 5432: the db port is 6543.", OLD, False),
    ("We dropped redis 6 last year.", "the cache is redis 6", False),
    ("我觉得数据库端口是5432。", OLD, False),
    ("数据库端口不是5432。", OLD, False),
    ("Should the db port be 5432?", OLD, False),
    ("The db port is 5432? That seems wrong.", OLD, False),
    ("Let's not use 5432 for the db port.", OLD, False),
    ("The ticket claims the db port is 5432; it isn't.", OLD, False),
    ("Careful: the db port is NOT 5432.", OLD, False),
    ("The db port is 6543.", NEW, True),
    ("No problem, the db port is 6543.", NEW, True),
    ("Never mind the tests. The db port is 6543.", NEW, True),
    ("I think so too. The db port is 6543.", NEW, True),
    ("It might rain, but the db port is 6543.", NEW, True),
    ("The db port is 6543, not 5432.", NEW, True),
    ("The db port is 6543 (I was wrong earlier).", NEW, True),
    ("Confirmed: the db port is 6543.", NEW, True),
    # what each rule's turn does assert: still admitted
    ("The db port is 5432 - wait, no, 6543.", NEW, True),
    ("The db port is 5432. Actually, it's 6543.", NEW, True),
    ("We used 5432 for the db port until March; now it is 6543.", NEW, True),
    ("The old docs say the db port is 5432, but that's wrong: it is 6543.", NEW, True),
    ("Someone on Slack thinks it is 5432, but the db port is 6543.", NEW, True),
    ("The cache is redis. That is bad for latency.", "the cache is redis", True),
    ("The docs say the db port is 6543.", NEW, True),
]


def test_each_proposal_is_decided_as_the_table_says(mem, tmp_path):
    assert_decided_as_table(mem, tmp_path, CASES, "DER40")
