"""``genfiles.held_ids`` answers the same whether it asks for a few ids (a
set intersection picks the segments holding them first) or for more than
``HELD_IDS_MANY`` (every segment's addresses picked in one pass): present
ids, a deleted but not purged one (still held), ids never indexed, over a
shard of several segments.  Real tantivy, the expected answer read from
the generation's files (``physical_turn_ids``)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from objstore.index.genfiles import HELD_IDS_MANY, held_ids
from objstore.index.searchindex import IndexDoc, SearchIndex
from tests.index.test_searchindex import physical_turn_ids


def oid(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def test_held_ids_few_and_many(tmp_path: Path) -> None:
    ix = SearchIndex(tmp_path / "store" / "index")
    try:
        sessions = [f"session-{i}" for i in range(40)]
        for batch, per in enumerate((2, 3, 1)):   # three segments a shard, of unequal lengths
            ix.add([IndexDoc(oid(f"t{batch}-{s}-{k}"), "turn", s, 1, "x", "user", f"w {batch} {k}", batch * 10 + k)
                    for s in sessions for k in range(per)])
        ix.add([], delete_ids=[oid("t1-session-3-0")])
        physical = physical_turn_ids(ix.root)
        assert oid("t1-session-3-0") in physical
        sub = ix._subs["turn"]
        m, indexes = sub.open_current()
        asked = 0
        for _s, name in m.live():
            index = indexes[name]
            index.reload()
            sr = index.searcher()
            mine = [oid(f"t{b}-{s}-{k}") for b, per in enumerate((2, 3, 1)) for s in sessions for k in range(per)]
            mine = [i for i in mine if i in physical]   # (every shard's ids are asked; another shard's are not held)
            never = [oid(f"never-{k}") for k in range(HELD_IDS_MANY + 5)]
            many = mine + never
            assert len(set(many)) > HELD_IDS_MANY
            held_many = held_ids(sr, sub.fmt(name), many, sub.dir / name, index)
            held_few = set()
            for k in range(0, len(many), 7):   # the same ids, 7 at a time: the intersection path
                held_few |= held_ids(sr, sub.fmt(name), many[k:k + 7], sub.dir / name, index)
            assert held_many == held_few
            assert held_many <= set(mine) and not held_many & set(never)
            asked += len(held_many)
        assert asked == len(physical)   # each physical document held in its own shard, the deleted one too
    finally:
        ix.close()
