"""Dated, budgeted delivery: dates on injected facts, moving values left out
of the session block when old, budgets from config.toml, tokens in the
trace, and a stale turn never injected without the current fact."""

from __future__ import annotations

import json

from recall_helpers import turn

from objstore.core.store import now_ms
from objstore.memory.facts import current_version, remember
from objstore.retrieval.context import (
    DEFAULT_PROMPT_BUDGET,
    load_context_config,
    moving_kind,
    render_context,
    session_start_block,
)
from objstore.retrieval.inject import inject_for_prompt

DAY = 86_400_000


def test_facts_carry_their_date_and_moving_values_age_out(store):
    now = now_ms()
    remember(store, "project/acme/port", "The api listens on 8443")
    remember(store, "project/acme/sdk", "The SDK is at version 2.4.1", valid_from=now - 90 * DAY)
    remember(store, "project/acme/ci", "CI is green on main", valid_from=now - 2 * DAY)
    b = render_context(store, ("acme",))
    recorded = current_version(store, "project/acme/port")[1].recorded_at     # (not now: UTC midnight)
    today = __import__("time").strftime("%Y-%m-%d", __import__("time").gmtime(recorded / 1000))
    assert f"- project/acme/port (recorded {today}): The api listens on 8443" in b.text
    assert "a status that may have moved" in b.text  # CI is green: moves, still young
    assert "2.4.1" not in b.text and b.stale_moving == ["project/acme/sdk"]  # a 90-day-old version
    keep = render_context(store, ("acme",), moving_max_age_days=365)
    assert "2.4.1" in keep.text and "a version that may have moved" in keep.text
    assert moving_kind("Postgres 16 on port 5433") is None
    assert moving_kind("p95 latency is 120 ms") == "measurement"
    assert moving_kind("the release is blocked") in ("version", "status")


def test_budgets_come_from_config_and_the_trace_counts_tokens(store, store_path, tmp_path):
    for i in range(30):
        remember(store, f"project/acme/note-{i:02d}", f"note {i} about the deploy pipeline " + "word " * 20)
    assert load_context_config(store_path).prompt_budget == DEFAULT_PROMPT_BUDGET == 600
    assert render_context(store, ("acme",)).budget == 1500
    (store_path / "config.toml").write_text("[context]\nsession_budget = 200\nprompt_budget = 80\n")
    small = render_context(store, ("acme",))
    assert small.budget == 200 and small.tokens <= 200 and small.omitted > 0
    trace = tmp_path / "trace.jsonl"
    session_start_block(store, "s1", "startup", None, project="acme", trace_path=trace)
    inj = inject_for_prompt(store, "s1", "note 7 about the deploy pipeline", project="acme", trace_path=trace)
    recs = [json.loads(x) for x in trace.read_text().splitlines()]
    assert recs[0]["event"] == "SessionStart" and 0 < recs[0]["tokens"] <= 200 and recs[0]["budget"] == 200
    assert recs[1]["event"] == "UserPromptSubmit" and recs[1]["budget"] == 80
    assert recs[1]["tokens"] == (len(inj.text) + 3) // 4 and recs[1]["tokens"] <= 80
    (store_path / "config.toml").write_text("[context]\nprompt_budget = 'lots'\n")
    assert inject_for_prompt(store, "s2", "deploy pipeline", project="acme").trace["budget"] == 600  # fails open


def test_a_stale_turn_comes_with_the_current_fact(store, add_sessions):
    add_sessions({"old": [turn("the flaky database fixture: which postgres do we use?", ts=1_740_000_000_000),
                          turn("Understood: Postgres 15, port 5432, locally and in CI. The flaky fixture "
                               "now uses a session-scoped pool.", "assistant", ts=1_740_000_060_000)]})
    remember(store, "project/acme/db", "Postgres 15 on port 5432", valid_from=1_730_000_000_000)
    remember(store, "project/acme/db", "Postgres 16 on port 5433")
    inj = inject_for_prompt(store, "p1", "the flaky database fixture again: which postgres do we run locally and in CI?",
                            project="acme")
    if "5432" in inj.text:  # the old turn was injected: then the current value is too, above it
        assert "Postgres 16 on port 5433" in inj.text
        assert inj.text.index("5433") < inj.text.index("5432")
        assert "(recorded " in inj.text
    kinds = [c.kind for c in inj.injected]
    assert "turn" not in kinds or "fact" in kinds


def test_cli_context_prompt_budget_and_json(store, invoke):
    remember(store, "project/acme/queue", "Background jobs use Celery with Redis 7 on port 6380")
    j = invoke("context", "--project", "acme", "--prompt", "celery redis jobs stuck", "--prompt-budget", "300",
               "--json").json
    assert j["budget"] == 300 and j["tokens"] > 0 and "(recorded " in j["text"]
    b = invoke("context", "--project", "acme", "--json").json
    assert b["budget"] == 1500 and b["stale_moving"] == []
