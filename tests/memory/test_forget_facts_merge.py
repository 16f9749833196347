"""Forget purges the facts' index by a padded merge (``SearchIndex.purge_facts``)
instead of analysing every current fact again: the forgotten value leaves no
byte in any file of the index, the other keys' documents (their older
versions, kind ``history``, included) stay searchable, and a rewritten key's
new versions are indexed.  Real stores, real tantivy, no mocks."""

from __future__ import annotations

from pathlib import Path

from objstore.index.searchindex import SearchIndex
from objstore.memory.facts import list_keys, remember, walk
from objstore.memory.forget import forget, scan_store
from objstore.retrieval.search import search

CANARY = "Quillbrask-Vantorel"


def _raw_hits(root: Path, needle: bytes) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes().lower()]


def _calls(monkeypatch) -> dict:
    seen = {"facts": [], "rebuild": 0}
    purge_facts, purge = SearchIndex.purge_facts, SearchIndex.purge

    def facts(self, doomed, load, add):
        ok = purge_facts(self, doomed, load, add)
        seen["facts"].append(ok)
        return ok

    def whole(self, kind, survivors, **kw):
        seen["rebuild"] += kind in ("fact", "history")
        return purge(self, kind, survivors, **kw)
    monkeypatch.setattr(SearchIndex, "purge_facts", facts)
    monkeypatch.setattr(SearchIndex, "purge", whole)
    return seen


def test_forget_of_a_version_merges_the_facts_index(store, monkeypatch):
    for i in range(40):
        remember(store, f"project/m/k{i}", f"value {i} of the deploy settings, port {8000 + i}")
    remember(store, "project/m/k3", "the older port was replaced by marmalade-9931 later")
    remember(store, "project/m/k3", "port 9100 now")
    remember(store, "project/m/pw", f"the db password is {CANARY} today")
    remember(store, "project/m/pw", "rotated: the db password is in the vault")
    seen = _calls(monkeypatch)
    pw_v1 = [v.id for v in walk(store, dict(list_keys(store))["project/m/pw"])][-1]
    res = forget(store, what=pw_v1)
    assert res.index_problems == []
    assert seen == {"facts": [True], "rebuild": 0}
    assert _raw_hits(store.root / "index", CANARY.lower().encode()) == []
    assert scan_store(store.root / "index", [CANARY.encode(), CANARY.lower().encode()]) == []
    # the rewritten key's current value and another key's older version are still found
    assert any(h.ref == "project/m/pw" for h in search(store, "rotated vault password"))
    assert any(h.ref == "project/m/k3" for h in search(store, "marmalade-9931", kinds=("fact", "history")))


def test_forget_of_a_whole_key_merges_and_a_second_forget_too(store, monkeypatch):
    for i in range(30):
        remember(store, f"project/n/k{i}", f"note {i} about the build cache and the runner")
    remember(store, "project/n/secret", f"token {CANARY} for staging")
    remember(store, "project/n/other", "ferrous-wombat-1212 is the staging host")
    seen = _calls(monkeypatch)
    assert forget(store, what="project/n/secret").index_problems == []
    assert forget(store, match="ferrous-wombat-1212").index_problems == []
    assert seen["rebuild"] == 0 and seen["facts"] == [True, True]
    for needle in (CANARY.lower().encode(), b"ferrous-wombat-1212"):
        assert _raw_hits(store.root / "index", needle) == []
    assert len(search(store, "build cache runner", limit=50)) >= 10


def _fact_segments(store) -> list[str]:
    import json
    sub = store.index._subs["fact"]
    (_s, name), = sub.manifest().live()
    return [s["segment_id"] for s in json.loads((sub.dir / name / "meta.json").read_text())["segments"]]


def test_forget_of_a_fact_in_a_small_segment_merges_that_segment_alone(store, monkeypatch):
    # the facts of an import in one large segment (a reindex writes them in one commit),
    # then a later fact alone in a small one: its forget merges the small one alone
    # (an isolated padded merge), and the large segment stays as it was, files and all
    from objstore.retrieval.search import reindex
    for i in range(60):
        remember(store, f"project/s/k{i}", f"summary {i} of a sub-agent's work on the parser and its tests")
    reindex(store)
    big = _fact_segments(store)
    assert len(big) == 1
    remember(store, "project/s/late", f"the staging host is {CANARY} until friday")
    assert len(_fact_segments(store)) == 2
    seen = _calls(monkeypatch)
    res = forget(store, match=CANARY)
    assert res.index_problems == []
    assert seen == {"facts": [True], "rebuild": 0}
    assert big[0] in _fact_segments(store)          # the large segment was not merged
    assert _raw_hits(store.root / "index", CANARY.lower().encode()) == []
    assert scan_store(store.root / "index", [CANARY.encode(), CANARY.lower().encode()]) == []
    assert len(search(store, "sub-agent parser tests", limit=100)) >= 50
    assert "project/s/late" not in dict(list_keys(store))
