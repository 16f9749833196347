"""gc's merge of each turn shard's small segments
(``SearchIndex.merge_small_segments``): fewer segments, the same documents
and search answers, a forget still purges a turn of the merged segment, and
a merge that fails publishes nothing.  Real tantivy on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from blake3 import blake3

from objstore.index import genbuild
from objstore.index.errors import SearchIndexError
from objstore.index.searchindex import PAD_KIND, IndexDoc, SearchIndex
from objstore.index.segmerge import SMALL_MERGE_DOCS, small_segments
from tests.index.test_searchindex import physical_turn_ids

CANARY = "Quorvantine-Blesswick"


def _id(n: int) -> str:
    return blake3(f"doc {n}".encode()).hexdigest()


def _doc(n: int, text: str | None = None, session: str = "s-1") -> IndexDoc:
    return IndexDoc(_id(n), "turn", session, 1_700_000_000_000 + n, "acme", "user",
                    text or f"turn {n} about the deploy of service {n % 97} on host h{n % 13}", n)


def _current(root: Path) -> str:
    return (root / "turns" / "CURRENT").read_text().splitlines()[-1]   # one shard: its generation


def _segments(root: Path) -> list[tuple[int, int]]:
    meta = json.loads((root / "turns" / _current(root) / "meta.json").read_text())
    return sorted((s["max_doc"], (s.get("deletes") or {}).get("num_deleted_docs", 0)) for s in meta["segments"])


def _answers(idx: SearchIndex, queries: list[str]) -> dict[str, list[tuple[str, float]]]:
    return {q: [(h.id, h.score) for h in idx.search(q, limit=20_000)] for q in queries}


def test_small_segments_takes_the_smallest_up_to_the_cap():
    # (max_doc, deleted): live 17,000 / 50 / 40 / 0 (all deleted) / 9,000 / 8,000
    sizes = [(17_000, 0), (60, 10), (40, 0), (5, 5), (9_000, 0), (8_000, 0)]
    assert small_segments(sizes) == {1, 2, 5}           # 40 + 50 + 8,000; 9,000 more passes the cap
    assert small_segments(sizes, cap=100) == {1, 2}
    assert small_segments(sizes, cap=60) == set()       # one segment alone is not merged
    assert small_segments([(17_000, 0), (100, 0)]) == set()
    assert SMALL_MERGE_DOCS <= 16_818   # (in tantivy's lowest merge level: 10,000 * 2**0.75)


def test_small_segments_merge_into_one_and_answers_stay(tmp_path):
    root = tmp_path / "index"
    idx = SearchIndex(root, shards=1)
    big = [_doc(n) for n in range(SMALL_MERGE_DOCS + 200)]   # above the cap: never merged
    idx.add(big)
    victim = _doc(100_077, f"the staging host is {CANARY} now")
    for b in range(4):   # four small segments, one with a delete (a turn indexed again)
        idx.add([_doc(100_000 + 100 * b + k) for k in range(50)] + ([victim] if b == 0 else []))
    idx.add([_doc(100_000, "turn 100000 indexed again about the deploy")])
    before = _segments(root)
    assert len(before) == 6 and sum(d for _m, d in before) == 1
    queries = ["deploy service 5", CANARY, "indexed again", "turn 100123", "service 42 h7"]
    answers = _answers(idx, queries)
    count = idx.doc_count()
    gen = _current(root)

    assert idx.merge_small_segments() == 4          # five small segments -> one

    after = _segments(root)
    assert _current(root) != gen and not (root / "turns" / gen).exists()
    assert len(after) == 2 and (len(big), 0) in after   # the large segment as it was (hard links)
    merged = [s for s in after if s != (len(big), 0)][0]
    # live: the small ones' (the victim with them; the turn indexed again once); deleted: the
    # padding only (8 - 5 one-document segments), not the replaced copy
    assert merged[0] - merged[1] == 4 * 50 + 1 and merged[1] == 3
    assert idx.doc_count() == count
    again = _answers(idx, queries)
    for q in queries:
        # the same documents; a score moves by less than 1/1000 of the best one (BM25 counts
        # deleted documents: the replaced copy is gone, the padding came), so near-ties may swap
        was, now = dict(answers[q]), dict(again[q])
        assert now.keys() == was.keys() and len(was) < 20_000, q
        top = max(was.values())
        assert all(abs(now[i] - was[i]) <= 1e-3 * top for i in was), q
    assert [i for i, _s in again["turn 100123"]][:1] == [_doc(100_123).id]
    assert [h.id for h in idx.search(CANARY)] == [victim.id]
    assert PAD_KIND not in {h.kind for h in idx.search("turn deploy", limit=500)}
    assert idx.verify() == []
    assert idx.merge_small_segments() == 0          # nothing left to merge: nothing written
    assert _segments(root) == after

    # a forget of a turn in the merged segment still leaves no byte of it
    assert idx.purge_turns({victim.id}, load=lambda ids: []) == set()
    assert idx.verify_purged([victim.id]) == []
    assert victim.id not in physical_turn_ids(root) and big[0].id in physical_turn_ids(root)
    assert idx.search(CANARY) == []
    for p in root.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            assert b"quorvantine" not in data and b"Quorvantine" not in data, p
    idx.close()


def test_a_failed_merge_publishes_nothing(tmp_path, monkeypatch):
    """A merge whose graft fails (here: made to fail, as a full disk would)
    leaves CURRENT, the live generation and the answers as they were, and no
    new generation directory behind."""
    root = tmp_path / "index"
    idx = SearchIndex(root, shards=1)
    for b in range(3):
        idx.add([_doc(1000 * b + k) for k in range(30)])
    current = (root / "turns" / "CURRENT").read_bytes()
    answers = _answers(idx, ["deploy service 5", "host h3"])
    dirs = sorted(p.name for p in (root / "turns").iterdir())

    def fail(*_a, **_k):
        raise SearchIndexError("no space left on device")

    monkeypatch.setattr(genbuild, "graft_segments", fail)   # segmerge imports it where it merges
    assert idx.merge_small_segments() == 0
    assert (root / "turns" / "CURRENT").read_bytes() == current
    assert sorted(p.name for p in (root / "turns").iterdir()) == dirs
    assert _answers(idx, ["deploy service 5", "host h3"]) == answers
    monkeypatch.undo()
    assert idx.merge_small_segments() == 2 and len(_segments(root)) == 1
    assert _answers(idx, ["deploy service 5", "host h3"]).keys() == answers.keys()
    idx.close()


def test_a_killed_merge_leaves_an_orphan_the_next_writer_removes(tmp_path):
    """A process killed after it wrote the new generation but before it
    published it: CURRENT still names the old one, which answers; the next
    merge removes the orphan and publishes its own."""
    from objstore.index.genbuild import isolate_segments
    root = tmp_path / "index"
    idx = SearchIndex(root, shards=1)
    for b in range(3):
        idx.add([_doc(1000 * b + k) for k in range(30)])
    sub = idx._subs["turn"]
    gen = _current(root)
    with sub.locked():
        orphan, _index, _meta = isolate_segments(sub, gen, {0, 1})   # what the killed merge left
    del _index
    assert (root / "turns" / orphan).is_dir() and _current(root) == gen
    assert len(idx.search("deploy", limit=500)) == 90
    assert idx.merge_small_segments() == 2
    # (the orphan went first, so its number may be taken again)
    assert sorted(p.name for p in (root / "turns").glob("gen-*")) == [_current(root)] != [gen]
    assert len(_segments(root)) == 1
    assert len(idx.search("deploy", limit=500)) == 90
    idx.close()


@pytest.mark.parametrize("shards", [4])
def test_every_shard_is_merged_on_its_own(tmp_path, shards):
    root = tmp_path / "index"
    idx = SearchIndex(root, shards=shards)
    sessions = [f"s-{k}" for k in range(12)]
    for b in range(3):
        idx.add([_doc(1000 * b + k, session=sessions[k % 12]) for k in range(120)])
    lines = (root / "turns" / "CURRENT").read_text().splitlines()[1:]
    segs = [len(json.loads((root / "turns" / g / "meta.json").read_text())["segments"]) for g in lines if g != "-"]
    ids = sorted(h.id for h in idx.search("deploy", limit=1000))
    fewer = idx.merge_small_segments()
    lines = (root / "turns" / "CURRENT").read_text().splitlines()[1:]
    after = [len(json.loads((root / "turns" / g / "meta.json").read_text())["segments"]) for g in lines if g != "-"]
    assert fewer == sum(segs) - len(after) and all(n == 1 for n in after)
    assert sorted(h.id for h in idx.search("deploy", limit=1000)) == ids and len(ids) == 360
    idx.close()


def _fast_bytes(root: Path) -> int:
    gen = root / "turns" / _current(root)
    return sum(p.stat().st_size for p in gen.glob("*.fast"))


def test_the_padding_leaves_the_merged_columns_as_small(tmp_path):
    # session 29 (sz29): a padding document without a value in the fast columns made every column of
    # the merged segment an optional one (+4.4 bytes a document: the bench store's .fast 801 -> 964 KB
    # after gc; here 193,594 -> 258,664 bytes); with a value in each (an i64 one the segment's own),
    # the merged segment's columns take less than a byte a document more than the small segments'
    # (196,917 bytes)
    root = tmp_path / "index"
    idx = SearchIndex(root, shards=1)
    for b in range(4):
        idx.add([_doc(1_500 * b + k, session=f"s-{b}") for k in range(1_500)])
    before = _fast_bytes(root)
    ids = sorted(h.id for h in idx.search("deploy", limit=10_000))
    assert len(_segments(root)) == 4 and len(ids) == 6_000

    assert idx.merge_small_segments() == 3
    merged = _segments(root)
    assert len(merged) == 1 and merged[0][1] > 0          # the padding, deleted, is in it
    assert _fast_bytes(root) <= before + 6_000
    assert sorted(h.id for h in idx.search("deploy", limit=10_000)) == ids
    hit = idx.search("turn 4077", limit=1)[0]
    assert (hit.id, hit.time, hit.seq) == (_doc(4_077).id, 1_700_000_004_077, 4_077)
    assert idx.verify() == [] and PAD_KIND not in {h.kind for h in idx.search("turn deploy", limit=500)}
    # a forget of a turn of the merged segment still proves it gone (the padding's column values
    # are no id: `held_ids` reads every document, deleted ones too)
    assert idx.purge_turns({_doc(3_005).id}, load=lambda ids: []) == set()
    assert idx.verify_purged([_doc(3_005).id]) == []
    assert _doc(3_005).id not in physical_turn_ids(root) and _doc(5).id in physical_turn_ids(root)
    idx.close()


def test_a_padding_document_holds_a_value_in_each_fast_column(tmp_path):
    from objstore.index.purge import PAD_ID_BYTES, pad_document, pads_take_values
    # gc's small merge (a few pads) gets the values, a forget's merge of a large level padded with
    # several times its documents (83,461 beside 20,050 at 2.07M turns) does not
    assert pads_take_values(6, 1, 9_662) and pads_take_values(2, 5, 10)
    assert not pads_take_values(7, 11_923, 20_050) and not pads_take_values(1, 11, 10)
    root = tmp_path / "index"
    idx = SearchIndex(root, shards=1)
    idx.add([_doc(7, session="s-7")])
    gen = root / "turns" / _current(root)
    pad = pad_document(gen).to_dict()
    fields = {f["name"]: f for f in json.loads((gen / "meta.json").read_text())["schema"]}
    fast = {n for n, f in fields.items() if (f.get("options") or {}).get("fast") and f["type"] in ("u64", "i64")}
    assert fast and fast <= set(pad) and pad["kind"] == [PAD_KIND]
    assert pad["oid0"] == [int.from_bytes(PAD_ID_BYTES[:8], "big")] and PAD_ID_BYTES[:16] == b"padding-document"
    assert all(pad[n] == [0] for n in fast if fields[n]["type"] == "i64")   # no index given: 0
    idx.close()
