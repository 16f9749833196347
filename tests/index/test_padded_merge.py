"""Forget's padded merge (``SearchIndex._purge_by_padded_merge``): a turn in
a segment too large for the bottom merge level is purged by a merge of only
its level, in a new generation, with no byte of its text left in any file
of the index.  Real tantivy on real files, no mocks."""

from __future__ import annotations

import json
from pathlib import Path

from blake3 import blake3

from objstore.index.generations import merge_levels, pad_plan
from objstore.index.searchindex import PAD_KIND, IndexDoc, SearchIndex
from tests.index.test_searchindex import physical_turn_ids

CANARY = "Zorblatquux-Wexbrindle"


def _id(n: int) -> str:
    return blake3(f"doc {n}".encode()).hexdigest()


def _doc(n: int, text: str | None = None, session: str = "s-1") -> IndexDoc:
    return IndexDoc(_id(n), "turn", session, 1_700_000_000_000 + n, "acme", "user",
                    text or f"turn {n} about the deploy of service {n % 97} on host h{n % 13}", n)


def _segments(gen: Path) -> list[tuple[str, int, int]]:
    meta = json.loads((gen / "meta.json").read_text())
    return [(s["segment_id"].replace("-", ""), s["max_doc"], (s.get("deletes") or {}).get("num_deleted_docs", 0))
            for s in meta["segments"]]


def _gen(root: Path) -> Path:
    lines = (root / "turns" / "CURRENT").read_text().splitlines()  # one shard: "gen-N"
    return root / "turns" / lines[-1]


def _raw_hits(root: Path, needles: list[bytes]) -> list[str]:
    out = []
    for p in root.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            out += [f"{p}: {n!r}" for n in needles if n in data]
    return out


def test_pad_plan_follows_tantivys_levels():
    # one 20,000-document segment (log2 14.29) and three small ones (counted as 10,000: log2 13.29,
    # a level below): the large one is padded alone, with 7 segments of 2**(14.29-0.75)+ documents
    segs = [(20_000, 20_000), (30, 30), (10, 10), (5, 5)]
    levels = merge_levels(segs)
    assert [m for _s, m in levels] == [[0], [1, 2, 3]]
    pads, per = pad_plan(segs, {0})
    assert pads == 7 and 11_892 <= per <= 11_900
    # the small ones are in the lowest level: one-document pads, as many as the level lacks
    assert pad_plan(segs, {2}) == (5, 1)
    # targets in two levels: no padding merges them both
    assert pad_plan(segs, {0, 2}) is None


def test_a_turn_in_a_large_segment_is_purged_by_a_merge_of_its_level(tmp_path):
    root = tmp_path / "index"
    idx = SearchIndex(root, shards=1)
    victim = _doc(7_777, f"the staging host is {CANARY} today")
    big = [_doc(n) for n in range(20_000) if n != 7_777] + [victim]
    idx.add(big)
    for b in range(3):  # three small segments, a level below the large one
        idx.add([_doc(100_000 + 10 * b + k) for k in range(10)])
    idx.add([_doc(100_000)])  # indexed again: a delete (of a document kept) in a small segment
    gen = _gen(root)
    before = _segments(gen)
    assert len(before) == 5 and max(m for _s, m, _d in before) == 20_000
    assert sum(d for _s, _m, d in before) == 1
    assert idx.term_doc_freq(CANARY) == {"zorblatquux": 1, "wexbrindle": 1}

    tail = _doc(200_000, "the rewritten tail of the session", session="s-1")
    todo = idx.purge_turns({victim.id}, load=lambda ids: [], add=[tail])

    assert todo == set()
    new = _gen(root)
    assert new != gen and not gen.exists()  # a new generation, published; the old one removed
    after = _segments(new)
    small = {s for s, m, _d in before if m < 1000}  # (the delete there stays: it holds a kept document)
    assert small <= {s for s, _m, _d in after}  # the level below was not merged (hard links)
    merged = [x for x in after if x[0] not in small and x[1] > 20_000]
    assert len(merged) == 1 and merged[0][2] == merged[0][1] - 19_999  # only padding is deleted
    assert idx.term_doc_freq(CANARY) == {"zorblatquux": 0, "wexbrindle": 0}
    assert not _raw_hits(root, [b"zorblatquux", b"Zorblatquux", b"wexbrindl", b"Wexbrindle", victim.id.encode(), bytes.fromhex(victim.id)])
    assert victim.id not in physical_turn_ids(root) and big[0].id in physical_turn_ids(root)
    assert idx.doc_count()["turn"] == 20_000 - 1 + 30 + 1
    assert [h.id for h in idx.search("rewritten tail")] == [tail.id]
    assert {h.id for h in idx.search("service 5 deploy", limit=3)} <= {d.id for d in big}
    assert idx.verify() == [] and idx.verify_purged([victim.id]) == []

    # a second forget in the same shard: the deleted padding goes with the next merge
    victim2 = big[123]
    assert idx.purge_turns({victim2.id}, load=lambda ids: []) == set()
    assert idx.verify_purged([victim2.id]) == []
    assert idx.doc_count()["turn"] == 20_000 - 2 + 30 + 1
    searcher_pads = sum(d for _s, _m, d in _segments(_gen(root)))
    assert searcher_pads < 7 * 12_000  # one round of padding left, not two
    assert PAD_KIND not in {h.kind for h in idx.search("turn deploy", limit=50)}


