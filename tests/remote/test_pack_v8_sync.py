"""Pack version 8 and remotes: a store mixing version-7 and version-8 packs
pushes (its bundles are version 6, whatever its packs), a clone reads every
value (keeping the bundles as its version-6 packs), and a forget in a
version-8 pack travels:
the value leaves the remote's bundles and the puller's packs, their line
tables included (``scan_store`` searches every chunk block).  Against a
folder and a real S3 protocol server (moto on loopback)."""

from __future__ import annotations

from objstore import current, forget, fsck, remember, scan_store
from objstore.core.gc import gc
from objstore.core.packfile import Pack
from tests.remote.test_sync import _all_remote_plaintexts

CANARY = "canary-pangolin-6028"
SHARED = "    the deploy runs make release on the build host, then tags it"


def _versions(root) -> set[int]:
    return {Pack(i).version for i in (root / "objects" / "pack").glob("*.idx")}


def _body(i: int) -> str:
    return f"note {i}\n{SHARED}\n" + "".join(f"note {i} step {k}: cache layer {k % 5}, {i * k}\n" for k in range(70))


def test_a_mixed_v7_v8_store_syncs_and_a_forget_in_a_v8_pack_travels(machines, target):
    a = machines("a")
    for i in range(60):
        remember(a.store, f"project/p/n{i:02d}", _body(i))
        if i % 6 == 0:
            remember(a.store, f"project/p/s{i:02d}", f"secret {i}\n    the vault note says {CANARY} for now\n{SHARED}\n")
    gc(a.store, grace_s=0)
    assert _versions(a.root) == {8}
    (a.root / "config.toml").write_text('[store]\npack_codec = "zstd"\n')
    for i in range(60, 70):
        remember(a.store, f"project/p/n{i:02d}", _body(i))
    gc(a.store, grace_s=0)
    assert _versions(a.root) == {7, 8}
    a.push()
    b = machines("b", clone_from=a)
    gc(b.store, grace_s=0)
    # the bundles kept as they came (decided in session 33, docs/benchmarks.md "Session 33 (branch `pack33`)": a
    # version-8 pack of the same frames is 4-5 % smaller, the bundles' order costs more): gc rewrites a pack only
    # to drop objects
    assert _versions(b.root) == {6}
    for i in (0, 30, 59, 60, 69):
        assert current(b.store, f"project/p/n{i:02d}").fact.body == _body(i)
    assert CANARY in current(b.store, "project/p/s00").fact.body
    assert fsck(b.store).ok

    forget(a.store, match=CANARY)
    gc(a.store, grace_s=0)
    assert scan_store(a.root, [CANARY.encode()]) == []
    a.push()
    assert not any(CANARY.encode() in x for x in _all_remote_plaintexts(target, a.key()))
    b.pull()
    gc(b.store, grace_s=0)
    assert scan_store(b.root, [CANARY.encode()]) == []
    assert fsck(b.store).ok
    assert all(current(b.store, f"project/p/n{i:02d}").fact.body == _body(i) for i in range(70))
