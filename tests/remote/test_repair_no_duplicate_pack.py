"""fix16b: after ``mem push --repair`` replaced a damaged remote pack, a
store that held those objects already (packed otherwise: here by its own gc)
downloaded the repair's bundle and installed it as a pack of its own: the
same objects twice, until a gc.  A pull now installs no bundle whose every
object this store holds (it records the bundle's ids, as for a bundle it
verified again)."""

from __future__ import annotations

import collections
from pathlib import Path

from objstore.core.pack import Pack


def _copies(home: Path) -> collections.Counter:
    """Object id -> the number of this store's packs holding it."""
    c: collections.Counter = collections.Counter()
    for idx in sorted((home / "objects" / "pack").glob("pack-*.idx")):
        with Pack(idx) as p:
            c.update(list(p))
    return c


def test_a_pull_after_push_repair_installs_no_pack_of_objects_held(mem, tmp_path):
    remote, key = tmp_path / "remote", tmp_path / "sync.key"
    remote.mkdir()
    a, b, c = (["--home", str(tmp_path / n)] for n in "abc")
    for k in ("x", "y", "z"):
        mem(*a, "remember", f"user/{k}", f"value {k}")
    mem(*a, "remote", "add", "origin", str(remote))
    mem(*a, "push")
    [first] = [p.name for p in (remote / "packs").iterdir()]
    mem(*a, "remember", "user/k1", "value 1")
    mem(*a, "push")
    mem(*a, "remote", "key", "export", "-o", str(key))
    mem(*b, "clone", str(remote), "--key", str(key))
    mem(*a, "gc", "--prune=now")                       # a's objects now in one pack of its own
    p = remote / "packs" / first
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))
    r = mem(*b, "push", "--repair")
    assert "1 damaged remote pack replaced" in r.stdout, r.stdout
    assert "sent no object" not in r.stdout, r.stdout   # (fresh41 F28: beside "N objects sent again")
    packs_before = sorted((tmp_path / "a" / "objects" / "pack").glob("pack-*.idx"))
    r = mem(*a, "pull")
    assert "received no new object (" in r.stdout, r.stdout
    copies = _copies(tmp_path / "a")
    assert max(copies.values()) == 1, [o for o, n in copies.items() if n > 1]
    assert sorted((tmp_path / "a" / "objects" / "pack").glob("pack-*.idx")) == packs_before
    assert mem(*a, "pull").stdout.count("received no new object") == 1     # the bundle is not read again
    assert mem(*a, "get", "user/x").stdout.strip() == "value x"
    assert mem(*a, "fsck", exit_code=None).exit_code == 0
    # a clone takes both remote packs, no object twice
    mem(*c, "clone", str(remote), "--key", str(key))
    assert max(_copies(tmp_path / "c").values()) == 1
    assert mem(*c, "get", "user/x").stdout.strip() == "value x"
