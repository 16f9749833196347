"""sync39: a remote collected one bundle per push forever, and a pull on a
new machine read them all (200 pushes: 200 bundles, 203 reads).  A push now
rolls the small bundles into new ones once the manifest names more than
``upload.ROLLUP_AFTER`` (the same replace-and-resend as a forget's rewrite,
under the manifest's compare-and-swap).  Against a folder and a real S3
protocol server (moto on loopback); ROLLUP_AFTER lowered to 4 for speed."""

from __future__ import annotations

import pytest

from objstore import current, forget, fsck, remember
from objstore.remote import sync, upload
from tests.remote.test_push_after_forget import _remote_bundles
from tests.remote.test_sync import _all_remote_plaintexts

CANARY = "canary-okapi-5521"


@pytest.fixture
def rollup_after_4(monkeypatch):
    monkeypatch.setattr(upload, "ROLLUP_AFTER", 4, raising=False)


def test_many_small_pushes_leave_few_bundles_and_a_clone_has_every_value(machines, target, rollup_after_4):
    a = machines("a")
    for i in range(12):
        remember(a.store, f"project/p/k{i:02d}", f"value {i}" + (f" {CANARY}" if i == 3 else ""))
        a.push()
    assert _remote_bundles(target) <= 5 + 1
    forget(a.store, what="project/p/k03")       # its bundle was rolled up: the value leaves the new one
    a.push()
    assert not any(CANARY.encode() in x for x in _all_remote_plaintexts(target, a.key()))
    c = machines("c", clone_from=a)
    for i in range(12):
        if i != 3:
            assert current(c.store, f"project/p/k{i:02d}").fact.body == f"value {i}"
    assert c.store.refs.read("facts/project/p/k03") is None
    assert fsck(c.store).ok


def test_a_rollup_between_another_push_s_read_and_its_write_loses_nothing(machines, target, rollup_after_4,
                                                                          monkeypatch):
    a = machines("a")
    remember(a.store, "project/p/k00", "value 0")
    a.push()
    b = machines("b", clone_from=a)
    for i in range(1, 5):
        remember(a.store, f"project/p/k{i:02d}", f"value {i}")
        a.push()
    remember(b.store, "user/editor", "helix on b")
    real, raced = sync.rollup, []

    def a_rolls_up_meanwhile(t, packs):   # b has read the manifest: a rewrites its bundles now
        if not raced:
            raced.append(1)
            monkeypatch.setattr(sync, "rollup", real)
            remember(a.store, "project/p/k05", "value 5")
            assert a.push().remote_packs_rewritten >= 5
        return real(t, packs)
    monkeypatch.setattr(sync, "rollup", a_rolls_up_meanwhile)
    res = b.push()
    assert raced and res.attempts >= 2
    c = machines("c", clone_from=a)
    assert current(c.store, "user/editor").fact.body == "helix on b"
    for i in range(6):
        assert current(c.store, f"project/p/k{i:02d}").fact.body == f"value {i}"
    assert fsck(c.store).ok
