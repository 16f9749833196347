"""A fact that a later turn of the person says has changed is marked, and
that turn goes before it, in ``mem recall``, in the prompt hook's block and
in the session-start block (session 26, test26 V3;
``objstore.retrieval.timeline`` rule 8, ``objstore.retrieval.laterturns``).

``mem remember project/billing/staging-db "staging database on port 5432"``,
then a later Claude Code session of that project where the person says the
staging database moved to 6543: recall put the fact first with no mark and
the session block served 5432 as the only current value.  The fact's value
is never changed by a turn (``mem get`` still says 5432): it is marked, so
the reader knows and the person can record the new value.  A later turn
that only names the subject, asks about it, repeats the old value, speaks of
a sibling, or is the assistant's, marks nothing.  Real ``mem`` processes on
real Claude Code transcripts."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.retrieval._sessions import prompt_hook

KEY = "project/billing/staging-db"
FACT = "staging database on port 5432"
MOVED = "Heads up: the staging database moved to port 6543 this morning, 5432 is gone."
CONFIRM = "Got it, staging database is on port 6543 now."
QUESTION = "what port is the staging database on"
CWD = "/home/dev/billing"


def _session(root: Path, sid: str, lines: list[tuple[str, str]], start_ms: int) -> Path:
    """A Claude Code transcript of ``lines`` ((role, text)) in ``CWD``'s
    folder, a second apart from ``start_ms`` (real time: the fact is
    recorded now, so a later turn must be later than now)."""
    d = root / "-home-dev-billing"
    d.mkdir(parents=True, exist_ok=True)
    rows = []
    for i, (role, text) in enumerate(lines):
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start_ms / 1000 + i)) + ".000Z"
        rows.append(json.dumps({"type": role, "sessionId": sid, "cwd": CWD, "uuid": f"{sid[:6]}-{i}",
                                "timestamp": ts, "message": {"role": role, "content": text if role == "user"
                                                             else [{"type": "text", "text": text}]}}) + "\n")
    (d / f"{sid}.jsonl").write_text("".join(rows))
    return root


def _later(mem, tmp_path: Path, lines: list[tuple[str, str]]) -> None:
    """The fact, then a session of ``lines`` two seconds later, imported."""
    mem("remember", KEY, FACT)
    _session(tmp_path / "tx", "aaaabbbb-2222-3333-4444-555555555555", lines, int(time.time() * 1000) + 2000)
    mem("import", "claude-code", str(tmp_path / "tx"))


def test_a_correction_in_a_later_session_marks_the_fact(mem, tmp_path):
    _later(mem, tmp_path, [("user", MOVED), ("assistant", CONFIRM)])
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    assert hits[0]["kind"] == "turn" and hits[0]["text"] == MOVED, hits
    fact = next(h for h in hits if h["kind"] == "fact")
    assert hits.index(fact) > 0
    assert fact["updated_later"]["kind"] == "turn" and fact["updated_later"]["text"] == MOVED, fact
    out = mem("recall", QUESTION, "--project", "billing").stdout
    assert "a later turn says (" in out and f"mem remember {KEY}" in out, out
    block = mem("context", "--project", "billing").stdout
    lines = block.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith(f"- {KEY} ("))
    assert "MAY BE OUT OF DATE" in lines[at] and lines[at].endswith(FACT), block
    assert lines[at - 1].startswith("- later turn, session aaaabbbb-2222-3333-4444-555555555555 (") \
        and lines[at - 1].endswith(MOVED), block
    assert mem("get", KEY).stdout.strip() == FACT   # a turn never changes the fact's value
    # the prompt hook: the turn just above the fact, the fact marked
    text, trace = prompt_hook(tmp_path / "store", QUESTION, CWD, tmp_path / "trace.jsonl")   # MEM_HOME
    got = text.splitlines()
    at = next(i for i, x in enumerate(got) if x.startswith(f"- {KEY} ("))
    assert "MAY BE OUT OF DATE" in got[at] and got[at - 1].startswith("- later turn, session aaaabbbb"), text
    assert trace["later_turns"][0]["key"] == KEY, trace


#: later turns of the person that do not change the fact's value
NOT_UPDATES = [
    [("user", "Please restart the staging database before the demo.")],                   # names the subject
    [("user", "Is the staging database still on port 5432?")],                            # asks
    [("user", "Did the staging database move to port 6543 this morning?")],               # asks, with a new value
    [("user", "The staging database is on port 5432, connect there now.")],               # repeats the old value
    [("user", "The analytics replica moved to port 6544, the staging database did not.")],  # a sibling
    [("user", "status?"), ("assistant", "The staging database moved to port 6543 now.")],   # the assistant's
    [("user", "The staging database did not move to port 6543; it stays on 5432.")],      # denied (test27 V5)
    [("user", "Bob suggested the staging database move to port 6543 but we rejected it.")],  # turned down
    [("user", "We never moved the staging database to port 6543 after all.")],             # denied
    [("user", "The staging database has not moved to port 6543.")],                        # test27b X7: denied
    [("user", "The staging database hasn't moved to port 6543.")],
    [("user", "Ops says the staging database moved to port 6543. That is wrong.")],       # called false
    [("user", "Ops says the staging database moved to port 6543, but that is wrong.")],
    [("user", "We will move the staging database to port 6543 next year.")],               # a plan
    [("user", "Assume the staging database moved to port 6543 and update the config.")],  # supposed (test27 V27)
    [("user", "Ops says the analytics replica moved to port 5433. That is wrong, it moved to port 6543.")],  # "it": a sibling
    [("user", "The claim that the staging database moved to port 6543 is false.")],      # test28b Z3
    [("user", "Someone said the staging database moved to port 6543 - not true, it's still 5432.")],
    [("user", "We might move the staging database to port 6543 someday.")],
]


#: later turns that change the value while a negation denies another part of the sentence (test27 V5)
DENIED_ELSEWHERE = [
    "Port 5432 is no longer used: the staging database moved to port 6543 this morning.",
    "Heads up: the staging database moved to port 6543, not 5433 as planned.",
    "We did not keep 5432; the staging database moved to port 6543 today.",
    # test28b Z3: "wrong" says what the wiki holds, it rejects no claim
    "Forget what I said earlier, the staging database moved to port 6543. That is wrong info in the wiki.",
    # test28b Z3: the rejection of a wrong report that states the real change, said of "it"
    "Ops says the staging database moved to port 5433. That is wrong, it moved to port 6543.",
]


@pytest.mark.parametrize("said", DENIED_ELSEWHERE, ids=range(len(DENIED_ELSEWHERE)))
def test_a_negation_of_another_clause_still_marks(mem, tmp_path, said):
    _later(mem, tmp_path, [("user", said)])
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    fact = next(h for h in hits if h["kind"] == "fact")
    assert fact["updated_later"] and fact["updated_later"]["text"] == said, hits
    assert "MAY BE OUT OF DATE" in mem("context", "--project", "billing").stdout


@pytest.mark.parametrize("lines", NOT_UPDATES, ids=range(len(NOT_UPDATES)))
def test_a_turn_that_does_not_change_the_value_marks_nothing(mem, tmp_path, lines):
    _later(mem, tmp_path, lines)
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    fact = next(h for h in hits if h["kind"] == "fact")
    assert fact["updated_later"] is None, hits
    assert "MAY BE OUT OF DATE" not in mem("context", "--project", "billing").stdout


def test_a_correction_said_before_the_fact_marks_nothing(mem, tmp_path):
    """The person recorded the fact after the turn: the fact is the newer word."""
    _session(tmp_path / "tx", "ccccdddd-2222-3333-4444-555555555555", [("user", MOVED)],
             int(time.time() * 1000) - 86_400_000)
    mem("import", "claude-code", str(tmp_path / "tx"))
    mem("remember", KEY, FACT)
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    assert next(h for h in hits if h["kind"] == "fact")["updated_later"] is None, hits
    assert "MAY BE OUT OF DATE" not in mem("context", "--project", "billing").stdout


def test_among_many_later_turns_with_a_change_word_the_correction_is_found(mem, tmp_path):
    """More later turns of the person with a change word than
    ``laterturns.CUE_READ``: each fact is searched for on its own words."""
    from objstore.retrieval.laterturns import CUE_READ
    chatter = [x for i in range(CUE_READ + 3) for x in (("user", f"ok now run test suite {i} again"),
                                                         ("assistant", "done"))]
    _later(mem, tmp_path, chatter + [("user", MOVED), ("assistant", CONFIRM)])
    block = mem("context", "--project", "billing").stdout
    assert "MAY BE OUT OF DATE" in block and MOVED in block, block


@pytest.mark.parametrize("old,new,question", [
    ("The staging db port is 5432.", "From today the staging database port is 6543.", "what's the staging db port"),
    ("The staging database port is 5432.", "From today the staging db port is 6543.",
     "what's the staging database port"),
])
def test_db_and_database_are_one_thing_for_a_later_turn(mem, tmp_path, old, new, question):
    """test27 V8: the correction goes first and the old turn says "updated
    later" whichever spelling of ``keyrank.KEY_ABBREVIATIONS`` either turn
    uses (``subjects.compare`` reads them as one word)."""
    day = 86_400_000
    start = int(time.time() * 1000) - 3 * day
    _session(tmp_path / "tx", "eeeeffff-2222-3333-4444-555555555555", [("user", old), ("assistant", "ok")], start)
    _session(tmp_path / "tx", "eeeeffff-9999-3333-4444-555555555555", [("user", new), ("assistant", "ok")], start + day)
    mem("import", "claude-code", str(tmp_path / "tx"))
    hits = mem("recall", question, "--project", "billing", "--what", "turns", "--json").json["hits"]
    texts = [h["text"] for h in hits]
    assert texts.index(new) < texts.index(old), hits
    stale = hits[texts.index(old)]
    assert stale["updated_later"] and stale["updated_later"]["text"] == new, stale


def test_a_change_said_before_and_again_after_the_fact_marks_it(mem, tmp_path):
    """test27 V22: the person said 6543 before recording 5432, then again
    after: the later turn goes first and marks the fact, in recall as in
    the session block; the fact never "updates" the turn said after it."""
    early = "IMPORTANT: the deploy notes are in the wiki. Also the staging database moved to port 6543."
    _session(tmp_path / "tx", "11112222-2222-3333-4444-555555555555", [("user", early)],
             int(time.time() * 1000) - 60_000)
    mem("import", "claude-code", str(tmp_path / "tx"))
    _later(mem, tmp_path, [("user", MOVED)])
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    texts = [h["text"] for h in hits]
    fact = next(h for h in hits if h["kind"] == "fact")
    assert texts.index(MOVED) < hits.index(fact), hits
    assert fact["updated_later"] and fact["updated_later"]["text"] == MOVED, fact
    assert hits[texts.index(MOVED)]["updated_later"] is None, hits
    assert "MAY BE OUT OF DATE" in mem("context", "--project", "billing").stdout


def test_a_turn_stamped_in_the_future_is_not_later_than_a_new_version(mem, tmp_path):
    """test27 V15: a transcript line stamped a year ahead (a skewed clock)
    does not mark the versions the person records after importing it
    (``timeitems.FUTURE_SLACK_MS``: its time reads as unknown)."""
    _session(tmp_path / "tx", "77778888-2222-3333-4444-555555555555", [("user", MOVED)],
             int(time.time() * 1000) + 365 * 86_400_000)
    mem("import", "claude-code", str(tmp_path / "tx"))
    mem("remember", KEY, FACT)
    mem("remember", KEY, FACT + " (re-checked)")
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    fact = next(h for h in hits if h["kind"] == "fact")
    assert hits.index(fact) == 0 and fact["updated_later"] is None, hits
    assert "MAY BE OUT OF DATE" not in mem("context", "--project", "billing").stdout


#: a changed host name or path with no attribute word ("moved to cache-9.internal"): the value's shape says
#: what it is (test27 V21); (key, fact, question, the later turn, a sibling's turn that marks nothing)
PLACES = [
    ("project/billing/cache-host", "The billing cache runs on cache-1.internal", "which host does the billing cache run on",
     "FYI the billing cache moved to cache-9.internal this morning.",
     "FYI the analytics cache moved to cache-9.internal this morning."),
    ("project/billing/repo-path", "The billing repo lives in /srv/billing-old", "where is the billing repo",
     "The billing repo moved to /srv/billing-new today.",
     "I moved my own notes to /srv/notes-new today."),
]


@pytest.mark.parametrize("key,fact,question,said,other", PLACES, ids=["host", "path"])
def test_a_changed_host_or_path_marks_the_fact(mem, tmp_path, key, fact, question, said, other):
    mem("remember", key, fact)
    _session(tmp_path / "tx", "eeeeffff-2222-3333-4444-555555555555", [("user", said)], int(time.time() * 1000) + 2000)
    _session(tmp_path / "ty", "eeeeffff-2222-3333-4444-666666666666", [("user", other)], int(time.time() * 1000) + 3000)
    mem("import", "claude-code", str(tmp_path / "ty"))
    assert "MAY BE OUT OF DATE" not in mem("context", "--project", "billing").stdout   # a sibling's, another thing's
    mem("import", "claude-code", str(tmp_path / "tx"))
    hits = mem("recall", question, "--project", "billing", "--json").json["hits"]
    assert hits[0]["kind"] == "turn" and hits[0]["text"] == said, hits
    marked = next(h for h in hits if h["kind"] == "fact" and h["key"] == key)
    assert marked["updated_later"] and marked["updated_later"]["text"] == said, hits
    block = mem("context", "--project", "billing").stdout
    assert "MAY BE OUT OF DATE" in block and said in block, block
    assert mem("get", key).stdout.strip() == fact


@pytest.mark.parametrize("key", ["project/billing/cache2", "project/billing/redis6", "project/billing/cache-host-v2"])
def test_a_changed_host_marks_the_fact_under_a_key_with_a_digit(mem, tmp_path, key):
    """test28b Z4: the key's digit token (``cache2``) is no identifier the later turn fails to name."""
    said = "FYI the billing cache is now on cache-9.internal."
    mem("remember", key, "The billing cache runs on cache-1.internal")
    _session(tmp_path / "tx", "eeeeffff-2222-3333-4444-888888888888", [("user", said)], int(time.time() * 1000) + 2000)
    mem("import", "claude-code", str(tmp_path / "tx"))
    hits = mem("recall", "which host does the billing cache run on", "--project", "billing", "--json").json["hits"]
    fact = next(h for h in hits if h["kind"] == "fact" and h["key"] == key)
    assert fact["updated_later"] and fact["updated_later"]["text"] == said, hits
    assert "MAY BE OUT OF DATE" in mem("context", "--project", "billing").stdout