def test_without_hard_links_the_segments_are_written_again(tmp_path, monkeypatch):
    """A filesystem without hard links: the padded merge is not tried, and the
    segments holding the turn are written again from the documents (as before)."""
    import errno

    def no_link(*_a, **_k):
        raise OSError(errno.EPERM, "hard links not supported")

    root = tmp_path / "index"
    idx = SearchIndex(root, shards=1)
    victim = _doc(77, f"the staging host is {CANARY} today")
    docs = [_doc(n) for n in range(17_000) if n != 77] + [victim]
    idx.add(docs)
    by_id = {d.id: d for d in docs}
    gen = _gen(root)
    monkeypatch.setattr("objstore.index.generations.os.link", no_link)
    assert idx.purge_turns({victim.id}, load=lambda ids: [by_id[i] for i in ids if i in by_id]) == set()
    assert _gen(root) == gen  # rewritten in place
    assert idx.term_doc_freq(CANARY) == {"zorblatquux": 0, "wexbrindle": 0}
    assert idx.doc_count()["turn"] == 16_999 and idx.verify_purged([victim.id]) == []
    assert [p.name for p in (root / "turns").iterdir() if p.name.startswith("gen-")] == [gen.name]


def test_a_generation_left_by_a_killed_purge_goes_with_the_next_purge(tmp_path):
    """A purge killed after publishing its new generation and before removing
    the one it replaced leaves that directory (the forgotten text in it); the
    resumed purge removes it even though no live generation holds the turn."""
    import shutil
    root = tmp_path / "index"
    idx = SearchIndex(root, shards=1)
    victim = _doc(5, f"the staging host is {CANARY} today")
    idx.add([_doc(n) for n in range(50) if n != 5] + [victim])
    live = _gen(root)
    left = live.parent / "gen-999"
    shutil.copytree(live, left)  # what the killed purge left: the old generation, not named by CURRENT
    assert idx.purge_turns({victim.id}, load=lambda ids: []) == set()
    assert not left.exists()
    assert idx.purge_turns({victim.id}, load=lambda ids: []) == set()  # nothing left to do: no error
    assert not _raw_hits(root, [b"zorblatquux", b"Zorblatquux"]) and idx.verify_purged([victim.id]) == []


def test_the_segment_holding_a_turn_is_merged_alone_and_its_level_peers_are_kept(tmp_path):
    """[isolated merge] A turn in a segment whose level holds another large
    segment: only its segment is merged (with the padding, in a generation
    that lists it alone), and the peer is linked back as it was (same files,
    same inodes); nothing of the turn is left in any file."""
    root = tmp_path / "index"
    idx = SearchIndex(root, shards=1)
    victim = _doc(5_555, f"the staging host is {CANARY} today")
    first = [_doc(n) for n in range(17_000) if n != 5_555] + [victim]
    idx.add(first)
    peer = [_doc(50_000 + n) for n in range(12_000)]   # log2 13.55: the same level as 17,000 (14.05)
    idx.add(peer)
    gen = _gen(root)
    before = _segments(gen)
    assert sorted(m for _s, m, _d in before) == [12_000, 17_000]
    assert [m for _s, m in merge_levels([(m, m) for _s, m, _d in before])] == [[0, 1]]
    peer_seg = next(s for s, m, _d in before if m == 12_000)
    inodes = {p.name: p.stat().st_ino for p in gen.iterdir() if p.name.startswith(peer_seg)}

    assert idx.purge_turns({victim.id}, load=lambda ids: []) == set()

    new = _gen(root)
    assert new != gen and not gen.exists()
    after = _segments(new)
    assert (peer_seg, 12_000, 0) in after   # the peer is not merged: linked back, files and all
    assert {p.name: p.stat().st_ino for p in new.iterdir() if p.name.startswith(peer_seg)} == inodes
    merged = [x for x in after if x[0] != peer_seg]
    assert len(merged) == 1 and merged[0][1] - merged[0][2] == 16_999   # only padding is deleted
    assert json.loads((new / ".managed.json").read_text()) == sorted(
        p.name for p in new.iterdir() if p.name.split(".", 1)[0] in {s for s, _m, _d in after} or p.name == "meta.json")
    assert idx.term_doc_freq(CANARY) == {"zorblatquux": 0, "wexbrindle": 0}
    assert not _raw_hits(root, [b"zorblatquux", b"Zorblatquux", b"wexbrindl", b"Wexbrindle", victim.id.encode(),
                                bytes.fromhex(victim.id)])
    assert victim.id not in physical_turn_ids(root)
    assert idx.doc_count()["turn"] == 17_000 - 1 + 12_000
    assert idx.verify() == [] and idx.verify_purged([victim.id]) == []
    assert {h.id for h in idx.search("turn 50007", limit=1)} == {_id(50_007)}   # the peer answers
    assert PAD_KIND not in {h.kind for h in idx.search("turn deploy", limit=50)}


def test_isolated_merge_that_cannot_be_completed_rebuilds_the_shard(tmp_path, monkeypatch):
    """[isolated merge] When the other segments cannot be linked back (here:
    ``graft_segments`` fails as on a full disk), the isolated generation is
    removed and the caller is told to rebuild the shard; the live
    generation is untouched until then."""
    from objstore.index.errors import SearchIndexError

    def fail(*_a, **_k):
        raise SearchIndexError("disk full")

    root = tmp_path / "index"
    idx = SearchIndex(root, shards=1)
    victim = _doc(5_555, f"the staging host is {CANARY} today")
    idx.add([_doc(n) for n in range(17_000) if n != 5_555] + [victim])
    gen = _gen(root)
    monkeypatch.setattr("objstore.index.genbuild.graft_segments", fail)
    assert idx.purge_turns({victim.id}, load=lambda ids: []) == {0}
    assert _gen(root) == gen and sorted(p.name for p in (root / "turns").iterdir() if p.name.startswith("gen-")) \
        == [gen.name]
