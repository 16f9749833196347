"""Under the session budget, a fact a later turn says changed is served
with its mark or not at all (test36 T21).  A project with 30 newer facts
holding values: the later-turn check reads at most
``laterturns.FACTS_CHECKED`` of them, the newest first, so base never
checked the old short fact, and the block, whose budget kept only that
short line of the long ones, served its stale value as current.  Real
``mem`` processes on a real Claude Code transcript."""

from __future__ import annotations

import time

from tests.retrieval.test_fact_later_turn import _session

KEY = "project/billing/db-port"
SAID = "heads up: we moved the billing db to port 7002 yesterday"


def test_a_stale_fact_under_the_budget_is_marked_or_left_out(mem, tmp_path):
    mem("remember", KEY, "the billing db port is 5432")
    _session(tmp_path / "tx", "bbbb1111-2222-3333-4444-555555555555", [("user", SAID)], int(time.time() * 1000) + 2000)
    time.sleep(2.5)
    mem("import", "claude-code", str(tmp_path / "tx"))
    for i in range(30):
        mem("remember", f"project/billing/note{i}", f"deploy checklist item {i} " * 40)
    lines = mem("context", "--project", "billing").stdout.splitlines()
    assert any(x.startswith("(") and "more stored facts not shown" in x for x in lines), lines
    for at, line in enumerate(lines):
        if line.startswith(f"- {KEY} ("):
            assert "MAY BE OUT OF DATE" in line and lines[at - 1].endswith(SAID), lines
    # the control: a budget that holds it all shows the pair
    lines = mem("context", "--project", "billing", "--budget", "20000").stdout.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith(f"- {KEY} ("))
    assert "MAY BE OUT OF DATE" in lines[at] and lines[at - 1].endswith(SAID), lines