#: test28b Z5: a host or path of a part of the subject (its logs, backups, dashboards) is another thing's
PARTS = [
    ("project/billing/repo", "The billing repo lives at /srv/billing-old", "where does the billing repo live",
     "The billing repo CI logs are in /var/log/billing-ci now."),
    ("project/billing/repo", "The billing repo lives at /srv/billing-old", "where does the billing repo live",
     "The billing repo backups go to /mnt/backup/billing now."),
    ("project/billing/cache", "The billing cache runs on cache-1.internal", "which host does the billing cache run on",
     "The billing cache dashboards moved to grafana-3.internal today."),
]


@pytest.mark.parametrize("key,fact,question,said", PARTS, ids=["logs", "backups", "dashboards"])
def test_a_host_or_path_of_a_part_marks_nothing(mem, tmp_path, key, fact, question, said):
    mem("remember", key, fact)
    _session(tmp_path / "tx", "eeeeffff-2222-3333-4444-777777777777", [("user", said)], int(time.time() * 1000) + 2000)
    mem("import", "claude-code", str(tmp_path / "tx"))
    hits = mem("recall", question, "--project", "billing", "--json").json["hits"]
    fact_hit = next(h for h in hits if h["kind"] == "fact" and h["key"] == key)
    assert fact_hit["updated_later"] is None, hits
    assert "MAY BE OUT OF DATE" not in mem("context", "--project", "billing").stdout


