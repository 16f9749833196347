"""test43 T3: derive's evidence check admitted a value its turn negates ("was not/never changed to 6543"), reverts
("changed to 6543 and later reverted", "…, then changed back to 5432", "… by mistake and rolled back"), puts in the
future or a condition ("will be / should be changed to 6543", "if the db port was changed to 6543, restart it"),
asks about ("Someone asked if the db port is 6543") or calls stale ("(not anymore)", "(outdated)", ", not true
anymore"); and, test44 T2, refused an ordinary current statement whose OTHER clause held a condition, a
question, a future change or an undo ("If you need it, the db port is 6543").  One proposal per case, citing its
turn; real ``mem import`` + ``mem derive --json`` against a loopback OpenAI-compatible server
(``tests.derive._util.assert_decided_as_table``)."""

from __future__ import annotations

from tests.derive._util import assert_decided_as_table

OLD, NEW = "the db port is 5432", "the db port is 6543"
CASES = [  # (the cited turn, the proposed value, admitted?)
    ("the db port was not changed to 6543.", NEW, False),
    ("the db port was never changed to 6543", NEW, False),
    ("the db port wasn't changed to 6543.", NEW, False),
    ("The db port was changed to 6543 and later reverted.", NEW, False),
    ("the db port was changed to 6543, then changed back to 5432.", NEW, False),
    ("the db port was changed to 6543 by mistake and rolled back", NEW, False),
    ("The db port was changed to 6543. Later it was reverted.", NEW, False),
    ("the db port will be changed to 6543 next week", NEW, False),
    ("the db port should be changed to 6543", NEW, False),
    ("if the db port was changed to 6543, restart it", NEW, False),
    ("Someone asked if the db port is 6543.", NEW, False),
    ("The db port is 6543 (not anymore).", NEW, False),
    ("The db port is 6543 (outdated).", NEW, False),
    ("The db port is 6543, not true anymore.", NEW, False),
    # neighbours that keep their decision: a plain change TO the value is current
    ("In March the db port was changed to 6543.", NEW, True),
    ("the db port is 6543 now", NEW, True),
    ("the db port was changed to 6543 and the service restarted.", NEW, True),
    ("the db port was changed back to 6543", NEW, True),
    ("the db port will stay 6543", NEW, True),
    # test44 T2: the condition, question, future or undo is another clause's, not the value's
    ("If you need it, the db port is 6543.", NEW, True),
    ("You asked whether I know it: the db port is 6543.", NEW, True),
    ("I wonder if you noticed, the db port is 6543", NEW, True),
    ("the db port is 6543, so clients should be updated to use it", NEW, True),
    ("the db port is 6543 and the firewall needs to be set to allow it", NEW, True),
    ("the db port is 6543, and the cache will be moved to redis", NEW, True),
    ("the db port is 6543 and later we rolled back the cache deploy", NEW, True),
    ("the db port is 6543, outdated docs still say 5432", NEW, True),
]


def test_each_proposal_is_decided_as_the_table_says(mem, tmp_path):
    assert_decided_as_table(mem, tmp_path, CASES, "LEAD44")
