"""test40 T14 (and T23's "T14 addendum"): derive's evidence check admitted
("write") values the cited turn does not assert now — hearsay with no place
or with a person's name ("My colleague thinks …", "Bob said on Slack …",
"According to Alice …", "I was told …"), a past value told with its time
first ("Until March the db port was 5432.") and a value denied in its own
unit ("…, which is wrong", "… — that's wrong") — and refused the new value
after "Until March … ; since then it is 6543" as "negated".  The table holds
those, their neighbours of the same kinds (a table of sources and verbs, a
time before a past verb, a denial after the value), and what must still be
admitted: the new value beside each, a document pointed at ("According to
the runbook …"), a request ("Please tell the team …").  One proposal per
case, citing its turn; real ``mem import`` + ``mem derive --json`` against a
loopback OpenAI-compatible server (``tests.derive._util.assert_decided_as_table``)."""

from __future__ import annotations

from tests.derive._util import assert_decided_as_table

OLD, NEW = "the db port is 5432", "the db port is 6543"
CASES = [  # (the cited turn, the proposed value, admitted?)
    # test40 T14: admitted on batch, not asserted now
    ("My colleague thinks the db port is 5432.", OLD, False),
    ("Bob said on Slack the db port is 5432.", OLD, False),
    ("According to Alice the db port is 5432.", OLD, False),
    ("I was told the db port is 5432.", OLD, False),
    ("Until March the db port was 5432.", OLD, False),
    ("The db port is 5432, which is wrong.", OLD, False),
    ("The db port is 5432 \u2014 that's wrong.", OLD, False),
    # test40 T14: refused on batch ("negated"), asserted
    ("Until March the db port was 5432; since then it is 6543.", NEW, True),
    # the same kinds in other words: a source and its verb, a time before a past verb, a denial after the value
    ("The team lead told me the db port is 5432.", OLD, False),
    ("Alice mentioned that the db port is 5432.", OLD, False),
    ("As per Bob, the db port is 5432.", OLD, False),
    ("Bob on the infra team said the db port is 5432.", OLD, False),
    ("Our DBA thinks the db port is 5432.", OLD, False),
    ("We've been told the db port is 5432.", OLD, False),
    ("Last year the db port was 5432.", OLD, False),
    ("Before the migration the db port was 5432.", OLD, False),
    ("The db port is 5432, which is incorrect.", OLD, False),
    ("The db port was 5432, now it is 6543.", OLD, False),
    ("Jane from infra said the db port is 5432.", OLD, False),
    ("Until we migrated, the db port was 5432.", OLD, False),
    # what the same turns assert, and their asserted neighbours: still admitted
    ("Until March the db port was 5432, but now it is 6543.", NEW, True),
    ("The db port was 5432, now it is 6543.", NEW, True),
    ("Bob said the db port is 5432, but it is 6543.", NEW, True),
    ("My colleague thinks it is 5432, but the db port is 6543.", NEW, True),
    ("The db port is 5432, which is outdated: it is 6543 now.", NEW, True),
    ("The db port is 5432 \u2014 that's wrong, it is 6543.", NEW, True),
    ("According to the runbook the db port is 6543.", NEW, True),
    ("The README says the db port is 6543.", NEW, True),
    ("Please tell the team the db port is 6543.", NEW, True),
    ("Tell Bob the db port is 6543.", NEW, True),
    ("I told Bob the db port is 6543.", NEW, True),
    ("As Bob said, the db port is 6543.", NEW, True),
    ("Bob confirmed the db port is 6543.", NEW, True),
    ("The db port is 6543, which Alice confirmed.", NEW, True),
    ("The db port is 6543, which is correct.", NEW, True),
    ("The db port is 6543 until further notice.", NEW, True),
    ("Until the migration finishes, the db port is 6543.", NEW, True),
    ("Before you deploy, check that the db port is 6543.", NEW, True),
]


def test_each_proposal_is_decided_as_the_table_says(mem, tmp_path):
    assert_decided_as_table(mem, tmp_path, CASES, "DER41")
