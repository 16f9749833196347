"""``mem eval namespaces`` on eval/namespaces.json: no sibling leak, and a
parent's questions answered by its sub-agents' conclusions first."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_eval_namespaces_has_no_sibling_leak_and_conclusions_come_first(invoke):
    r = invoke("eval", "namespaces", str(REPO / "eval" / "namespaces.json"), "--json")
    j = json.loads(r.stdout)
    assert j["sibling_leaks"] == 0 and j["leaks"] == []
    assert j["agents"] >= 8 and j["reads"] > 100 and j["questions"] >= 8
    assert j["rollups_ok"] == j["agents"] and j["did_not_complete"] == 1
    assert j["conclusion_first"] >= 0.75 > j["flat_conclusion_first"]


def test_eval_namespaces_counts_a_leak(tmp_path, invoke, monkeypatch):
    """The check is real: with the visibility rule switched off, siblings leak and the command fails."""
    import objstore.memory.scope as scope
    monkeypatch.setattr(scope, "namespace_rank", lambda reader, ns: 0)
    import objstore.memory.facts as facts
    import objstore.retrieval.context as context
    import objstore.retrieval.inject as inject
    import objstore.retrieval.recall as recall
    for m in (facts, context, inject, recall):   # facts imports it when it reads a namespaced version (from scope)
        if hasattr(m, "namespace_rank"):
            monkeypatch.setattr(m, "namespace_rank", lambda reader, ns: 0)
    monkeypatch.setattr(scope, "visibility", lambda key, ns, projects, reader: 0 if scope.applies(key, projects)
                        else None)
    for m in (context, inject, recall):
        monkeypatch.setattr(m, "visibility", scope.visibility)
    r = invoke("eval", "namespaces", str(REPO / "eval" / "namespaces.json"), exit_code=1)
    assert "LEAK" in r.stderr
