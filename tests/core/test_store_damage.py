"""Issue 21 item 2: one damaged pack or loose object must not stop the
store; 'mem fsck --repair' sets the damage aside and leaves a consistent
store.  Each test failed on the code before the fix (every command that
touched the damaged object exited 13)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"
DAMAGED_SID = "a3e1d7b0-1c2f-4b8a-9e55-7c6d0f9b2e33"


def _flip(path: Path, at: int) -> None:
    b = bytearray(path.read_bytes())
    b[at] ^= 0xFF
    path.write_bytes(bytes(b))


def _packs(store_path: Path) -> list[Path]:
    return sorted((store_path / "objects" / "pack").glob("pack-*.pack"), key=lambda p: -p.stat().st_size)


@pytest.fixture
def imported(invoke, store_path):
    invoke("import", "claude-code", str(SAMPLE))
    invoke("remember", "user/editor", "helix")
    invoke("gc", "--prune=now")
    assert not list((store_path / "objects").glob("??/*"))  # everything is packed
    return {s["id"]: s["turns"] for s in invoke("sessions", "--json").json}


def _damaged_turns(invoke) -> list[str]:
    """Every object fsck names as damaged, sorted.  A flipped byte in a
    version-3 pack loses the objects of its block from the damaged one on
    (docs/format.md, "Packs"): several of the sample's 14 objects."""
    probs = invoke("fsck", "--json", exit_code=13).json["problems"]
    return sorted(p.split()[1].rstrip(":") for p in probs if p.startswith("object "))


def _as_version(store_path: Path, version: int) -> None:
    """Rewrite each pack of the store as a pack of ``version``, as a store
    written before holds them (version 2: a raw DEFLATE stream per object, a
    flipped byte in an entry loses that object only; version 6: DEFLATE
    blocks, a flipped byte loses its block's objects from the damaged one
    on)."""
    from objstore.core.pack import PackSet
    from objstore.core.packwriter import write_pack
    pdir = store_path / "objects" / "pack"
    with PackSet(pdir) as ps:
        for p in ps.packs:
            write_pack(pdir, [f for _o, f in p.frames_in_body_order()], version=version)
            ps.remove_pack(p)