#: test28 Y6: the key names the fact's subject ("Postgres 15 on port 5432" under ``project/billing/db`` is the
#: billing database's port; ``subjects.subjects_of``, ``fact``); the project's name in a turn of it names nothing
#: more (``project``); (the later turn, whether it marks the fact)
KEYED = [
    ("Heads up: the billing database moved to port 6543 this morning, 5432 is gone.", True),
    ("Heads up: the billing db moved to port 6543 this morning.", True),
    ("Heads up: the db moved to port 6543 this morning.", True),
    ("Heads up: the billing api moved to port 8080 this morning.", False),
    ("Heads up: the analytics db moved to port 6543 this morning.", False),
]


@pytest.mark.parametrize("said,marks", KEYED, ids=range(len(KEYED)))
def test_the_key_names_the_subject_of_a_fact(mem, tmp_path, said, marks):
    mem("remember", "project/billing/db", "Postgres 15 on port 5432")
    _session(tmp_path / "tx", "abab0000-2222-3333-4444-555555555555", [("user", said)], int(time.time() * 1000) + 2000)
    mem("import", "claude-code", str(tmp_path / "tx"))
    hits = mem("recall", "which port does postgres use", "--project", "billing", "--json").json["hits"]
    fact = next(h for h in hits if h["kind"] == "fact")
    assert bool(fact["updated_later"]) is marks and (not marks or fact["updated_later"]["text"] == said), hits
    block = mem("context", "--project", "billing").stdout
    assert ("MAY BE OUT OF DATE" in block) is marks, block
    if marks:
        assert hits[0]["kind"] == "turn" and hits[0]["text"] == said, hits
