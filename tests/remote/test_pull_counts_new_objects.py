"""A pull counts only the objects it did not hold (test15 F): after
``push --repair`` replaced a damaged remote bundle, a clone that already
held every object reported "received 808 objects" on its next pull."""

from __future__ import annotations

from objstore import current, remember
from objstore.remote.transport import open_transport


def _flip_a_byte_of_each_pack(target) -> None:
    t = open_transport(target.url, endpoint=target.endpoint, env=target.env)
    for name, _size, _mtime in t.list("packs/"):
        data = bytearray(t.read(name)[0])
        data[len(data) // 2] ^= 0xFF
        t.delete(name)
        t.create(name, bytes(data))


def test_a_pull_after_push_repair_counts_only_objects_the_clone_lacked(machines, target):
    a = machines("a")
    for i in range(6):
        remember(a.store, f"user/note{i}", f"value {i}")
    a.push()
    c = machines("c", clone_from=a)
    _flip_a_byte_of_each_pack(target)
    a.push(repair=True)                     # replaced by a new bundle: a new name, the same objects
    packs = sorted((c.root / "objects" / "pack").glob("pack-*.idx"))
    got = c.pull()
    assert got.bytes_received > 0           # the new bundle is read (its name is new to the clone) ...
    assert got.objects_received == 0        # ... but holds nothing the clone lacked,
    assert got.packs_received == 0          # so it is not installed (fix16b: its objects twice until a gc)
    assert sorted((c.root / "objects" / "pack").glob("pack-*.idx")) == packs
    remember(a.store, "user/late", "written after the repair")
    a.push()
    got = c.pull()
    assert got.objects_received >= 1        # a new object is still counted
    assert current(c.store, "user/late").fact.body == "written after the repair"
