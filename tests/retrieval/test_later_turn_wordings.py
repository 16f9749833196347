"""The wordings of "a later turn says it changed" that rule 8 missed (session
29; ``objstore.retrieval.timeline`` rule 8, ``objstore.retrieval.laterturns``):

* test28 Y6's third wording: ``project/billing/db`` "Postgres 15 on port
  5432", then "We upgraded to Postgres 16 this morning." (no subject word, a
  product's name before the value: ``subjects.Subject.named``);
* a fact whose body is the value alone (``project/billing/db-port``
  "5432"): its key names the subject (``subjects._key_subject``);
* test28b Z9: a question that names the old value ("does the billing
  database still listen on port 5432") keeps it as the fact's value
  (``timeitems.time_items``);
* tl28c's left-outs: a host said of "it", a rejection and a change split by
  ``;``, a plan word before a change that did happen.

Each through real ``mem`` processes on a real Claude Code transcript: the
fact, a later session of the person, ``mem import``, then ``mem recall``
(the turn first, the fact marked), ``mem context`` and the prompt hook (the
later turn just above the fact, marked); and the turns that must mark
nothing."""

from __future__ import annotations

import time

import pytest

from tests.retrieval._sessions import prompt_hook
from tests.retrieval.test_fact_later_turn import CWD, _session

#: (key, fact, the person's later turn, the question)
MARKS = [
    ("project/billing/db", "Postgres 15 on port 5432", "We upgraded to Postgres 16 this morning.",
     "which version of postgres does the billing db run"),                                       # Y6
    ("project/billing/db-port", "5432", "the billing db port is now 6543", "what is the billing db port"),
    ("project/billing/image", "billing-api:v1.4.2", "The billing image is now billing-api:v1.5.0 after today's deploy.",
     "which image does billing deploy"),
    ("project/billing/db", "The billing database listens on port 5432", "The billing database moved to port 6543.",
     "does the billing database still listen on port 5432"),                                     # Z9
    ("project/billing/cache", "The billing cache runs on cache-1.internal",
     "FYI the billing cache moved to cache-9.internal this morning.", "is the billing cache still on cache-1.internal"),
    ("project/billing/owner", "PROJ-4411 is assigned to Alice", "PROJ-4411 is now assigned to Bob.",
     "is PROJ-4411 still assigned to Alice"),
    ("project/billing/cache", "The billing cache runs on cache-1.internal",
     "Ops says the billing cache moved to cache-5.internal. That is wrong, it moved to cache-9.internal.",
     "which host does the billing cache run on"),                                                # "it", a host
    ("project/billing/db", "The billing database listens on port 5432",
     "The report that said 5432 was wrong; the billing db moved to port 6543 this morning.",
     "which port does the billing database use"),                                               # ";"
    ("project/billing/db", "The billing database listens on port 5432",
     "Tomorrow I'll tell them the billing db moved to port 6543.", "which port does the billing database use"),
]

#: (key, fact, a later turn that changes nothing of it, the question)
KEEPS = [
    ("project/billing/db", "Postgres 15 on port 5432", "We upgraded to Node 20 this morning.",
     "which version of postgres does the billing db run"),                                       # another product
    ("project/billing/db-port", "5432", "we now listen on port 8080", "what is the billing db port"),   # a measure word
    ("project/billing/db-port", "5432", "the analytics db port is now 6543", "what is the billing db port"),   # a sibling
    ("project/billing/docs-python", "The docs build uses Python 3.9", "We upgraded the app to Python 3.12 this morning.",
     "which python does the docs build use"),                                                    # the fact's own subject
    ("project/billing/db", "The billing database listens on port 5432", "Did the billing database move to port 6543?",
     "does the billing database still listen on port 5432"),                                     # asks
    ("project/billing/db", "The billing database listens on port 5432", "The analytics database moved to port 6543.",
     "does the billing database still listen on port 5432"),                                     # a sibling
    ("project/billing/cache", "The billing cache runs on cache-1.internal",
     "Ops says the analytics cache moved to cache-5.internal. That is wrong, it moved to cache-9.internal.",
     "which host does the billing cache run on"),                                                # "it": a sibling
    ("project/billing/db", "The billing database listens on port 5432",
     "Bob suggested the billing db move to port 6543; we rejected it.", "which port does the billing database use"),
    ("project/billing/db", "The billing database listens on port 5432",
     "I'll check whether the billing db moved to port 6543.", "which port does the billing database use"),
    ("project/billing/db", "The billing database listens on port 5432",
     "We should have moved the billing db to port 6543.", "which port does the billing database use"),
]


def _later(mem, tmp_path, key: str, fact: str, said: str) -> None:
    mem("remember", key, fact)
    _session(tmp_path / "tx", "cdcd0000-2222-3333-4444-555555555555", [("user", said)], int(time.time() * 1000) + 2000)
    mem("import", "claude-code", str(tmp_path / "tx"))


@pytest.mark.parametrize("key,fact,said,question", MARKS, ids=range(len(MARKS)))
def test_the_later_turn_marks_the_fact(mem, tmp_path, key, fact, said, question):
    assert_marks(mem, tmp_path, key, fact, said, question)


def assert_marks(mem, tmp_path, key: str, fact: str, said: str, question: str) -> None:
    """The fact, the person's later turn ``said`` imported; then recall puts
    the turn first and marks the fact, ``mem context`` and the prompt hook
    put the turn just above the fact's marked line; the value unchanged."""
    _later(mem, tmp_path, key, fact, said)
    hits = mem("recall", question, "--project", "billing", "--json").json["hits"]
    assert hits[0]["kind"] == "turn" and hits[0]["text"] == said, hits
    got = next(h for h in hits if h["kind"] == "fact" and h["key"] == key)
    assert got["updated_later"] and got["updated_later"]["text"] == said, hits
    block = mem("context", "--project", "billing").stdout.splitlines()
    at = next(i for i, x in enumerate(block) if x.startswith(f"- {key} ("))
    assert "MAY BE OUT OF DATE" in block[at] and block[at - 1].startswith("- later turn, session cdcd0000") \
        and block[at - 1].endswith(said), block
    text, trace = prompt_hook(tmp_path / "store", question, CWD, tmp_path / "trace.jsonl")
    lines = text.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith(f"- {key} ("))
    assert "MAY BE OUT OF DATE" in lines[at] and lines[at - 1].startswith("- later turn, session cdcd0000"), text
    assert [x["key"] for x in trace["later_turns"]] == [key], trace
    assert mem("get", key).stdout.strip() == fact   # a turn never changes the fact's value


@pytest.mark.parametrize("key,fact,said,question", KEEPS, ids=range(len(KEEPS)))
def test_a_turn_that_changes_nothing_of_it_marks_nothing(mem, tmp_path, key, fact, said, question):
    _later(mem, tmp_path, key, fact, said)
    hits = mem("recall", question, "--project", "billing", "--json").json["hits"]
    got = next(h for h in hits if h["kind"] == "fact" and h["key"] == key)
    assert got["updated_later"] is None and hits[0] == got, hits
    assert "MAY BE OUT OF DATE" not in mem("context", "--project", "billing").stdout
