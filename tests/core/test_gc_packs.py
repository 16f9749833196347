"""gc with packs: the root set, packing, rewriting, grace, forget through packs."""

from __future__ import annotations

import os
import time
from importlib import resources
from pathlib import Path

from objstore.memory import facts
from objstore.core.codec import encode
from objstore.memory.forget import forget_key, scan_store
from objstore.core.fsck import fsck
from objstore.core.gc import gc, plan_gc
from objstore.core.objects import Tombstone
from objstore.core.reachability import roots
from objstore.capture.importer import import_claude_code

SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects"))


def _loose(store) -> set[str]:
    return set(store.objects)


def test_root_set_is_refs_and_reflogs(store):
    r1 = facts.remember(store, "user/a", "one")
    r2 = facts.remember(store, "user/a", "two")
    import_claude_code(store, [SAMPLE])
    where = {w for w, _ in roots(store)}
    assert "facts/user/a" in where and "reflog" in where
    assert any(w.startswith("sessions/") for w in where)
    ids = {i for _, i in roots(store)}
    assert r1.version.id in ids and r2.version.id in ids  # the reflog names v1 too


def test_import_writes_a_pack_and_gc_packs_loose_objects(store):
    import_claude_code(store, [SAMPLE])
    # the turns go into a pack; only the summary of the sample's subagent (a fact write) is loose
    rolled = _loose(store)
    assert len(rolled) == 1 and store.packs.packs
    assert store.get(next(iter(rolled))).kind == "summary"
    facts.remember(store, "user/a", "one")
    facts.remember(store, "user/a", "two")
    assert len(_loose(store)) == 3
    plan = gc(store, dry_run=True)
    assert len(plan.loose_to_pack) == 3 and len(_loose(store)) == 3
    gc(store)
    assert not _loose(store)
    assert facts.current(store, "user/a").fact.body == "two"
    assert [v.fact.body for v in facts.versions(store, "user/a")] == ["two", "one"]
    assert fsck(store).ok


def test_unreachable_packed_objects_respect_grace_then_go(store):
    facts.remember(store, "user/keep", "kept value")
    junk = [store.put(Tombstone(key=f"user/j{i}", value_sha256=bytes([i]) * 32, time=i)) for i in range(3)]
    gc(store)  # junk is young: kept (loose)
    assert all(store.has(j) for j in junk)
    gc(store, grace_s=0)  # prune=now
    assert not any(store.has(j) for j in junk)
    # unreachable objects inside a pack: rewritten away once the pack is old enough
    w = store.pack_writer()
    for i in range(3):
        w.add(encode(Tombstone(key=f"user/p{i}", value_sha256=bytes([9 + i]) * 32, time=i)))
    info = w.finish()
    old = time.time() - 30 * 86400
    os.utime(info.idx_path, (old, old))
    store.packs.reload()
    plan = plan_gc(store)
    assert [p.action for p in plan.packs] == ["drop"]
    gc(store)
    assert not info.idx_path.exists() and not info.pack_path.exists()
    assert facts.current(store, "user/keep").fact.body == "kept value"
    assert fsck(store).ok


def test_forget_purges_a_packed_version(store, store_path):
    facts.remember(store, "project/p/secret", "packed canary-58813 one")
    facts.remember(store, "project/p/secret", "packed canary-58813 two")
    facts.remember(store, "project/p/other", "stays")
    gc(store)
    assert not _loose(store)
    assert scan_store(store_path, [b"canary-58813"])  # in a pack (zlib entries are not whole-file zlib)
    forget_key(store, "project/p/secret")
    gc(store, grace_s=0)
    assert scan_store(store_path, [b"canary-58813"]) == []
    _assert_no_canary_in_packs(store, b"canary-58813")
    assert facts.current(store, "project/p/other").fact.body == "stays"
    assert fsck(store).ok


def _assert_no_canary_in_packs(store, needle: bytes) -> None:
    store.packs.reload()
    for pack in store.packs.packs:
        for oid in pack:
            assert needle not in pack.get(oid)


def test_fsck_reports_a_damaged_pack(store, store_path):
    facts.remember(store, "user/a", "one")
    gc(store)
    pack = next((store_path / "objects" / "pack").glob("*.pack"))
    data = bytearray(pack.read_bytes())
    data[20] ^= 0xFF
    pack.write_bytes(bytes(data))
    store.packs.close()
    rep = fsck(store)
    assert not rep.ok and any("pack" in p for p in rep.problems)


def test_many_packs_are_merged(store):
    for i in range(20):
        facts.remember(store, f"user/k{i}", f"v{i}")
        gc(store)
    assert len(store.packs.packs) <= 16
    assert all(facts.current(store, f"user/k{i}").fact.body == f"v{i}" for i in range(20))
    assert fsck(store).ok


def test_gc_writes_bounded_packs_and_a_forget_rewrites_only_the_one_it_hits(store, store_path, monkeypatch):
    import objstore.core.repack as repackmod
    monkeypatch.setattr(repackmod, "PACK_TARGET_BYTES", 6_000)   # repack's and small_packs' (gc's) bound
    for i in range(20):  # 20 one-object packs: more than MAX_PACKS, all small
        facts.remember(store, f"user/b{i}", f"bounded value {i} " + "filler text %d " % i * 40)
        gc(store)
    store.packs.reload()
    packs = store.packs.packs
    assert 1 < len(packs) <= 16
    sizes = sorted(p.info().size for p in packs)
    assert sizes[-1] < 6_000 + 4_000  # a pack is finished once it holds the target (one object over at most)
    facts.remember(store, "user/b3", "bounded canary-61177 " + "x" * 100)
    gc(store)
    before = {p.name for p in store.packs.packs}
    assert sum(1 for p in store.packs.packs if any(b"canary-61177" in p.get(o) for o in p)) == 1
    versions = {v.id for v in facts.versions(store, "user/b3")}  # both go, wherever they are
    holder = [p.name for p in store.packs.packs if versions & set(p)]
    assert len(holder) < len(before)
    forget_key(store, "user/b3")
    store.packs.reload()
    after = {p.name for p in store.packs.packs}
    assert before - after == set(holder)  # only the pack holding the value was rewritten
    _assert_no_canary_in_packs(store, b"canary-61177")
    assert scan_store(store_path, [b"canary-61177"]) == []
    assert all(facts.current(store, f"user/b{i}").fact.body.startswith(f"bounded value {i} ")
               for i in range(20) if i != 3)
    assert fsck(store).ok
