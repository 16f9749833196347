"""``SearchIndex.missing_turns`` over many heads in a sharded turns index of
several segments a shard: present, never indexed, deleted but not purged
(present: its columns are still in the segment), and purged (missing).  The
expected answer is read from the generations' files independently
(``physical_turn_ids``), so a wrong set — a segment skipped, a doc id
mapped to the wrong segment, a deleted copy missed — fails here."""

from __future__ import annotations

import hashlib
from pathlib import Path

import objstore.index.genfiles as genfiles
from objstore.index.searchindex import IndexDoc, SearchIndex
from tests.index.test_searchindex import physical_turn_ids


def oid(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def sturn(seed: str, session: str, text: str, seq: int = 0) -> IndexDoc:
    return IndexDoc(oid(seed), "turn", session, 1, "x", "user", text, seq)


def test_missing_turns_over_many_heads_present_absent_deleted_and_purged(tmp_path: Path) -> None:
    ix = SearchIndex(tmp_path / "store" / "index")
    try:
        sessions = [f"session-{i}" for i in range(90)]
        # three commits of different sizes: each shard gets segments 0, 1, 2 of unequal lengths,
        # so a scan over the shards meets each segment ordinal at several lengths
        for batch, per in enumerate((1, 3, 2)):
            ix.add([sturn(f"t{batch}-{s}-{k}", s, f"words {batch} {k}", seq=batch * 10 + k)
                    for s in sessions for k in range(per)])
        assert ix.turn_shard_count() > 1
        present = {s: oid(f"t2-{s}-1") for s in sessions[:30]}
        absent = {s: oid(f"never-{s}") for s in sessions[30:60]}
        deleted = {s: oid(f"t1-{s}-2") for s in sessions[60:]}
        ix.add([], delete_ids=list(deleted.values()))
        held = physical_turn_ids(ix.root)
        assert set(deleted.values()) <= held and not held & set(absent.values())   # not purged yet
        assert not {h.id for h in ix.search("words", limit=1000)} & set(deleted.values())   # deleted
        heads = {**present, **absent, **deleted}
        for fresh in (True, False):   # the first scan of a process, then one reusing what it built
            if fresh:
                getattr(genfiles, "_ADDRESS_CACHE", {}).clear()
            assert ix.missing_turns(heads) == set(absent)
        # one shard at a time (a shorter scan after a longer one, and the reverse)
        for s, tid in heads.items():
            assert ix.missing_turns({s: tid}) == ({s} if s in absent else set())
        # the purge removes the deleted copies: those heads are missing now
        shards = {ix.shard_of(s) for s in deleted}
        survivors = [sturn(f"t{batch}-{s}-{k}", s, f"words {batch} {k}", seq=batch * 10 + k)
                     for batch, per in enumerate((1, 3, 2)) for s in sessions for k in range(per)
                     if ix.shard_of(s) in shards and oid(f"t{batch}-{s}-{k}") not in deleted.values()]
        ix.purge_turn_shards(shards, survivors)
        assert not set(deleted.values()) & physical_turn_ids(ix.root)
        assert ix.missing_turns(heads) == set(absent) | set(deleted)
    finally:
        ix.close()
