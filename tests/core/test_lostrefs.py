"""``objstore.core.lostrefs`` (test33b T13) on a real store's files: lines
of another shape are passed over, a FIFO where the file should be is not
waited on, a ref set again is no longer named and its line is pruned."""

from __future__ import annotations

import os

from objstore.core.lostrefs import FILENAME, lost_refs_note, prune_found, read_lost, record_lost, still_lost

HEAD = "ab" * 32


def test_recorded_refs_are_named_until_set_again(store):
    record_lost(store.root, {"facts/p/a": HEAD, "sessions/s1": None, "tombstones/x": HEAD}, 1_700_000_000_000)
    with open(store.root / FILENAME, "ab") as f:
        f.write(b"garbage line\n12 zz facts/p/b\n")
    got = read_lost(store.root)
    assert [(r.name, r.head) for r in got] == [("facts/p/a", HEAD), ("sessions/s1", "")]
    note = lost_refs_note(store)
    assert "2 ref(s)" in note and "facts/p/a, sessions/s1" in note and "--reread" in note
    assert [r.name for r in still_lost(store)] == ["facts/p/a", "sessions/s1"]


def test_a_ref_set_again_is_pruned(mem, store_path):
    mem("remember", "user/a", "one")
    from objstore.memory.opening import open_store
    with open_store(store_path) as store:
        record_lost(store.root, {"facts/user/a": HEAD, "facts/user/gone": HEAD}, 1_700_000_000_000)
        assert [r.name for r in still_lost(store)] == ["facts/user/gone"]
        prune_found(store)
        assert [r.name for r in read_lost(store.root)] == ["facts/user/gone"]
        (store.root / FILENAME).unlink()
        os.mkfifo(store.root / FILENAME)     # not waited on: read as nothing recorded
        assert read_lost(store.root) == [] and lost_refs_note(store) is None
