"""Later turns that say a change the fact does not have (test30c T21, a
regression of session 30's rule 8 readings, ``objstore.retrieval.factchange``
and ``restated.states``): the person taking the change back in the same
turn ("Just kidding, it is still 5432.", "No, it is still 5432.", "Scratch
that."), or narrowing it to a copy, a place or a trial of the thing ("my
local … for testing", "on the staging replica only"), or naming another
attribute ("the … backup port").  None marks the unqualified fact in
recall, the session block or the prompt hook; the same change said of the
fact's own thing still does, and a fact of the staging database is changed
by its staging turn; so does the person's "no longer uses Redis" / "replaced
Redis with Memcached" for a fact whose word Redis is (tl30's P4), not a
sibling's nor a plan.  Real ``mem`` processes on a real Claude Code
transcript, as ``test_later_turn_wordings`` does."""

from __future__ import annotations

import pytest

from tests.retrieval._sessions import prompt_hook
from tests.retrieval.test_fact_later_turn import CWD
from tests.retrieval.test_later_turn_wordings import _later, assert_marks

FACT = ("project/billing/db", "the billing database listens on port 5432")
QUESTION = "which port does the billing database use"

#: later turns that must not mark FACT
KEEPS = [
    "The billing DB port changed to 6543. Just kidding, it is still 5432.",
    "The billing database port changed to 6543. Just kidding, it is still 5432.",
    "The billing DB port changed to 6543. No, it is still 5432.",
    "The billing DB port changed to 6543. Scratch that.",
    "The billing DB port changed to 6543, just kidding.",
    "I changed my local billing DB port to 6543 for testing.",
    "The billing DB port changed to 6543 on the staging replica only.",
    "The billing DB backup port changed to 6543.",
    "The billing database backup port changed to 6543.",
]

#: later turns that still mark it: the change of the fact's own thing, the old value said as the old one
MARKS = [
    ("project/billing/db", "the billing database listens on port 5432",
     "The billing DB port changed to 6543. It was 5432 before.", QUESTION),
    ("project/billing/db", "the billing database listens on port 5432",
     "The billing DB port changed to 6543; staging stays on 5432.", QUESTION),
    ("project/billing/staging-db", "the staging billing database listens on port 5432",
     "The staging billing DB port changed to 6543.", "which port does the staging billing database use"),
]


CACHE = ("project/billing/cache", "The billing service uses Redis for caching")
CACHE_Q = "what does the billing service use for caching"

#: tl30's P4 Redis wordings: the fact's word said gone (``wordchange``), of its subject, in its project
#: test31c W4 (a regression of the narrowing and take-back readings): a real change with a narrowing word as a
#: cause, an actor or an aside, a "never mind" about something else, a sentence that confirms the change
MARKS += [(*FACT, said, QUESTION) for said in (
    "The billing DB port changed to 6543 after the local outage.",
    "The billing DB port changed to 6543 as part of the backup overhaul.",
    "The billing DB port changed to 6543 \u2014 the dev team confirmed.",
    "The billing DB port changed to 6543; only the docs still say 5432.",
    "The billing DB port changed to 6543. Never mind, I'll update the runbook myself.",
    "The billing DB port changed to 6543. No, it is not 5432 any more.",
)]
MARKS += [(*CACHE, "The billing service no longer uses Redis.", CACHE_Q),
          (*CACHE, "We replaced Redis with Memcached in the billing service.", CACHE_Q)]
KEEPS = [(*FACT, said, QUESTION) for said in KEEPS] + [
    (*CACHE, "The search service no longer uses Redis.", CACHE_Q),                      # a sibling
    (*CACHE, "We might drop Redis from the billing service next year.", CACHE_Q),       # a plan
    # test31c W10 (a regression of the Redis reading): the word said still used in the same turn
    (*CACHE, "The billing service no longer uses Redis directly; it goes through the cache proxy that still fronts "
             "Redis.", CACHE_Q),
    (*CACHE, "The billing service no longer uses Redis 6, we upgraded to Redis 7.", CACHE_Q),
    (*CACHE, "The billing service no longer uses Redis Sentinel, just plain Redis.", CACHE_Q),
]


@pytest.mark.parametrize("key,fact,said,question", KEEPS, ids=range(len(KEEPS)))
def test_a_change_taken_back_or_narrowed_marks_nothing(mem, tmp_path, key, fact, said, question):
    _later(mem, tmp_path, key, fact, said)
    hits = mem("recall", question, "--project", "billing", "--json").json["hits"]
    got = next(h for h in hits if h["kind"] == "fact" and h["key"] == key)
    assert got["updated_later"] is None, hits
    assert "MAY BE OUT OF DATE" not in mem("context", "--project", "billing").stdout
    text, _trace = prompt_hook(tmp_path / "store", question, CWD, tmp_path / "trace.jsonl")
    assert key in text and "MAY BE OUT OF DATE" not in text, text


@pytest.mark.parametrize("key,fact,said,question", MARKS, ids=range(len(MARKS)))
def test_the_change_of_the_facts_own_thing_still_marks_it(mem, tmp_path, key, fact, said, question):
    assert_marks(mem, tmp_path, key, fact, said, question)
