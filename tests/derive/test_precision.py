"""The labelled derive set (eval/derive_precision.json) through derive's rules
with a scripted loopback provider: the figures docs/benchmarks.md reports
("Derive: precision of admitted facts").  Skips where ../shared is absent."""

from __future__ import annotations

import json

from tests.conftest import REPO, shared_path


def test_labelled_set_gives_the_documented_precision(tmp_path):
    transcripts = shared_path("data", "transcripts")
    import sys
    sys.path.insert(0, str(REPO))
    from bench.derive_precision import LABELS, measure
    spec = json.loads(LABELS.read_text())
    assert all(set(p) >= {"session", "key", "kind", "value", "turns", "label"} for p in spec["proposals"])
    assert all(len(p["value"]) <= 200 for p in spec["proposals"])   # short values, no transcript text
    r = measure(transcripts, LABELS, tmp_path)
    assert r["failed"] == {} and r["placed"] == r["proposals"] == r["decided"] == 48  # each proposal decided once
    assert (r["right"], r["wrong"]) == (28, 20)
    assert (r["admitted"], r["admitted_right"]) == (23, 17)                     # precision 0.739
    assert r["by_rule"]["out-of-scope"] == {"right": 3, "wrong": 1}             # test29 P17: global/ queued
    # session 38 (test37b T11): a value the cited turn only asks about is no evidence (2 more wrong turned away)
    assert (r["evidence_rejected_wrong"], r["evidence_rejected_right"]) == (9, 7)
    # session 24: polarity; session 37 (test37 T2): a moving count paired with another count's subject, and a
    # global/ proposal (queued out-of-scope before) pairing a value with another value's subject
    assert r["by_rule"]["negated"] == {"right": 0, "wrong": 4}
    assert r["by_rule"]["invalid"] == {"right": 1, "wrong": 0}
