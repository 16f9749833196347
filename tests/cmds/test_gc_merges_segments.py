"""``mem gc`` merges a turn shard's small segments (the real command on a
real store): two imports leave two segments, gc leaves one, and search,
recall and fsck answer as before."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects")) / "-home-dev-acme-api"


def _segments(store: Path) -> int:
    turns = store / "index" / "turns"
    lines = (turns / "CURRENT").read_text().splitlines()
    gens = [g for g in (lines[1:] if lines[0].startswith("shards ") else lines) if g != "-"]
    return sum(len(json.loads((turns / g / "meta.json").read_text())["segments"]) for g in gens)


def test_gc_merges_the_segments_two_imports_left(invoke, store_path, tmp_path):
    project = tmp_path / "projects" / "-home-dev-acme-api"
    project.mkdir(parents=True)
    shutil.copy(SAMPLE / "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11.jsonl", project)
    invoke("import", "claude-code", str(tmp_path / "projects"))
    shutil.copy(SAMPLE / "a3e1d7b0-1c2f-4b8a-9e55-7c6d0f9b2e33.jsonl", project)
    invoke("import", "claude-code", str(tmp_path / "projects"))
    before = _segments(store_path)
    assert before >= 2
    queries = [["flaky", "fixture"], ["postgres"], ["deploy"]]
    found = {tuple(q): sorted(h["id"] for h in invoke("search", *q, "--json", "-n", "50").json) for q in queries}
    assert any(found.values())
    recalled = invoke("recall", "--all-projects", "--json", "flaky fixture").json["hits"]
    # --dry-run says which shard's segments it would merge, and changes nothing (fix14)
    dry = invoke("gc", "--dry-run", "--json").json
    assert dry["segments_merged"] == 0 and _segments(store_path) == before
    [plan] = dry["segment_merges"]
    assert plan["segments"] == before and plan["documents"] > 0
    assert (store_path / "index" / "turns" / plan["generation"] / "meta.json").is_file()
    said = invoke("gc", "--dry-run").stdout   # what merges into what, and what it saves (tester s14)
    assert (f"would merge {before} small search index segments of turns generation {plan['generation']} "
            f"({plan['documents']} documents in all) into one segment: {before - 1} segment") in said, said
    r = invoke("gc", "--json").json
    assert r["segments_merged"] == before - _segments(store_path) >= 1
    for q in queries:
        assert sorted(h["id"] for h in invoke("search", *q, "--json", "-n", "50").json) == found[tuple(q)]
    # the same turns recalled; BM25 counts deleted documents, so in a store of a few dozen turns
    # the merge's deleted padding (at most 7 documents) may swap two near-tied hits
    again = invoke("recall", "--all-projects", "--json", "flaky fixture").json["hits"]
    assert sorted(h["id"] for h in again) == sorted(h["id"] for h in recalled)
    assert again[0]["id"] == recalled[0]["id"]
    assert invoke("fsck", "--json").json["ok"]
    assert invoke("gc", "--json").json["segments_merged"] == 0   # nothing left to merge
    assert invoke("gc", "--dry-run", "--json").json["segment_merges"] == []
    assert "segments fewer" not in invoke("gc").stdout
