"""A sub-agent's summary fact states a value the person records anew later
(test36 T20.2): ``project/acme/summary/S.agent-a111`` "… Also the db host
is pg-7." (agent_observed), then ``mem remember project/acme/db-host
pg-9``.  Base ranked the person's fact first but left the summary unmarked
(rule 11 orders, it does not mark); now it is "updated later" by the
person's fact (timeline rule 11).  A sibling's value is not marked.  Real
``mem`` processes."""

from __future__ import annotations

import time

SUMMARY = "project/acme/summary/S.agent-a111"


def _hits(mem, body: str):
    mem("remember", SUMMARY, body, "--trust", "agent_observed")
    time.sleep(0.05)
    mem("remember", "project/acme/db-host", "pg-9")
    hits = mem("recall", "what is the db host", "--project", "acme", "--json").json["hits"]
    assert hits[0]["key"] == "project/acme/db-host", hits
    return next(h for h in hits if h["key"] == SUMMARY), mem("recall", "what is the db host", "--project", "acme").stdout


def test_a_summary_fact_s_value_the_person_recorded_anew_is_marked(mem):
    got, text = _hits(mem, "Sub-agent checked the deploy scripts. Also the db host is pg-7.")
    assert got["updated_later"] and got["updated_later"]["key"] == "project/acme/db-host", got
    assert "updated later (" in text and "a later turn says" not in text, text


def test_a_sibling_s_value_is_not_marked(mem):
    got, _text = _hits(mem, "Sub-agent checked the deploy scripts. Also the redis cache host is cache-7.")
    assert got["updated_later"] is None, got
