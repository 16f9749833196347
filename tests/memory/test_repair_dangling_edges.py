"""fix16b (tester F6): a ``forget --match`` killed after it rewrote a
session's turns and before it rewrote the summaries citing them leaves
``rollup_of`` edges to turn ids that are gone; ``mem fsck`` warned of each
and ``mem fsck --repair`` changed nothing, so push and clone carried them
everywhere.  The repair now drops an edge whose target is no fact version
or turn of the store (the old ids are gone: their new ids cannot be told).
The summary is written here as that forget left it."""

from __future__ import annotations

from objstore.core.objects import Fact

GONE = "ee7375948238" + "0" * 52


def _store_with_a_dangling_edge(store_path) -> str:
    from objstore.memory.opening import open_store
    with open_store(store_path, create=True) as s:
        meta = dict(kind="reference", trust="derived", sensitivity="private", owner="user")
        other = s.put(Fact(key="project/x/note", body="a note", version=1, parent=None,
                           valid_from=1_700_000_000_000, recorded_at=1_700_000_000_000, **meta))
        s.update_ref("facts/project/x/note", None, other, "remember")
        v1 = s.put(Fact(key="project/x/summary/s1", body="summary one", version=1, parent=None,
                        valid_from=1_700_000_000_000, recorded_at=1_700_000_000_000,
                        edges=(("relates_to", other), ("rollup_of", GONE)), **meta))
        v2 = s.put(Fact(key="project/x/summary/s1", body="summary two", version=2, parent=v1,
                        valid_from=1_700_000_100_000, recorded_at=1_700_000_100_000,
                        edges=(("rollup_of", GONE),), **meta))
        s.update_ref("facts/project/x/summary/s1", None, v2, "rollup")
        return other


def test_fsck_repair_drops_edges_to_ids_that_are_gone(mem, store_path):
    other = _store_with_a_dangling_edge(store_path)
    r = mem("fsck")
    assert r.stdout.count("rollup_of edge to ee7375948238") + r.stderr.count("rollup_of edge to ee7375948238") == 2
    r = mem("fsck", "--repair", "--json").json["repair"]
    assert r["edges_dropped"] == {"facts/project/x/summary/s1": 2}, r
    r = mem("fsck")
    assert "edge to" not in r.stdout + r.stderr, r.stdout + r.stderr
    from objstore.memory.opening import open_store
    with open_store(store_path) as s:
        v2 = s.get(s.refs.read("facts/project/x/summary/s1"), Fact)
        v1 = s.get(v2.parent, Fact)
    assert (v2.body, v2.edges) == ("summary two", ())
    assert (v1.body, v1.edges) == ("summary one", (("relates_to", other),))   # a sound edge is kept
    assert mem("get", "project/x/summary/s1").stdout.strip() == "summary two"
    assert "nothing to repair" in mem("fsck", "--repair").stdout
