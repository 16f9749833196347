"""mem eval: supersession (Stale@1 = 0 for the rule), injection, LoCoMo."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO, shared_path


def test_supersession_rule_is_never_stale(mem):
    r = mem("eval", "supersession", str(REPO / "eval" / "supersession.json"), "--json").json
    assert r["keys"] >= 30 and r["backfills"] >= 5 and r["questions"] >= r["keys"]
    assert r["rule"]["stale@1"] == 0 and r["stale_cases"] == []
    assert r["rule"]["hit@1"] >= 0.85
    assert r["similarity"]["stale@1"] > 0.3  # the baseline that motivates the rule
    text = mem("eval", "supersession", str(REPO / "eval" / "supersession.json")).stdout
    assert "rule" in text and "similarity" in text and "Stale@1" in text


def test_supersession_file_errors(invoke, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert "not a JSON file" in invoke("eval", "supersession", str(bad), exit_code=2).stderr
    bad.write_text(json.dumps({"keys": [{"key": "nokey", "writes": [{"value": "x"}], "questions": ["q"]}]}))
    invoke("eval", "supersession", str(bad), exit_code=2)
    bad.write_text(json.dumps({"keys": [{"key": "user/x", "writes": [{"value": "x", "valid_from": "soon"}],
                                         "questions": ["q"]}]}))
    assert "ISO 8601" in invoke("eval", "supersession", str(bad), exit_code=2).stderr
    invoke("eval", "supersession", str(tmp_path / "missing.json"), exit_code=4)


def test_eval_never_touches_the_users_store(invoke, store_path):
    invoke("eval", "supersession", str(REPO / "eval" / "supersession.json"))
    assert not store_path.exists()


def test_injection_gate_quality(mem):
    r = mem("eval", "injection", str(REPO / "eval" / "injection.json"), "--json").json
    assert r["prompts"] >= 60 and r["needing"] < r["prompts"] / 2
    assert r["precision"] >= 0.9 and r["false_injection_share"] <= 0.05 and r["recall"] >= 0.75
    assert r["turn_expected_hits"] >= 1
    assert len(r["rows"]) == r["prompts"]


def test_locomo_small_run(invoke):
    path = shared_path("data", "locomo", "locomo10.json")
    r = invoke("eval", "locomo", str(path), "--conversations", "1", "--json").json
    assert r["conversations"] == 1 and r["questions"] > 100
    assert len(r["rows"]) == 12 and r["rows"][-1]["step"].endswith("= default")
    for row in r["rows"]:
        assert 0 <= row["recall@5"] <= row["recall@10"] <= 1
    assert r["rows"][-1]["recall@10"] > r["rows"][0]["recall@10"]


def test_locomo_default_reaches_the_target(invoke):
    """The acceptance figure: the default pipeline on all of LoCoMo, no model."""
    path = shared_path("data", "locomo", "locomo10.json")
    r = invoke("eval", "locomo", str(path), "--default-only", "--json").json
    assert r["questions"] == 1982
    row = r["rows"][0]
    assert row["recall@5"] >= 0.65 and row["recall@10"] >= 0.75, row  # measured 0.671 / 0.770 (issue 20)


def test_locomo_bad_file(invoke, tmp_path):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"a": 1}))
    assert "not a LoCoMo file" in invoke("eval", "locomo", str(p), exit_code=2).stderr
