"""A tombstone that names its key by hash (``tombstones.hidden_key``: ``forget
--match TEXT`` of a key whose name holds TEXT, test16 F4) forgets that key's
value on another machine too: the pull's merge looks a fact up by its key's
hash as well as its name."""

from __future__ import annotations

from objstore import fsck, remember, scan_store


def test_a_key_forgotten_by_hash_goes_on_the_other_machine(machines):
    key = "project/p/remembered/deploy-host-walrus-orchid-77"   # as an older mem named a stated fact
    a = machines("a")
    remember(a.store, key, "the deploy host moved to rack four")
    remember(a.store, "project/p/db", "postgres 16")
    a.push()
    b = machines("b", clone_from=a)
    assert b.store.refs.read(f"facts/{key}") is not None
    from objstore import forget
    forget(a.store, match="walrus-orchid")
    a.push()
    b.pull()
    assert b.store.refs.read(f"facts/{key}") is None
    assert b.store.refs.read("facts/project/p/db") is not None
    assert scan_store(b.root, [b"walrus"]) == [] and scan_store(a.root, [b"walrus"]) == []
    assert fsck(b.store).ok
