"""A turn stamped by a clock 30 minutes fast (test36 T18): "heads up: we
moved the billing db to port 6000" is imported, then the person records the
newer value 7000.  By its stamp the turn is later than v2, so base marked the
person's current 7000 MAY BE OUT OF DATE in the session block and served the
6000 turn first in recall (forever: the stamp stays after v2).  The store
held the turn before v2 was said (its session's reflog), so it is not
later (``objstore.retrieval.storedat``).  Real ``mem`` processes on a real
Claude Code transcript."""

from __future__ import annotations

import time

from tests.retrieval.test_fact_later_turn import _session

KEY = "project/billing/db-port"
SAID = "heads up: we moved the billing db to port 6000"
QUESTION = "billing db port"


def test_a_turn_stamped_ahead_but_stored_before_the_version_marks_nothing(mem, tmp_path):
    mem("remember", KEY, "the billing db port is 5432")
    ahead = int(time.time() * 1000) + 30 * 60_000   # under timeitems.FUTURE_SLACK_MS (1 h)
    _session(tmp_path / "tx", "eeee1111-2222-3333-4444-555555555555", [("user", SAID), ("assistant", "ok")], ahead)
    mem("import", "claude-code", str(tmp_path / "tx"))
    mem("remember", KEY, "the billing db port is 7000")   # the person's newer value, after the import
    block = mem("context", "--project", "billing").stdout
    assert "the billing db port is 7000" in block and "MAY BE OUT OF DATE" not in block and SAID not in block, block
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    assert hits[0]["kind"] == "fact" and hits[0]["key"] == KEY and hits[0]["updated_later"] is None, hits
    turn = next(h for h in hits if h["kind"] == "turn" and h["text"] == SAID)
    assert turn["updated_later"] and turn["updated_later"]["key"] == KEY, hits


def test_a_turn_stored_after_the_version_still_marks_it(mem, tmp_path):
    """The control: the same turn imported after v2 (its stamp, a second
    ahead, is right) marks it as before."""
    mem("remember", KEY, "the billing db port is 5432")
    _session(tmp_path / "tx", "eeee1111-2222-3333-4444-555555555555", [("user", SAID), ("assistant", "ok")],
             int(time.time() * 1000) + 2000)
    time.sleep(2.5)
    mem("import", "claude-code", str(tmp_path / "tx"))
    block = mem("context", "--project", "billing").stdout
    assert "MAY BE OUT OF DATE" in block, block
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    assert hits[0]["kind"] == "turn" and hits[0]["text"] == SAID, hits


def test_a_turn_stamped_days_ahead_and_stored_after_the_fact_is_not_updated_by_it(mem, tmp_path):
    """test37b T19.3: a turn stamped 2 days ahead (past timeitems.FUTURE_SLACK_MS: its stamp says nothing),
    imported after the person's fact, was shown in recall "updated later (…, KEY)": the earlier fact presented
    as updating the later statement.  Read as of when the store held it, it is the later of the two."""
    mem("remember", KEY, "the billing db port is 5432")
    time.sleep(1.1)
    ahead = int(time.time() * 1000) + 2 * 86_400_000
    _session(tmp_path / "tx", "eeee1111-2222-3333-4444-555555555555", [("user", SAID), ("assistant", "ok")], ahead)
    mem("import", "claude-code", str(tmp_path / "tx"))
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    turn = next(h for h in hits if h["kind"] == "turn" and h["text"] == SAID)
    assert not (turn["updated_later"] and turn["updated_later"].get("key") == KEY), hits
    fact = next(h for h in hits if h["kind"] == "fact" and h["key"] == KEY)
    assert hits.index(turn) < hits.index(fact), hits
