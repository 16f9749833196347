"""Issue 21 item 7: decay counts a project's own activity, not wall time
elsewhere, and the session block says what went dormant and how to wake it."""

from __future__ import annotations

import json

from objstore.core.store import now_ms
from objstore.memory import decay, facts
from objstore.retrieval.context import render_context
from tests.hooks._util import payload, run_hook_done

DAY = decay.DAY_MS


def test_a_project_you_leave_does_not_decay(store):
    facts.remember(store, "project/away/db", "postgres 16")
    facts.remember(store, "project/busy/db", "mysql 8")
    t0 = now_ms()
    for i in range(1, 71):                       # 70 days of sessions in another project only
        decay.record_activity(store, ["busy"], time_ms=t0 + i * DAY)
    rep = decay.decay(store, now=t0 + 70 * DAY)
    assert [c.key for c in rep.dormant] == ["project/busy/db"]
    assert not decay.is_dormant(store, "project/away/db")
    # coming back: the facts are there at once
    block = render_context(store, ("away",))
    assert "postgres 16" in block.text
    # a project whose facts went dormant says so, with how to wake them
    block = render_context(store, ("busy",))
    assert "mysql 8" not in block.text
    assert "Dormant (not shown): 1 fact" in block.text and "project/busy/db" in block.text
    assert "mem reinforce" in block.text


def test_session_start_hook_records_the_projects_activity(tmp_path):
    store = tmp_path / "store"
    before = now_ms() // DAY
    rc, _out, _err, _ = run_hook_done(store, payload("SessionStart", "S-act", None, source="startup"))
    assert rc == 0
    days = json.loads((store / "cache" / "activity.json").read_text())["days"]
    assert days["project/proj"] == days["*"] and days["*"] in ([before], [now_ms() // DAY])   # (UTC midnight)