@pytest.mark.parametrize("version", [2, 6, 7])
def test_flipped_byte_in_a_pack_entry(invoke, store_path, imported, version):
    """Version 2: the flipped byte loses one object.  Version 6 (DEFLATE
    blocks, as 3 to 5; what a store writes by default): it loses the
    objects of its block from the damaged one on (here most of the sample's
    14 objects, session heads among them).  Version 7 (zstd blocks, what a
    store asking for ``store.pack_codec = "zstd"`` writes): the objects of
    its block (here all of the sample's turns).  fsck names each, the
    store keeps working, and fsck --repair leaves it consistent."""
    if version != 6:
        _as_version(store_path, version)
    big = _packs(store_path)[0]
    _flip(big, big.stat().st_size // 2)
    bad = _damaged_turns(invoke)
    assert len(bad) == 1 if version == 2 else bad
    r = invoke("sessions", "--json")  # lists every session, the damaged one marked
    assert {s["id"] for s in r.json} == set(imported)
    assert "damaged object" in r.stderr
    assert invoke("get", "user/editor").stdout == "helix\n"
    invoke("remember", "user/shell", "fish")
    invoke("search", "postgres")
    invoke("reindex")
    invoke("import", "claude-code", str(SAMPLE))
    plan = invoke("gc", "--prune=now", "--json").json
    assert plan["deleted"] == 0
    assert plan["damaged"] == bad if version == 2 else plan["damaged"] and set(plan["damaged"]) <= set(bad)
    r = invoke("fsck", "--repair", "--json")
    lost = set(r.json["repair"]["lost"])  # v3: those on the chains it mended (a lost head cuts off what is below)
    assert r.json["ok"] and r.json["repair"]["quarantine"]
    assert lost == set(bad) if version == 2 else lost and lost <= set(bad)
    gone = r.json["repair"]["recorded_lost"]   # a session all of whose turns the damage took (test33b T13)
    assert gone == [n for n in r.json["repair"]["dropped_refs"] if n.startswith("sessions/")]
    _fsck_ok(invoke, gone)
    for ref in r.json["repair"]["mended"]:  # the lost turn keeps its place, labelled
        shown = invoke("show", ref.split("/", 1)[1]).stdout
        assert version != 2 or "(lost: mem fsck --repair could not recover this turn)" in shown
    sessions = {s["id"]: s["turns"] for s in invoke("sessions", "--json").json}
    # v6: a session all of whose turns the damage took is gone (v7: here every session of the block)
    assert set(sessions) == set(imported) if version == 2 else (sessions or version == 7) and \
        set(sessions) <= set(imported)
    assert not any(s["damaged"] for s in invoke("sessions", "--json").json)
    assert invoke("gc", "--prune=now", "--json").json["damaged"] == []
    _fsck_ok(invoke, gone)


def _fsck_ok(invoke, gone=()) -> None:
    """fsck finds no problem; its only warnings are the sub-agent summary's
    ``rollup_of`` edges to turns the damage took (a block's worth of them),
    a session whose end the damage took with its head (its placeholder,
    session 36) and, when the repair removed the refs ``gone``, the one
    naming each of them (``lost-refs``)."""
    out = invoke("fsck").stdout.splitlines()
    assert out[-1].startswith("ok:"), out
    said = [ln for ln in out[:-1] if ln.startswith("warning: lost-refs: ")]
    assert all(ln.startswith("warning: ") and ("rollup_of edge" in ln or "its last turns were lost with its head" in ln)
               for ln in out[:-1] if ln not in said), out
    assert len(said) == bool(gone) and all(n in said[0] for n in gone), out


def test_forget_a_damaged_session(invoke, store_path, imported):
    big = _packs(store_path)[0]
    _flip(big, big.stat().st_size - 32 - 3)  # the end of the last block: its last object
    bad = _damaged_turns(invoke)
    named = json.dumps(invoke("fsck", "--json", exit_code=13).json)
    for sid in [s for s in imported if s in named]:  # version 7: every session of the damaged block
        invoke("forget", "--session", sid, "--yes")
    # the damaged turns went with their sessions: nothing is left to repair
    assert invoke("fsck").stdout.startswith("ok:"), bad


def test_a_pack_that_cannot_be_opened_is_salvaged(invoke, store_path, imported):
    big = _packs(store_path)[0]
    _flip(big, big.stat().st_size - 1)  # the trailer: the pack no longer opens at all
    invoke("get", "user/editor")  # in the other pack
    r = invoke("fsck", exit_code=13)
    assert "trailer checksum" in r.stdout
    r = invoke("fsck", "--repair", "--json").json
    assert r["ok"] and r["repair"]["salvaged"] > 0 and r["repair"]["lost"] == []
    assert {s["id"]: s["turns"] for s in invoke("sessions", "--json").json} == imported
    assert not (store_path / "objects" / "pack" / big.name).exists()
    assert (Path(r["repair"]["quarantine"]) / big.name).exists()


@pytest.mark.parametrize("cut", [1, 31])
def test_a_pack_cut_short_in_its_trailer_loses_nothing(invoke, store_path, imported, cut):
    """test36 T6: a pack cut by one byte (a copy or a write cut short: only
    its checksum trailer was touched) lost every object of its last block to
    --repair, which took the body to end 32 bytes before the file's end.  A
    trailer that is not the checksum the pack's name records now lets the
    body run to the end of the file."""
    big = _packs(store_path)[0]
    with open(big, "r+b") as f:
        f.truncate(big.stat().st_size - cut)
    invoke("fsck", exit_code=13)
    r = invoke("fsck", "--repair", "--json").json
    assert r["ok"] and r["repair"]["lost"] == [] and r["repair"]["salvaged"] > 0
    assert {s["id"]: s["turns"] for s in invoke("sessions", "--json").json} == imported
    invoke("fsck")


def test_a_pack_cut_into_its_last_block_keeps_the_frames_before_the_cut(invoke, store_path, imported):
    """test36 T6, the wider cut: 8 bytes into the body.  The last block is
    read as torn (as a killed writer's temp pack is): its frames before the
    cut are kept."""
    from objstore.core.salvage import salvage_pack
    big = _packs(store_path)[0]
    whole = {oid for oid, _f in salvage_pack(big)}
    with open(big, "r+b") as f:
        f.truncate(big.stat().st_size - 40)
    kept = {oid for oid, _f in salvage_pack(big)}
    assert kept < whole and len(kept) >= len(whole) - 3, (len(kept), len(whole))
    r = invoke("fsck", "--repair", "--json").json
    assert r["ok"] and r["repair"]["salvaged"] >= len(kept) - 1
    invoke("fsck")


@pytest.mark.parametrize("version", [9, 255])
def test_a_newer_pack_version_is_not_damage(invoke, store_path, imported, version):
    """fresh7 F2: a pack a newer mem wrote (its version field says 9 here: this mem reads 1 to 8) made
    fsck exit 13 ("damage") and fsck --repair set the intact pack aside and
    remove every session it held.  Both now exit 14 and change nothing.  A
    newer mem writes the pack and its index with one version (session 13:
    one of the two alone at a newer version is damage, test_fix12_pack_version)."""
    big = _packs(store_path)[0]
    old = {}
    for f in (big, big.with_suffix(".idx")):
        b = bytearray(f.read_bytes())
        old[f] = bytes(b)
        b[4:8] = version.to_bytes(4, "big")            # HEADER: magic, version (u32 BE), count
        f.write_bytes(bytes(b))
    before = sorted(p.name for p in store_path.rglob("*"))
    for args in (("fsck",), ("fsck", "--repair")):
        r = invoke(*args, exit_code=14)
        assert "newer mem" in r.stdout + r.stderr and "upgrade mem" in r.stdout + r.stderr
    assert sorted(p.name for p in store_path.rglob("*")) == before   # nothing set aside, no ref removed
    assert not (store_path / "quarantine").exists()
    # session 14 (objs14): a read of an object the newer pack may hold said "damaged object ...
    # 'mem fsck --repair' sets it aside" (get, log exit 13; sessions, search, recall exit 0 with
    # that warning, sessions listing each as "damaged: mem fsck --repair"): it exits 14 too
    for args in (("sessions",), ("sessions", "--json")):
        r = invoke(*args, exit_code=14)
        out = r.stdout + r.stderr
        assert "upgrade mem" in out and "newer mem" in out, out
        assert "damaged" not in out and "--repair" not in out, out
    assert not (store_path / "quarantine").exists()
    for f, data in old.items():                   # the same bytes read again once "upgraded"
        f.write_bytes(data)
    assert {s["id"]: s["turns"] for s in invoke("sessions", "--json").json} == imported
    invoke("fsck")


@pytest.mark.parametrize("where", ["idx checksum", "pack trailer"])
def test_a_checksum_that_loses_no_object_is_repaired(invoke, store_path, imported, where):
    """fresh7 F3: a damaged byte of a checksum (every object still reads)
    left fsck CORRUPT for good: --repair said "nothing to repair".  The
    pack's objects now go loose and its files are set aside."""
    big = _packs(store_path)[0]
    f = big.with_suffix(".idx") if where == "idx checksum" else big
    _flip(f, f.stat().st_size - 3)
    invoke("fsck", exit_code=13)
    r = invoke("fsck", "--repair", "--json").json
    assert r["ok"] and r["repair"]["lost"] == [] and r["repair"]["salvaged"] > 0
    assert {s["id"]: s["turns"] for s in invoke("sessions", "--json").json} == imported
    invoke("fsck")
    invoke("gc", "--prune=now")
    invoke("fsck")
    assert {s["id"]: s["turns"] for s in invoke("sessions", "--json").json} == imported


def test_a_corrupt_loose_version_is_mended(invoke, store_path):
    for v in ("one", "two", "three"):
        invoke("remember", "user/x", v)
    ids = [v["id"] for v in invoke("log", "user/x", "--json").json]
    p = store_path / "objects" / ids[1][:2] / ids[1][2:]
    p.write_bytes(zlib.compress(zlib.decompress(p.read_bytes()).replace(b"two", b"tw0")))
    r = invoke("get", "user/x")
    assert r.stdout == "three\n" and "damaged object" in r.stderr
    invoke("remember", "user/y", "still writable")
    r = invoke("fsck", "--repair")
    assert "mended facts/user/x" in r.stdout and r.stdout.rstrip().endswith("0 problems")
    log = invoke("log", "user/x", "--json").json
    assert [(v["version"], v["body"]) for v in log] == [(3, "three"), (2, ""), (1, "one")]
    assert not log[1]["current"] and log[1]["sources"] == [f"lost:{ids[1]}"]
    assert invoke("get", "user/x").stdout == "three\n"
    invoke("remember", "user/x", "four")
    assert invoke("log", "user/x", "--json").json[0]["version"] == 4
    assert invoke("fsck").stdout.startswith("ok:")


def test_repair_refetches_through_the_callback(store):
    """The hook a remote plugs into: a lost object found elsewhere is restored as it was."""
    from objstore.core.fsck import fsck
    from objstore.memory.facts import remember, versions
    from objstore.memory.repair import repair
    for v in ("one", "two", "three"):
        remember(store, "user/x", v)
    chain = versions(store, "user/x")
    lost = chain[1].id
    saved = {lost: store.read_frame(lost)}
    store.objects.path(lost).unlink()
    rep = repair(store, fetch=saved.get)
    assert rep.refetched == [lost] and rep.stubs == 0 and rep.mended == []
    assert [v.id for v in versions(store, "user/x")] == [v.id for v in chain]
    assert fsck(store).ok


def test_gc_empties_the_quarantine_after_the_grace_period(invoke, store_path, imported):
    big = _packs(store_path)[0]
    _flip(big, big.stat().st_size - 1)
    q = Path(invoke("fsck", "--repair", "--json").json["repair"]["quarantine"])
    invoke("gc")
    assert q.exists()  # younger than the grace period
    assert invoke("gc", "--prune=now", "--json").json["quarantine"] == [str(q)]
    assert not q.exists()


# -- issue 21, re-attack item 12: forget of a session that has damaged objects --------------

FIXED_SID = "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11"


def _damage_object(store_path: Path, oid: str) -> None:
    """Damage exactly one object (the others stay readable): version 2, a
    byte inside its pack entry; version 3, whose entries are blocks (a byte
    of a block's stream loses the block's objects from it on:
    tests/core/test_pack.py, test_v3_damage_stays_in_its_block), its
    position in the index (version 5: its body position), so that it no
    longer reads."""
    from objstore.core.pack import Pack
    for idx in (store_path / "objects" / "pack").glob("*.idx"):
        with Pack(idx) as p:
            if not p.contains(oid):
                continue
            i = p.find_raw(bytes.fromhex(oid))
            off, length = p._entry(i)
            if p.version < 3:
                path, at = p.pack_path, off + length - 3
            elif p.version < 5:
                path, at = idx, p._ord_off + 2 * i + 1
            else:  # version 5: the last byte of its body position
                path, at = idx, p._pos_off + p._w * (i + 1) - 1
        _flip(path, at)
        return
    raise AssertionError(f"{oid} is not packed")


def _copies_of(store_path: Path, sid: str) -> list[str]:
    """Ids of every readable turn of session ``sid`` anywhere in the store's objects."""
    from objstore.core.objects import Turn
    from objstore.memory.opening import open_store
    out = []
    with open_store(store_path) as s:
        ids = set(s.objects)
        for p in s.packs.packs:
            ids.update(p)
        for oid in ids:
            try:
                obj = s.get(oid)
            except Exception:  # noqa: BLE001 - damaged
                continue
            if isinstance(obj, Turn) and obj.session == sid:
                out.append(oid)
    return out


def _chain_ids(invoke, sid: str) -> list[str]:
    import re
    return [ln.split()[-1] for ln in invoke("show", sid).stdout.splitlines() if re.match(r"\[\d+\] ", ln)]


@pytest.mark.parametrize("where", ["head", "middle"])
def test_forget_a_session_with_a_damaged_turn_removes_every_readable_copy_at_once(invoke, store_path, imported,
                                                                                  where):
    """Before: a damaged head made 'forget --session' exit 13 and keep every
    turn; a damaged turn in the middle left the older turns readable (show,
    search) until a gc."""
    assert len(_copies_of(store_path, FIXED_SID)) == 6
    short = _chain_ids(invoke, FIXED_SID)
    bad = short[-1] if where == "head" else short[3]
    full = invoke("show", short[0], "--json").json["id"]
    invoke("search", "flaky")                              # the index holds the session's turns
    _damage_object(store_path, invoke("show", bad, "--json").json["id"])
    r = invoke("forget", "--session", FIXED_SID, "--yes", "--json").json
    assert len(r["unreadable"][FIXED_SID]) == 1 and r["unchecked"] == []
    assert r["turns"] == 5                                 # every readable turn, the older ones included
    assert _copies_of(store_path, FIXED_SID) == []
    invoke("show", full, exit_code=4)
    hits = invoke("search", "flaky", "--json").json
    assert not [h for h in hits if h.get("session") == FIXED_SID]
    assert FIXED_SID not in {s["id"] for s in invoke("sessions", "--json").json}
    assert invoke("fsck").stdout.startswith("ok:")


def test_gc_finishes_a_forget_that_met_an_unreadable_pack(invoke, store_path, imported):
    """A pack that cannot be opened may hold turns of the forgotten session:
    forget says so; 'fsck --repair' salvages the pack's readable entries, and
    the next plain gc (no --prune) deletes the forgotten session's copies
    among them at once (before: kept for the two-week grace period)."""
    ids = [invoke("show", x, "--json").json["id"] for x in _chain_ids(invoke, FIXED_SID)]
    big = _packs(store_path)[0]
    _flip(big, big.stat().st_size - 1)                     # the trailer: the pack no longer opens
    r = invoke("forget", "--session", FIXED_SID, "--yes")
    assert "could not be read" in r.stderr and "mem fsck --repair" in r.stderr
    from objstore.memory.opening import open_store
    with open_store(store_path) as s:                      # the index held the unreadable turns: purged by id
        assert s.index.verify_purged(ids) == []
    invoke("fsck", "--repair")
    assert _copies_of(store_path, FIXED_SID)               # salvaged back, unreachable
    plan = invoke("gc", "--json").json
    assert plan["deleted"] >= 6
    assert _copies_of(store_path, FIXED_SID) == []
    assert invoke("fsck").stdout.startswith("ok:")
    assert {s["id"] for s in invoke("sessions", "--json").json} == set(imported) - {FIXED_SID}


def test_a_pack_cut_into_its_last_chunk_block_keeps_the_chunks_before_the_cut(invoke, store_path, tmp_path):
    """test36b T5: a version-8 pack ends with a chunk block (its table of
    repeated lines); cut one byte or more into it, every frame in every block
    naming one of its chunks was lost (1,812 of 4,500 objects salvaged).  A
    torn chunk block now gives the whole chunks before the cut."""
    from objstore.core.salvage import salvage_pack
    from tests.retrieval._sessions import write_session
    import hashlib
    shared = "".join(f"    shared configuration line number {k} of the deploy manifest\n" for k in range(40))
    for s in range(60):   # ~146 KB of frames: more than one block, and the repeated lines a chunk block at the end
        sid = f"5e55{s:04d}-0000-4000-8000-0000000t5{s:03d}"
        own = "".join(hashlib.sha256(f"{s}-{k}".encode()).hexdigest() + "\n" for k in range(60))
        write_session(tmp_path / "projects" / "-home-dev-x", sid, 1 + (s % 28),
                      [("user", f"session {s}: show the manifest"), ("assistant", shared + own),
                       ("user", f"and again, session {s}"), ("assistant", shared + f"other tail {s}\n")], "/home/dev/x")
    invoke("import", "claude-code", str(tmp_path / "projects"))
    invoke("gc", "--prune=now")
    big = _packs(store_path)[0]
    whole = {oid for oid, _f in salvage_pack(big)}
    with open(big, "r+b") as f:   # one byte into the chunk block: the chunks before the cut are whole
        f.truncate(big.stat().st_size - 33)
    kept = {oid for oid, _f in salvage_pack(big)}
    assert kept == whole, (len(kept), len(whole))
    r = invoke("fsck", "--repair", "--json").json
    assert r["ok"]
    invoke("fsck")
