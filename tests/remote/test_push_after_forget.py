"""A push after a forget sends what changed, not the store (fresh7 F9): a
push writes bundles of at most ``upload.BUNDLE_FRAME_BYTES`` of objects, and
a forget rewrites only the bundles that held an object no ref reaches any
more, so the value still leaves every remote bundle while the rest stays.
Against a folder and a real S3 protocol server (moto on loopback)."""

from __future__ import annotations

import random
import string

import pytest

from objstore import current, forget, fsck, remember, scan_store, versions
from objstore.remote import upload
from tests.remote.test_sync import _all_remote_plaintexts

CANARY = "canary-wombat-4417"


@pytest.fixture
def small_bundles(monkeypatch):
    """Bundles of ~4 KiB of objects, so that a few dozen facts span several."""
    monkeypatch.setattr(upload, "BUNDLE_FRAME_BYTES", 4096)


def _remote_bundles(target) -> int:
    from objstore.remote.transport import open_transport
    return len(open_transport(target.url, endpoint=target.endpoint, env=target.env).list("packs/"))


def test_a_push_after_a_forget_sends_only_the_bundles_that_held_the_value(machines, target, small_bundles):
    a = machines("a")
    rnd = random.Random(7)   # bodies that do not compress away: the bundles' bytes are mostly theirs
    for i in range(80):
        remember(a.store, f"project/p/k{i:03d}", f"value {i} " + "".join(rnd.choices(string.ascii_letters, k=600)))
    remember(a.store, "project/p/k040", f"the door code is {CANARY}")
    first = a.push()
    assert first.packs_sent >= 5 and _remote_bundles(target) == first.packs_sent
    b = machines("b", clone_from=a)
    assert CANARY in current(b.store, "project/p/k040").fact.body

    forget(a.store, what="project/p/k040")
    res = a.push()
    # the bundle that held the value is rewritten (its survivors sent again), the others stay
    assert res.remote_packs_rewritten == 1 and res.packs_sent <= 2
    assert res.objects_sent < first.objects_sent / 3 and res.bytes_sent < first.bytes_sent / 3
    assert _remote_bundles(target) == first.packs_sent - 1 + res.packs_sent
    assert not any(CANARY.encode() in x for x in _all_remote_plaintexts(target, a.key()))

    got = b.pull()
    assert got.packs_received == res.packs_sent and got.bytes_received < first.bytes_sent / 3
    assert scan_store(b.root, [CANARY.encode()]) == []
    assert fsck(b.store).ok
    for i in (0, 39, 41, 79):
        key = f"project/p/k{i:03d}"
        assert [v.id for v in versions(a.store, key)] == [v.id for v in versions(b.store, key)]
    assert b.store.refs.read("facts/project/p/k040") == a.store.refs.read("facts/project/p/k040")


def test_a_rewritten_bundle_keeps_the_older_objects_of_chains_that_grew_since(machines, target):
    # 'user/a' v1 shares the first bundle with 'user/b'; v2 goes in a second bundle.  Forgetting
    # 'user/b' rewrites the first bundle: v1, which the walk from 'user/a's head (in the second
    # bundle, which stays) never reaches, must go in the new bundle, or the remote loses it.
    a = machines("a")
    remember(a.store, "user/a", "alpha one")
    remember(a.store, "user/b", f"bravo {CANARY}")
    a.push()
    remember(a.store, "user/a", "alpha two")
    a.push()
    forget(a.store, what="user/b")
    res = a.push()
    assert res.remote_packs_rewritten == 1
    assert not any(CANARY.encode() in x for x in _all_remote_plaintexts(target, a.key()))
    c = machines("c", clone_from=a)
    assert [v.fact.body for v in versions(c.store, "user/a")] == ["alpha two", "alpha one"]
    assert c.store.refs.read("facts/user/b") is None
    assert fsck(c.store).ok
