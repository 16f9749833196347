"""fix16b: ``mem unseal`` before session 15 dropped the places of versions a
forget had emptied, so a store (and every clone of it) kept a fact chain
whose root is numbered 2, or whose version 4 follows version 2.  ``mem
fsck`` said CORRUPT (exit 13) and its hint was ``mem fsck --repair``, which
said "nothing to repair".  The repair now keeps each missing number as a
forgotten placeholder; the chain is written here as that unseal left it."""

from __future__ import annotations

from objstore.core.objects import Fact
from tests.conftest import fact_chain


def _damaged_store(store_path):
    """user/test/db as an unseal before session 15 left it after forgets of
    v1 and v3: v2 (root), v4 on top of it."""
    from objstore.memory.opening import open_store
    with open_store(store_path, create=True) as s:
        meta = dict(key="user/test/db", kind="reference", trust="user_stated", sensitivity="private", owner="user")
        v2 = s.put(Fact(body="value 2", version=2, parent=None, valid_from=1_700_000_000_000,
                        recorded_at=1_700_000_000_000, **meta))
        v4 = s.put(Fact(body="value 4", version=4, parent=v2, valid_from=1_700_000_100_000,
                        recorded_at=1_700_000_100_000, **meta))
        s.update_ref("facts/user/test/db", None, v4, "unseal")


def test_fsck_repair_fills_the_places_an_old_unseal_dropped(mem, store_path, tmp_path):
    _damaged_store(store_path)
    r = mem("fsck", exit_code=13)
    assert "root version" in r.stdout + r.stderr and "fsck --repair" in r.stdout + r.stderr
    r = mem("fsck", "--repair")
    assert "2 missing version numbers kept as forgotten placeholders" in r.stdout, r.stdout
    assert mem("fsck", exit_code=None).exit_code == 0
    assert fact_chain(store_path, "user/test/db") == [(4, False, "value 4"), (3, True, ""), (2, False, "value 2"),
                                                      (1, True, "")]
    assert mem("get", "user/test/db").stdout.strip() == "value 4"
    assert "forgotten" in mem("diff", "user/test/db@v1", exit_code=None).stdout
    assert "nothing to repair" in mem("fsck", "--repair").stdout
    # a clone of the damaged store repaired alike gets the same ids: the two agree when they sync
    other = tmp_path / "other"
    _damaged_store(other)
    mem("--home", str(other), "fsck", "--repair")
    from objstore.memory.opening import open_store
    with open_store(store_path) as a, open_store(other) as b:
        assert a.refs.read("facts/user/test/db") == b.refs.read("facts/user/test/db")
