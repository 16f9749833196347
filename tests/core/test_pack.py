"""Pack files: round trips, dedup, completeness (idx last), corruption, prefix
resolution, PackSet, removal, scale (100k timings) and writer memory (200k).

Real files, real frames (``codec.encode`` of Fact/Turn/Tombstone), no mocks.
Run with ``-s`` to see the measured figures.
"""

from __future__ import annotations

import os
import struct
import sys
import tempfile
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from objstore.core.codec import encode
from objstore.core.errors import AmbiguousId, CorruptObject, InvalidInput, NotFound, UnsupportedVersion
from objstore.core.ids import hash_bytes
from objstore.core.objects import KINDS, ROLES, Fact, Tombstone, Turn
from objstore.core.pack import IDX_MAGIC, PACK_MAGIC, Pack, PackInfo, PackSet, idx_size
from objstore.core.packwriter import PackWriter, write_pack

# -- real frames --------------------------------------------------------------

ids = st.binary(min_size=32, max_size=32).map(bytes.hex)
text = st.text(max_size=40)
ms = st.integers(min_value=0, max_value=2**47)  # within the year-9999 bound of objects.check_time
facts = st.builds(
    Fact, key=text, kind=st.sampled_from(KINDS), body=st.text(max_size=300), version=st.integers(1, 2**31),
    parent=st.none() | ids, valid_from=ms, recorded_at=ms)
turns = st.builds(
    Turn, session=text, seq=st.integers(0, 2**31), role=st.sampled_from(ROLES), text=st.text(max_size=300),
    timestamp=ms, harness=text, cwd=text, project=text, source=text, parent=st.none() | ids)
tombs = st.builds(Tombstone, key=text, value_sha256=st.binary(min_size=32, max_size=32), time=ms, reason=text)
frames_st = (facts | turns | tombs).map(encode)


def fact(i: int, body: str = "value") -> bytes:
    return encode(Fact(key=f"project/p/k{i}", kind="project", body=f"{body} {i}", version=1, parent=None,
                       valid_from=1772000000000 + i, recorded_at=1772000000000 + i))


def turn(i: int) -> bytes:
    return encode(Turn(session="s1", seq=i, role="user", text=f"turn number {i}", timestamp=i,
                       harness="claude-code", cwd="/w", project="p", source=f"cc:{i}", parent=None))


def tomb(i: int) -> bytes:
    return encode(Tombstone(key=f"user/k{i}", value_sha256=i.to_bytes(32, "big"), time=i))


def mixed(n: int) -> list[bytes]:
    return [(fact, turn, tomb)[i % 3](i) for i in range(n)]


GOLDEN = Fact(key="project/acme/db", kind="project", body="Postgres 16 on port 5433", version=2,
              parent="99" * 32, valid_from=1772000000000, recorded_at=1772000000123)
GOLDEN_ID = "85b1bef73b2290670ff999d774b20e431e7891e0304f4b511d82d8c3ee22cc5e"


@pytest.fixture
def pack_dir(tmp_path) -> Path:
    """``<store>/objects/pack`` inside a fresh temp dir (not created: writers create it)."""
    return tmp_path / "store" / "objects" / "pack"


def flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def truncate(path: Path, size: int) -> None:
    with open(path, "r+b") as f:
        f.truncate(size)


# -- round trips ---------------------------------------------------------------

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(frames_st, max_size=40), st.lists(frames_st, max_size=5))
def test_round_trip(frames, absent):
    with tempfile.TemporaryDirectory() as d:
        info = write_pack(Path(d), frames)
        want = {hash_bytes(f): f for f in frames}
        if not frames:
            assert info is None
            assert os.listdir(d) == []
            return
        assert isinstance(info, PackInfo) and info.count == len(want)
        assert info.size == info.pack_path.stat().st_size
        assert info.idx_size == info.idx_path.stat().st_size
        assert info.pack_path.name == f"pack-{info.name}.pack"
        assert sorted(os.listdir(d)) == [info.idx_path.name, info.pack_path.name]
        with Pack(info.idx_path) as p:
            assert len(p) == len(want) and p.info() == info
            assert list(p) == sorted(want)
            for oid, frame in want.items():
                assert p.contains(oid)
                assert p.get(oid) == frame
                size = p.entry_size(oid)  # version 3: the size of the object's block
                block = len(zlib.compress(b"".join(want.values()), 0)) + 4 + 4 * len(want)
                assert 0 < size <= block + 16  # 4-byte prefix + small-window overhead
            for f in absent:
                oid = hash_bytes(f)
                if oid not in want:
                    assert not p.contains(oid)
                    with pytest.raises(NotFound):
                        p.get(oid)
            assert p.verify() == []


def test_pack_is_content_named_and_trailer_is_checksum(pack_dir):
    info = write_pack(pack_dir, mixed(10), version=1)
    data = info.pack_path.read_bytes()
    assert data[:4] == PACK_MAGIC and struct.unpack(">II", data[4:12]) == (1, 10)
    assert hash_bytes(data[:-32]) == data[-32:].hex() == info.name
    idx = info.idx_path.read_bytes()
    assert idx[:4] == IDX_MAGIC and hash_bytes(idx[:-32]) == idx[-32:].hex()
    assert idx[-64:-32].hex() == info.name


def test_worked_example_layout(pack_dir):
    """The module doc's worked example, except the zlib bytes (zlib-build dependent)."""
    frame = encode(GOLDEN)
    assert len(frame) == 228 and hash_bytes(frame) == GOLDEN_ID
    info = write_pack(pack_dir, [frame], version=1)
    pk, ix = info.pack_path.read_bytes(), info.idx_path.read_bytes()
    L = struct.unpack(">I", pk[12:16])[0]
    assert pk[:12] == bytes.fromhex("4d50414b 00000001 00000001")
    assert zlib.decompress(pk[16:16 + L]) == frame
    assert len(pk) == 12 + 4 + L + 32 and pk[-32:].hex() == info.name
    assert len(ix) == 1144
    assert ix[:12] == bytes.fromhex("4d494458 00000001 00000001")
    assert ix[0x0c:0x220] == bytes(4 * 133)
    assert ix[0x220:0x40c] == struct.pack(">I", 1) * 123
    assert ix[0x40c:0x42c].hex() == GOLDEN_ID
    assert ix[0x42c:0x434] == bytes.fromhex("00000000 0000000c")
    assert ix[0x434:0x438] == struct.pack(">I", 4 + L)
    assert ix[0x438:0x458].hex() == info.name
    assert ix[0x458:] == bytes.fromhex(hash_bytes(ix[:0x458]))
    if zlib.ZLIB_RUNTIME_VERSION == "1.2.13":  # the build the doc's numbers come from
        assert L == 177 and pk[16:18] == b"\x18\x95"
        assert info.name.startswith("4bb10fd5") and ix[0x458:].hex().startswith("7d5892ec")


def test_worked_example_layout_v2(pack_dir):
    """docs/format.md's version-2 worked example, except the DEFLATE bytes (zlib-build dependent)."""
    frame = encode(GOLDEN)
    info = write_pack(pack_dir, [frame], version=2)
    pk, ix = info.pack_path.read_bytes(), info.idx_path.read_bytes()
    assert pk[:16] == bytes.fromhex("4d50414b 00000002 00000001 00000000")
    L = struct.unpack(">I", pk[16:20])[0]
    assert zlib.decompress(pk[20:20 + L], -15) == frame
    assert len(pk) == 16 + 4 + L + 32 and pk[-32:].hex() == info.name
    assert len(ix) == 1144 and ix[:12] == bytes.fromhex("4d494458 00000002 00000001")
    assert ix[0x40c:0x42c].hex() == GOLDEN_ID
    assert ix[0x42c:0x434] == bytes.fromhex("00000000 00000010")
    assert ix[0x434:0x438] == struct.pack(">I", 4 + L)
    assert ix[0x438:0x458].hex() == info.name and ix[0x458:] == bytes.fromhex(hash_bytes(ix[:0x458]))
    if zlib.ZLIB_RUNTIME_VERSION == "1.2.13":  # the build the doc's numbers come from
        assert L == 171 and info.name.startswith("2558202c") and ix[0x458:].hex().startswith("376244bd")


def test_duplicates_stored_once(pack_dir):
    frames = mixed(50)
    with PackWriter(pack_dir, version=1) as w:
        first = [w.add(f) for f in frames]
        assert w.add_many(frames + frames[:7]) == 0
        assert w.add(frames[3]) == first[3]
        assert w.count == 50
        assert w.add_many([fact(1000), fact(1000)]) == 1
    info = w.info
    assert info.count == 51
    # stored once: the pack is exactly the 51 entries
    with Pack(info.idx_path) as p:
        assert len(p) == 51 and p.verify() == []
        body = sum(4 + p.entry_size(oid) for oid in p)
    assert info.size == 12 + body + 32  # verify() also checks the entries tile the body


def test_dedup_table_survives_growth(pack_dir):
    # > 1024 slots forces several rehashes; re-adding every frame must dedup
    frames = [tomb(i) for i in range(5000)]
    with PackWriter(pack_dir) as w:
        assert w.add_many(frames) == 5000
        assert w.add_many(reversed(frames)) == 0
    assert w.info.count == 5000


def test_writer_rejects_non_frames_and_reuse(pack_dir):
    w = PackWriter(pack_dir)
    with pytest.raises(InvalidInput):
        w.add(b"not a frame")
    w.add(fact(1))
    assert w.finish().count == 1
    with pytest.raises(ValueError):
        w.add(fact(2))
    with pytest.raises(ValueError):
        w.finish()
    w.abort()  # no-op after finish
    assert len(PackSet(pack_dir).packs) == 1


def test_empty_writer_and_abort_leave_nothing(pack_dir):
    assert PackWriter(pack_dir).finish() is None
    assert write_pack(pack_dir, []) is None
    w = PackWriter(pack_dir)
    w.add_many(mixed(20))
    assert len(list(pack_dir.glob("tmp-pack-*"))) == 1
    w.abort()
    w.abort()
    assert list(pack_dir.iterdir()) == []
    with pytest.raises(RuntimeError):
        with PackWriter(pack_dir) as w2:
            w2.add(fact(1))
            raise RuntimeError("boom")
    assert list(pack_dir.iterdir()) == []


def test_a_prepared_pack_is_read_only_once_installed(pack_dir):
    """``finish(install=False)``: the pack and its index are written and
    fsynced as temp files that no reader opens (an import notes its new
    refs in the index journal meanwhile, kil22); :meth:`install` renames
    them into place, :meth:`abort` removes them."""
    frames = mixed(30)
    w = PackWriter(pack_dir)
    w.add_many(frames)
    info = w.finish(install=False)
    assert info.count == 30 and not info.pack_path.exists() and not info.idx_path.exists()
    assert len(list(pack_dir.glob("tmp-pack-*"))) == 2 and PackSet(pack_dir).packs == []
    with pytest.raises(ValueError):
        w.finish()
    assert w.install() is info and info.pack_path.exists() and info.idx_path.exists()
    assert sorted(p.name for p in pack_dir.iterdir()) == sorted([info.pack_path.name, info.idx_path.name])
    assert PackSet(pack_dir).get(hash_bytes(frames[3])) == frames[3]
    with pytest.raises(ValueError):
        w.install()
    w.abort()   # no-op once installed
    assert info.pack_path.exists()
    w2 = PackWriter(pack_dir)
    w2.add_many(mixed(40))
    w2.finish(install=False)
    w2.abort()
    assert sorted(p.name for p in pack_dir.iterdir()) == sorted([info.pack_path.name, info.idx_path.name])


def test_write_pack_leaves_nothing_on_error(pack_dir):
    def gen():
        yield fact(1)
        yield b"garbage"
    with pytest.raises(InvalidInput):
        write_pack(pack_dir, gen())
    assert list(pack_dir.iterdir()) == []


def test_same_content_twice_same_name(pack_dir):
    a = write_pack(pack_dir, mixed(30))
    b = write_pack(pack_dir, mixed(30))
    assert a.name == b.name
    assert sorted(p.name for p in pack_dir.iterdir()) == sorted([a.pack_path.name, a.idx_path.name])


def test_get_rejects_malformed_ids(pack_dir):
    info = write_pack(pack_dir, mixed(3))
    with Pack(info.idx_path) as p:
        for bad in ("abc", "Z" * 64, list(p)[0].upper()):
            assert not p.contains(bad)
            with pytest.raises(InvalidInput):
                p.get(bad)


# -- completeness: the idx is written last --------------------------------------

def test_pack_without_idx_is_ignored(pack_dir):
    kept = write_pack(pack_dir, mixed(5))
    orphan = write_pack(pack_dir, [fact(100), fact(101)])
    orphan.idx_path.unlink()
    (pack_dir / "tmp-pack-999-1").write_bytes(b"MPAK partial")
    ps = PackSet(pack_dir)
    assert [p.name for p in ps.packs] == [kept.name]
    assert not ps.contains(hash_bytes(fact(100)))
    with pytest.raises(NotFound):
        ps.get(hash_bytes(fact(100)))
    assert ps.incomplete_packs() == [orphan.pack_path]
    assert ps.temp_files() == [pack_dir / "tmp-pack-999-1"]


def test_idx_without_pack_is_corruption(pack_dir):
    info = write_pack(pack_dir, mixed(5))
    info.pack_path.unlink()
    with pytest.raises(CorruptObject, match=info.pack_path.name):
        Pack(info.idx_path)
    with pytest.raises(CorruptObject):
        PackSet(pack_dir)
    ps = PackSet(pack_dir, skip_broken=True)
    assert ps.packs == [] and [p for p, _ in ps.broken] == [info.idx_path]


def test_missing_dir_and_bad_names(pack_dir):
    ps = PackSet(pack_dir / "nope")
    assert ps.packs == [] and list(ps) == [] and ps.temp_files() == []
    with pytest.raises(NotFound):
        Pack(pack_dir / ("pack-" + "0" * 64 + ".idx"))
    with pytest.raises(InvalidInput):
        Pack(pack_dir / "foo.idx")


# -- corruption ----------------------------------------------------------------

def test_flipped_entry_byte(pack_dir):
    frames = mixed(3)
    info = write_pack(pack_dir, frames, version=1)
    victim = hash_bytes(frames[1])
    with Pack(info.idx_path) as p:
        off = p._entry(p.find_raw(bytes.fromhex(victim)))[0]
    flip(info.pack_path, off + 20)  # inside the zlib stream of frames[1]
    # opening still works (it compares the trailer with the index, not the content)
    with Pack(info.idx_path) as p:
        with pytest.raises(CorruptObject, match=victim):
            p.get(victim)
        for f in (frames[0], frames[2]):
            assert p.get(hash_bytes(f)) == f
        problems = p.verify()
        assert any(victim in s for s in problems)
        assert any("pack checksum mismatch" in s for s in problems)


@pytest.mark.parametrize("where", ["prefix", "zlib", "last"])
def test_every_entry_damage_is_caught_by_get(pack_dir, where):
    frames = mixed(4)
    info = write_pack(pack_dir, frames, version=1)
    oid = hash_bytes(frames[2])
    with Pack(info.idx_path) as p:
        off, length = p._entry(p.find_raw(bytes.fromhex(oid)))
    flip(info.pack_path, {"prefix": off + 3, "zlib": off + 4 + length // 2, "last": off + length - 1}[where])
    with Pack(info.idx_path) as p:
        with pytest.raises(CorruptObject):
            p.get(oid)
        assert any(oid in s for s in p.verify())
    ps = PackSet(pack_dir)
    with pytest.raises(CorruptObject):
        ps.get(oid)


def test_every_byte_flip_in_pack_is_detected(pack_dir):
    info = write_pack(pack_dir, mixed(3))
    original = info.pack_path.read_bytes()
    for i in range(len(original)):
        info.pack_path.write_bytes(original)
        flip(info.pack_path, i)
        try:
            p = Pack(info.idx_path)
        except (CorruptObject, UnsupportedVersion) as e:
            assert info.pack_path.name in str(e)
            continue
        with p:
            assert p.verify(), f"flip at pack byte {i} not detected"


def test_every_byte_flip_in_idx_is_detected(pack_dir):
    info = write_pack(pack_dir, mixed(3))
    original = info.idx_path.read_bytes()
    opened = 0
    for i in range(len(original)):
        info.idx_path.write_bytes(original)
        flip(info.idx_path, i)
        try:
            p = Pack(info.idx_path)
        except (CorruptObject, UnsupportedVersion) as e:
            assert info.idx_path.name in str(e)
            continue
        opened += 1
        with p:
            assert p.verify(), f"flip at idx byte {i} not detected"
    assert opened > 0  # some flips (ids, offsets, checksum) are only found by verify


@pytest.mark.parametrize("version", [1, 3])
def test_flipped_idx_offset_makes_get_fail_not_lie(pack_dir, version):
    frames = mixed(3)
    info = write_pack(pack_dir, frames, version=version)
    # position 0's offset (version 3: block 0's, after the block numbers, positions and B): low byte
    flip(info.idx_path, 12 + 1024 + 32 * 3 + 7 if version == 1 else 12 + 1024 + 38 * 3 + 4 + 7)
    with Pack(info.idx_path) as p:
        first = next(iter(p))
        with pytest.raises(CorruptObject):
            p.get(first)
        assert p.verify()


@pytest.mark.parametrize("which", ["pack", "idx"])
@pytest.mark.parametrize("keep", [0, 1, 11, 12, 40, -1, -32, -33])
def test_truncated_files_raise_on_open(pack_dir, which, keep):
    info = write_pack(pack_dir, mixed(5))
    path = info.pack_path if which == "pack" else info.idx_path
    size = path.stat().st_size
    truncate(path, keep if keep >= 0 else size + keep)
    with pytest.raises(CorruptObject, match=path.name):
        Pack(info.idx_path)
    with pytest.raises(CorruptObject, match=path.name):
        PackSet(pack_dir)


def test_packset_skip_broken_keeps_the_rest(pack_dir):
    good = write_pack(pack_dir, mixed(5))
    bad = write_pack(pack_dir, [fact(500)])
    truncate(bad.idx_path, 100)
    ps = PackSet(pack_dir, skip_broken=True)
    assert [p.name for p in ps.packs] == [good.name]
    assert ps.broken[0][0] == bad.idx_path and bad.idx_path.name in str(ps.broken[0][1])
    assert ps.get(hash_bytes(fact(0))) == fact(0)


def test_packset_falls_back_to_a_sound_copy(pack_dir):
    frames = mixed(3)
    a = write_pack(pack_dir, frames)
    write_pack(pack_dir, frames + [fact(77)])  # a second copy of every object
    oid = hash_bytes(frames[0])
    with Pack(a.idx_path) as p:
        off, length = p._entry(p.find_raw(bytes.fromhex(oid)))
    flip(a.pack_path, off + length // 2)
    ps = PackSet(pack_dir)
    assert ps.get(oid) == frames[0]


# -- prefixes ------------------------------------------------------------------

def test_prefix_resolution(pack_dir):
    frames = [tomb(i) for i in range(3000)]
    half = len(frames) // 2
    write_pack(pack_dir, frames[:half])
    write_pack(pack_dir, frames[half - 10:])  # overlap: ids in both packs
    all_ids = sorted({hash_bytes(f) for f in frames})
    ps = PackSet(pack_dir)
    assert list(ps) == all_ids
    # unique
    oid = all_ids[1234]
    assert ps.resolve_prefix(oid[:12]) == [oid]
    assert ps.resolve(oid[:12]) == oid
    assert ps.resolve(oid) == oid
    assert ps.resolve(oid[:11].upper()) == oid
    # ambiguous: 4 hex digits over 3000 ids; find a shared 4-digit prefix
    by4: dict[str, list[str]] = {}
    for x in all_ids:
        by4.setdefault(x[:4], []).append(x)
    shared = next(k for k, v in by4.items() if len(v) > 1)
    assert ps.resolve_prefix(shared) == by4[shared]
    with pytest.raises(AmbiguousId):
        ps.resolve(shared)
    # odd-length prefix
    p5 = oid[:5]
    assert ps.resolve_prefix(p5) == [x for x in all_ids if x.startswith(p5)]
    # none
    missing = next(f"{i:04x}" for i in range(65536) if f"{i:04x}" not in by4)
    assert ps.resolve_prefix(missing) == []
    with pytest.raises(NotFound):
        ps.resolve(missing)
    with pytest.raises(NotFound):
        ps.resolve("f" * 64 if "f" * 64 not in all_ids else "0" * 64)
    # bad input
    for bad in ("abc", "xyz1", ""):
        with pytest.raises(InvalidInput):
            ps.resolve_prefix(bad)
    # per pack
    for p in ps.packs:
        assert p.resolve_prefix(shared) == [x for x in by4[shared] if p.contains(x)]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2**40), min_size=1, max_size=200, unique=True), st.data())
def test_prefix_matches_linear_scan(times, data):
    frames = [tomb(t) for t in times]
    with tempfile.TemporaryDirectory() as d:
        write_pack(Path(d), frames)
        ids_ = sorted({hash_bytes(f) for f in frames})
        ps = PackSet(d)
        target = data.draw(st.sampled_from(ids_))
        k = data.draw(st.integers(4, 64))
        prefix = target[:k]
        assert ps.resolve_prefix(prefix) == [x for x in ids_ if x.startswith(prefix)]
        ps.close()


# -- PackSet -------------------------------------------------------------------

def test_packset_over_several_packs(pack_dir):
    groups = [mixed(40)[i::4] for i in range(4)]
    infos = [write_pack(pack_dir, g) for g in groups]
    ps = PackSet(pack_dir)
    assert sorted(p.name for p in ps.packs) == sorted(i.name for i in infos)
    everything = {hash_bytes(f): f for g in groups for f in g}
    assert list(ps) == sorted(everything)
    for oid, frame in everything.items():
        assert ps.contains(oid) and oid in ps
        assert ps.get(oid) == frame
    absent = hash_bytes(fact(9999))
    assert not ps.contains(absent)
    with pytest.raises(NotFound):
        ps.get(absent)
    # reload picks up a new pack and forgets a deleted one
    new = write_pack(pack_dir, [fact(9999)])
    assert not ps.contains(absent)
    ps.reload()
    assert ps.get(absent) == fact(9999)
    infos[0].idx_path.unlink()
    infos[0].pack_path.unlink()
    kept = {p.name: p for p in ps.packs}
    ps.reload()
    assert infos[0].name not in {p.name for p in ps.packs}
    assert new.name in {p.name for p in ps.packs}
    assert all(kept[p.name] is p for p in ps.packs if p.name in kept)  # unchanged packs stay open
    gone = hash_bytes(groups[0][0])
    assert not ps.contains(gone)
    ps.close()


def test_remove_pack(pack_dir):
    a = write_pack(pack_dir, mixed(10))
    b = write_pack(pack_dir, [fact(500)])
    ps = PackSet(pack_dir)
    reader = Pack(b.idx_path)  # another reader that already has it open
    pb = next(p for p in ps.packs if p.name == b.name)
    ps.remove_pack(pb)
    assert not b.idx_path.exists() and not b.pack_path.exists()
    assert [p.name for p in ps.packs] == [a.name]
    with pytest.raises(NotFound):
        ps.get(hash_bytes(fact(500)))
    # POSIX: the open reader still reads the unlinked files
    assert reader.get(hash_bytes(fact(500))) == fact(500)
    reader.close()
    ps.reload()
    assert [p.name for p in PackSet(pack_dir).packs] == [a.name]
    assert ps.incomplete_packs() == [] and ps.temp_files() == []


def test_remove_order_idx_first(pack_dir):
    """A crash between the two unlinks leaves a .pack without .idx: ignored."""
    info = write_pack(pack_dir, mixed(3))
    info.idx_path.unlink()  # what remove_pack does first
    ps = PackSet(pack_dir)
    assert ps.packs == [] and ps.incomplete_packs() == [info.pack_path]


# -- scale -----------------------------------------------------------------------

def _many(n: int):
    for i in range(n):
        yield encode(Tombstone(key=f"project/p/key-{i}", value_sha256=i.to_bytes(32, "big"), time=i))


def test_100k_pack_timings(pack_dir):
    n = 100_000
    frames = list(_many(n))
    t0 = time.process_time()
    info = write_pack(pack_dir, frames, version=1)
    write_s = time.process_time() - t0
    assert info.count == n and info.idx_size == 1100 + 44 * n

    opens = []
    for _ in range(20):
        t0 = time.process_time()
        p = Pack(info.idx_path)
        opens.append(time.process_time() - t0)
        p.close()
    open_ms = sorted(opens)[len(opens) // 2] * 1e3

    with Pack(info.idx_path) as p:
        probe = [hash_bytes(f) for f in frames[::50]]  # 2,000 ids
        t0 = time.process_time()
        for oid, frame in zip(probe, frames[::50]):
            assert p.get(oid) == frame
        get_us = (time.process_time() - t0) / len(probe) * 1e6
        t0 = time.process_time()
        for oid in probe:
            assert p.contains(oid)
        contains_us = (time.process_time() - t0) / len(probe) * 1e6
        absent = [hash_bytes(fact(-i)) for i in range(1, 501)]
        assert not any(p.contains(x) for x in absent)
        t0 = time.process_time()
        assert p.resolve_prefix(probe[7][:8]) == [probe[7]]
        prefix_us = (time.process_time() - t0) * 1e6
        t0 = time.process_time()
        assert p.verify() == []
        verify_s = time.process_time() - t0

    print(f"\n100k pack: write {write_s:.2f} s ({info.size / 1e6:.1f} MB pack, {info.idx_size / 1e6:.1f} MB idx), "
          f"open {open_ms:.3f} ms (median of 20), get {get_us:.1f} us/object (verified), "
          f"contains {contains_us:.1f} us, prefix {prefix_us:.0f} us, verify {verify_s:.2f} s")
    assert open_ms < 20
    assert get_us < 1000


def test_opening_a_1m_index_is_cheap(pack_dir):
    """Opening reads neither the ids nor the pack body: a synthetic 1M-object
    index (well-formed header, fan-out, sorted ids and checksums; entries
    pointing nowhere) opens in well under a millisecond, and lookups stay
    O(log n)."""
    n = 1 << 20
    shift = 256 - 20
    ids = b"".join([(i << shift | 0x5A5A).to_bytes(32, "big") for i in range(n)])  # ascending
    fanout = struct.pack(">256I", *[(b + 1) * (n // 256) for b in range(256)])  # 4096 ids per first byte
    pack_body = struct.pack(">4sII", PACK_MAGIC, 1, n)
    pack_sum = bytes.fromhex(hash_bytes(pack_body))
    pack_dir.mkdir(parents=True)
    (pack_dir / f"pack-{pack_sum.hex()}.pack").write_bytes(pack_body + pack_sum)
    idx = (struct.pack(">4sII", IDX_MAGIC, 1, n) + fanout + ids + bytes(8 * n)
           + struct.pack(">I", 5) * n + pack_sum)
    idx_path = pack_dir / f"pack-{pack_sum.hex()}.idx"
    idx_path.write_bytes(idx + bytes.fromhex(hash_bytes(idx)))
    del ids, idx
    assert idx_path.stat().st_size == idx_size(n, 1)
    opens = []
    for _ in range(50):
        t0 = time.process_time()
        p = Pack(idx_path)
        opens.append(time.process_time() - t0)
        p.close()
    open_ms = sorted(opens)[len(opens) // 2] * 1e3
    with Pack(idx_path) as p:
        assert len(p) == n
        probe = [(i << shift | 0x5A5A).to_bytes(32, "big").hex() for i in range(0, n, 997)]
        t0 = time.process_time()
        assert all(p.contains(x) for x in probe)
        contains_us = (time.process_time() - t0) / len(probe) * 1e6
        assert not p.contains((5 << shift | 0x5A5B).to_bytes(32, "big").hex())
        assert p.resolve_prefix(probe[3][:6]) == [probe[3]]
        with pytest.raises(CorruptObject):  # entries point outside the (empty) body
            p.get(probe[0])
    print(f"\n1M-object index ({idx_size(n, 1) / 1e6:.0f} MB): open {open_ms:.3f} ms (median of 50), "
          f"contains {contains_us:.1f} us")
    assert open_ms < 5


def test_writer_memory_is_bounded(pack_dir):
    """The writer keeps ~50-70 bytes per object (id, offset, length, dedup
    slot), never the frames.  Frames are encoded before tracing starts (cbor2
    under tracemalloc would triple the run time); that they are not retained
    is checked by reference count."""
    n = 200_000
    frames = list(_many(n))
    sample = frames[123]
    refs = sys.getrefcount(sample)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        with PackWriter(pack_dir) as w:
            for frame in frames:
                w.add(frame)
            before_finish = tracemalloc.get_traced_memory()[1] - base
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert sys.getrefcount(sample) == refs  # the writer holds no frame
    assert w.info.count == n
    print(f"\n200k writer: tracemalloc peak {peak / 1e6:.1f} MB ({peak / n:.0f} B/object; "
          f"{before_finish / 1e6:.1f} MB before finish), pack {w.info.size / 1e6:.1f} MB")
    assert peak < 25e6  # a dict of 200k hex ids alone would be > 30 MB
    assert peak / n < 120


def test_raw_entries_copy_into_a_new_pack(tmp_path):
    from objstore.core.pack import Pack
    from objstore.core.packwriter import PackWriter
    frames = list(mixed(50))
    src = write_pack(tmp_path / "a", frames, version=1)
    with Pack(src.idx_path) as p:
        w = PackWriter(tmp_path / "b", version=1)
        for oid in p:
            w.add_entry(oid, p.raw_entry(oid))
        copied = w.finish()
    assert copied.count == len(set(map(hash_bytes, frames)))
    with Pack(src.idx_path) as a, Pack(copied.idx_path) as b:
        assert list(a) == list(b)
        assert all(a.get(o) == b.get(o) for o in a)
        assert b.verify() == []


# -- format 2: a raw DEFLATE stream per object, with the pack's preset dictionary -------------------

def _chain(n: int, width: int = 1, per: int = 50) -> list[bytes]:
    """Turns of sessions of ``per`` turns each, every turn's parent the one
    before it in its session (as an import writes them)."""
    out: list[bytes] = []
    parent = None
    for i in range(n):
        if i % per == 0:
            parent = None
        out.append(encode(Turn(session=f"s{i // per}", seq=i % per, role=("user", "assistant", "tool")[i % 3],
                               text=f"Let me look at src/module_{i % 7}.py and run the tests ({i}). " * width,
                               timestamp=1772000000000 + i, harness="claude-code", cwd="/home/ana/code/acme",
                               project="acme", source=f"cc:{i}", parent=parent)))
        parent = hash_bytes(out[-1])
    return out


def _turns(n: int, width: int = 1) -> list[bytes]:
    return [encode(Turn(session=f"s{i // 50}", seq=i % 50, role=("user", "assistant", "tool")[i % 3],
                        text=f"Let me look at src/module_{i % 7}.py and run the tests again ({i}). " * width,
                        timestamp=1772000000000 + i, harness="claude-code", cwd="/home/ana/code/acme",
                        project="acme", source=f"cc:{i}", parent=None)) for i in range(n)]


def _fill(blocks: float, width: int = 3) -> int:
    """How many frames of :func:`_chain` at ``width`` fill about ``blocks``
    blocks of the writer's BLOCK_BYTES (~340 bytes a frame at width 3): the
    tests of blocks follow the block size the writer closes at."""
    from objstore.core.pack import BLOCK_BYTES
    return int(blocks * BLOCK_BYTES * 50 / sum(map(len, _chain(50, width))))


def test_v2_layout_dictionary_and_entries(pack_dir):
    """A version-2 pack: header version 2, the dictionary's length and bytes
    at offset 12, then one length-prefixed raw DEFLATE stream per object
    that decompresses with that dictionary as zlib's preset dictionary;
    the index has the version-1 layout (1100 + 44·N) with version 2."""
    from objstore.core.pack import HEADER_LEN, U32
    frames = _turns(300)
    info = write_pack(pack_dir, frames, version=2)
    assert info.idx_size == info.idx_path.stat().st_size == idx_size(300, 2) == 1100 + 44 * 300
    assert info.idx_path.read_bytes()[:8] == IDX_MAGIC + b"\x00\x00\x00\x02"
    data = info.pack_path.read_bytes()
    assert data[:12] == PACK_MAGIC + b"\x00\x00\x00\x02" + (300).to_bytes(4, "big")
    d = U32.unpack_from(data, HEADER_LEN)[0]
    assert 4096 <= d <= 32 * 1024
    pos, got = 16 + d, []
    while pos < len(data) - 32:
        n = U32.unpack_from(data, pos)[0]
        dctx = zlib.decompressobj(-15, zdict=data[16:16 + d])
        got.append(dctx.decompress(data[pos + 4:pos + 4 + n]))
        assert dctx.eof and not dctx.unused_data
        pos += 4 + n
    assert pos == len(data) - 32 and got == frames  # write order kept
    with Pack(info.idx_path) as p:
        assert p.version == 2 and p.verify() == [] and p.dictionary() == data[16:16 + d]
        assert all(p.get(hash_bytes(f)) == f for f in frames)
        assert [p.get(o) for o in p.ids_in_body_order()] == frames


@pytest.mark.parametrize("version", [2, 3, 4])
def test_v2_small_pack_has_no_dictionary(pack_dir, version):
    info = write_pack(pack_dir, mixed(5), version=version)
    data = info.pack_path.read_bytes()
    assert data[12:16] == b"\x00\x00\x00\x00"
    with Pack(info.idx_path) as p:
        assert p.verify() == [] and p.dictionary() == b""
        assert all(p.get(hash_bytes(f)) == f for f in mixed(5))


def test_v2_is_much_smaller_than_v1_for_turns(tmp_path):
    frames = _turns(3000)
    v1 = write_pack(tmp_path / "a", frames, version=1)
    v2 = write_pack(tmp_path / "b", frames, version=2)
    assert v2.size < v1.size / 2


def test_v2_damage_stays_with_one_object(pack_dir):
    """A flipped byte in one entry damages that object only."""
    from objstore.core.pack import HEADER_LEN, U32
    frames = _turns(300)
    info = write_pack(pack_dir, frames, version=2)
    data = info.pack_path.read_bytes()
    d = U32.unpack_from(data, HEADER_LEN)[0]
    with Pack(info.idx_path) as p:
        victim = p.ids_in_body_order()[150]
        off = p._entry(p.find_raw(bytes.fromhex(victim)))[0]
    flip(info.pack_path, off + 10)
    with Pack(info.idx_path) as p:
        assert any(victim in e for e in p.verify())
        bad = []
        for f in frames:
            try:
                assert p.get(hash_bytes(f)) == f
            except CorruptObject:
                bad.append(hash_bytes(f))
        assert bad == [victim]
    assert d  # (a damaged dictionary would take every object of the pack: the checksum trailer catches it)


def test_v2_entries_copy_with_the_same_dictionary(tmp_path):
    frames = _turns(200)
    src = write_pack(tmp_path / "a", frames, version=2)
    with Pack(src.idx_path) as p:
        with pytest.raises(InvalidInput):
            PackWriter(tmp_path / "x", version=2).add_entry(hash_bytes(frames[0]),
                                                            p.raw_entry(hash_bytes(frames[0])))
        w = PackWriter(tmp_path / "b", dictionary=p.dictionary(), version=2)
        for oid in p.ids_in_body_order()[::2]:
            w.add_entry(oid, p.raw_entry(oid))
        copied = w.finish()
    with Pack(copied.idx_path) as b:
        assert b.verify() == [] and len(b) == 100
        assert all(b.get(hash_bytes(f)) == f for f in frames[::2])


def test_older_packs_still_read_and_repack_into_v4(tmp_path):
    """A store whose packs are version 1, 2 or 3 (written before format 4)
    reads as before; Store.repack (gc, delete) rewrites them as version 4
    (a dropped object among a version-2 pack's dictionary frames: here
    every frame is one) and the dropped objects are gone."""
    from objstore.core.store import Store
    store = Store.init(tmp_path / "s")
    frames = _turns(180)
    pdir = store.root / "objects" / "pack"
    write_pack(pdir, frames[:60], version=1)
    write_pack(pdir, frames[60:120], version=2)
    write_pack(pdir, frames[120:150], version=3)
    write_pack(pdir, frames[150:], version=4)
    store.packs.reload()
    assert sorted(p.version for p in store.packs.packs) == [1, 2, 3, 4]
    assert all(store.read_frame(hash_bytes(f)) == f for f in frames)
    gone = [hash_bytes(frames[5]), hash_bytes(frames[70]), hash_bytes(frames[130]), hash_bytes(frames[160])]
    with store.lock("test"):
        assert store.delete_objects(gone) == 4
    store.packs.reload()
    # the version-4 pack (30 frames: no dictionary) is copied without its object into version 5 (its
    # blocks as they are, the smaller index), the others repacked into version 6
    assert sorted(p.version for p in store.packs.packs) == [5, 8]  # the store writes 8 (packlines)
    assert not any(store.has(g) for g in gone)
    assert all(store.read_frame(hash_bytes(f)) == f for i, f in enumerate(frames) if i not in (5, 70, 130, 160))
    for p in store.packs.packs:
        assert p.verify() == []
    store.close()


@pytest.mark.parametrize("version", [2, 3, 4])
def test_delete_copies_entries_when_the_dictionary_holds_no_dropped_object(tmp_path, version):
    """Store.delete_objects (forget) of an object after the frames a
    version-2 pack's dictionary was made from copies the other entries under
    the same dictionary (which the new pack's first frames give again); one
    of those frames dropped makes a new dictionary without it."""
    from objstore.core.pack import TRAIN_FRAMES
    from objstore.core.packencode import make_dictionary
    from objstore.core.store import Store
    store = Store.init(tmp_path / "s")
    frames = _turns(TRAIN_FRAMES + 300)
    frames[TRAIN_FRAMES + 10] = encode(Turn(session="s9", seq=1, role="user", text="late canary-7731 " * 20,
                                            timestamp=1, harness="claude-code", cwd="/w", project="acme",
                                            source="cc:late", parent=None))
    frames[TRAIN_FRAMES - 10] = encode(Turn(session="s9", seq=2, role="user", text="early canary-9913", timestamp=2,
                            harness="claude-code", cwd="/w", project="acme", source="cc:early", parent=None))
    write_pack(store.root / "objects" / "pack", frames, version=version)
    store.packs.reload()
    (old,) = store.packs.packs
    d0 = old.dictionary()
    assert b"canary-9913" in d0 and b"canary-7731" not in d0
    late, early = hash_bytes(frames[TRAIN_FRAMES + 10]), hash_bytes(frames[TRAIN_FRAMES - 10])
    with store.lock("test"):
        assert store.delete_objects([late]) == 1
    store.packs.reload()
    (p,) = store.packs.packs
    assert p.dictionary() == d0 and not store.has(late) and p.verify() == []
    assert make_dictionary([p.get(i) for i in p.ids_in_body_order()[:TRAIN_FRAMES]]) == d0
    unsampled = hash_bytes(frames[5])  # among the first frames, but not one the dictionary took bytes from
    with store.lock("test"):
        assert store.delete_objects([unsampled]) == 1
    store.packs.reload()
    (p,) = store.packs.packs
    assert p.dictionary() == d0 and not store.has(unsampled) and p.verify() == []
    with store.lock("test"):
        assert store.delete_objects([early]) == 1
    store.packs.reload()
    (p,) = store.packs.packs
    assert b"canary-9913" not in p.dictionary() and not store.has(early) and p.verify() == []
    keep = [f for i, f in enumerate(frames) if i not in (5, TRAIN_FRAMES - 10, TRAIN_FRAMES + 10)]
    assert all(store.read_frame(hash_bytes(f)) == f for f in keep)
    assert not any(b"canary" in p.get(i) for i in p)
    store.close()


def test_drop_pages_leaves_lookups_working(tmp_path):
    """PackSet.drop_pages (an import, after each publish) lets go of the
    index pages read so far; every object is still found and read."""
    frames = _turns(300)
    write_pack(tmp_path / "p", frames[:150])
    write_pack(tmp_path / "p", frames[150:])
    with PackSet(tmp_path / "p") as ps:
        assert all(ps.get(hash_bytes(f)) == f for f in frames)
        ps.drop_pages()
        assert all(ps.get(hash_bytes(f)) == f for f in frames[::-1])
        assert not ps.contains("0" * 64)


# -- format 3: raw DEFLATE blocks of several objects, with the pack's preset dictionary -------------

def _blocks(data: bytes) -> list[tuple[int, int, bytes]]:
    """``(offset, entry length, compressed stream)`` of every block of a version-3 pack file."""
    from objstore.core.pack import HEADER_LEN, U32
    d = U32.unpack_from(data, HEADER_LEN)[0]
    pos, out = 16 + d, []
    while pos < len(data) - 32:
        n = U32.unpack_from(data, pos)[0]
        out.append((pos, 4 + n, data[pos + 4:pos + 4 + n]))
        pos += 4 + n
    assert pos == len(data) - 32
    return out


def test_v3_layout_dictionary_and_blocks(pack_dir):
    """A version-3 pack: header version 3, the dictionary's length and bytes
    at offset 12, then length-prefixed raw DEFLATE streams of blocks, each
    inflating (with the dictionary as zlib's preset dictionary) to u32 K,
    K u32 frame lengths and the K frames; the index (1104 + 38·N + 12·B
    bytes) gives each object its block's number (u32) and its position in
    it (u16), then B and the B blocks' offsets (u64) and lengths (u32)."""
    from objstore.core.pack import BLOCK_BYTES, HEADER_LEN, U32
    n = _fill(4.7)  # four blocks and part of a fifth
    frames = _turns(n, width=3)
    info = write_pack(pack_dir, frames, version=3)
    ix = info.idx_path.read_bytes()
    nb = struct.unpack_from(">I", ix, 1036 + 38 * n)[0]
    assert info.idx_size == len(ix) == idx_size(n, 3, nb) == 1104 + 38 * n + 12 * nb
    assert ix[:8] == IDX_MAGIC + b"\x00\x00\x00\x03"
    data = info.pack_path.read_bytes()
    assert data[:12] == PACK_MAGIC + b"\x00\x00\x00\x03" + (n).to_bytes(4, "big")
    d = U32.unpack_from(data, HEADER_LEN)[0]
    assert 4096 <= d <= 32 * 1024
    got, where = [], {}
    blocks = _blocks(data)
    assert len(blocks) == nb > 3
    for off, length, stream in blocks:
        dctx = zlib.decompressobj(-15, zdict=data[16:16 + d])
        content = dctx.decompress(stream)
        assert dctx.eof and not dctx.unused_data
        k = U32.unpack_from(content, 0)[0]
        lens = struct.unpack_from(f">{k}I", content, 4)
        pos = 4 + 4 * k
        for j, n in enumerate(lens):
            got.append(content[pos:pos + n])
            where[hash_bytes(content[pos:pos + n])] = (off, length, j)
            pos += n
        assert pos == len(content)
        assert sum(lens) - lens[-1] < BLOCK_BYTES  # a block closes once it holds BLOCK_BYTES
    assert got == frames  # write order kept
    n = len(frames)
    table = 1040 + 38 * n
    for i in range(n):
        oid = ix[1036 + 32 * i:1068 + 32 * i].hex()
        b = struct.unpack_from(">I", ix, 1036 + 32 * n + 4 * i)[0]
        k = struct.unpack_from(">H", ix, 1036 + 36 * n + 2 * i)[0]
        off = struct.unpack_from(">Q", ix, table + 8 * b)[0]
        length = struct.unpack_from(">I", ix, table + 8 * nb + 4 * b)[0]
        assert where[oid] == (off, length, k) and (off, length) == blocks[b][:2]
    assert ix[table + 12 * nb:table + 12 * nb + 32].hex() == info.name
    with Pack(info.idx_path) as p:
        assert p.version == 3 and p.verify() == [] and p.dictionary() == data[16:16 + d]
        assert all(p.get(hash_bytes(f)) == f for f in frames)
        assert [p.get(o) for o in p.ids_in_body_order()] == frames
        assert [f for _o, f in p.frames_in_body_order()] == frames


def test_worked_example_layout_v3(pack_dir):
    """docs/format.md's version-3 worked example, except the DEFLATE bytes (zlib-build dependent)."""
    frame = encode(GOLDEN)
    info = write_pack(pack_dir, [frame], version=3)
    pk, ix = info.pack_path.read_bytes(), info.idx_path.read_bytes()
    assert pk[:16] == bytes.fromhex("4d50414b 00000003 00000001 00000000")
    L = struct.unpack(">I", pk[16:20])[0]
    assert zlib.decompress(pk[20:20 + L], -15) == struct.pack(">II", 1, len(frame)) + frame
    assert len(pk) == 16 + 4 + L + 32 and pk[-32:].hex() == info.name
    assert len(ix) == 1154 and ix[:12] == bytes.fromhex("4d494458 00000003 00000001")
    assert ix[0x40c:0x42c].hex() == GOLDEN_ID
    assert ix[0x42c:0x432] == bytes.fromhex("00000000 0000")      # block 0, position 0
    assert ix[0x432:0x436] == bytes.fromhex("00000001")           # B = 1
    assert ix[0x436:0x43e] == bytes.fromhex("00000000 00000010")  # block 0 at offset 16
    assert ix[0x43e:0x442] == struct.pack(">I", 4 + L)
    assert ix[0x442:0x462].hex() == info.name and ix[0x462:] == bytes.fromhex(hash_bytes(ix[:0x462]))
    if zlib.ZLIB_RUNTIME_VERSION == "1.2.13":  # the build the doc's numbers come from
        assert L == 183 and info.name.startswith("0f28044f") and ix[0x462:].hex().startswith("1b745c65")


@pytest.mark.parametrize("version", [3, 4])
def test_v3_damage_stays_in_its_block(pack_dir, version):
    """A flipped byte in a block damages objects of that block only, from
    about the damaged one on: every object of every other block still
    reads, verify names each lost object, and the objects of the block
    before the damage still read."""
    frames = _chain(_fill(4.7), width=3)
    info = write_pack(pack_dir, frames, version=version)
    blocks = _blocks(info.pack_path.read_bytes())
    off, length, _stream = blocks[2]
    flip(info.pack_path, off + length - 20)   # near the end of the third block
    with Pack(info.idx_path) as p:
        members = {o for o in p if p._entry(p.find_raw(bytes.fromhex(o)))[0] == off}
        order = [o for o in p.ids_in_body_order() if o in members]
        bad = []
        for f in frames:
            try:
                assert p.get(hash_bytes(f)) == f
            except CorruptObject as e:
                assert "of its block" in str(e) or "hashes to" in str(e)
                bad.append(hash_bytes(f))
        assert bad and set(bad) <= members
        assert bad == order[len(order) - len(bad):]  # the last ones of the block: those before read
        assert len(bad) < len(order)
        problems = p.verify()
        assert {o for o in bad if any(o in e for e in problems)} == set(bad)
        assert not any(o in e for e in problems for o in set(p) - set(bad))
        assert {o for o, f in p.frames_in_body_order() if isinstance(f, CorruptObject)} == set(bad)


@pytest.mark.parametrize("version", [3, 4])
def test_v3_salvage_reads_every_block_without_the_index(pack_dir, version):
    from objstore.core.salvage import salvage_pack
    n = _fill(3.1)
    frames = _chain(n, width=3)
    info = write_pack(pack_dir, frames, version=version)
    assert [f for _o, f in salvage_pack(info.pack_path)] == frames
    off, length, _stream = _blocks(info.pack_path.read_bytes())[1]
    flip(info.pack_path, off + 30)  # early in the second block: the block is lost, the rest salvaged
    got = {o for o, _f in salvage_pack(info.pack_path)}
    assert len(got) < n and set(got) <= {hash_bytes(f) for f in frames}
    assert {hash_bytes(f) for f in frames[-100:]} <= got


@pytest.mark.parametrize("version", [3, 4])
def test_v3_blocks_copy_with_the_same_dictionary(tmp_path, version):
    frames = _chain(_fill(4.7), width=3)
    src = write_pack(tmp_path / "a", frames, version=version)
    with Pack(src.idx_path) as p:
        with pytest.raises(InvalidInput):
            PackWriter(tmp_path / "x").add_block(["00" * 32], b"")  # no dictionary given
        with pytest.raises(ValueError):
            p.raw_entry(hash_bytes(frames[0]))
        w = PackWriter(tmp_path / "b", dictionary=p.dictionary(), version=version)
        blocks = list(p.raw_blocks_in_body_order())
        w.add(frames[-1])                            # already in the writer: that block is not copied
        assert [w.add_block(ids, data) for ids, data in blocks[1:]][-1] is False
        assert all(w.add_block(ids, data) is True for ids, data in blocks[1:-1]) is False  # each once
        copied = w.finish()
    with Pack(copied.idx_path) as b:
        assert b.verify() == []
        want = {hash_bytes(f) for ids, _d in blocks[1:-1] for f in frames if hash_bytes(f) in ids} | \
            {hash_bytes(frames[-1])}
        assert set(b) == want and all(b.get(o) == p2 for o, p2 in ((hash_bytes(f), f) for f in frames) if o in want)


@pytest.mark.parametrize("which", ["pack", "idx", "both"])
def test_a_newer_pack_version_is_refused_as_unsupported(pack_dir, which):
    """An older mem meeting a pack of a newer version (a pull, a clone, a
    copied store) says so (UnsupportedVersion, exit 14), never reads it as
    damage or garbage: here, version 6 in this mem's place (5), in both files
    as a newer mem writes them.  One of the two alone at 6 beside the
    other's 5 is a damaged field (session 13): CorruptObject, exit 13."""
    from objstore.core.pack import PackBytes
    from objstore.core.packformat import READ_VERSIONS
    newer = READ_VERSIONS[-1] + 1  # 8 (PACK_VERSION + 1 is 7, which this mem reads: opt-in zstd)
    info = write_pack(pack_dir, _turns(40))
    for path in ([info.pack_path] if which == "pack" else [info.idx_path] if which == "idx"
                 else [info.pack_path, info.idx_path]):
        data = bytearray(path.read_bytes())
        data[4:8] = newer.to_bytes(4, "big")
        path.write_bytes(bytes(data))
    error = UnsupportedVersion if which == "both" else CorruptObject
    with pytest.raises(error, match=f"version {newer}"):
        Pack(info.idx_path)
    with pytest.raises(error, match=f"version {newer}"):
        PackBytes(info.pack_path.read_bytes(), info.idx_path.read_bytes())
    with pytest.raises(error):
        PackSet(pack_dir)


@pytest.mark.parametrize("version", [3, 4])
def test_v3_verify_finds_a_block_object_the_index_does_not_list(pack_dir, version):
    """An index that lists fewer objects than a block holds (a damaged or
    hand-made index) is found by verify, though every listed object reads."""
    frames = _chain(300, width=3)
    info = write_pack(pack_dir, frames, version=version)
    with Pack(info.idx_path) as p:
        ids, data = next(iter(p.raw_blocks_in_body_order()))
        w = PackWriter(pack_dir.parent / "b", dictionary=p.dictionary(), version=version)
        assert w.add_block(ids[:-1], data)
        short = w.finish()
    with Pack(short.idx_path) as b:
        assert all(b.get(o) for o in ids[:-1])
        assert any(f"holds {len(ids)} objects, its index lists {len(ids) - 1}" in e for e in b.verify())


@pytest.mark.parametrize("version", [3, 4])
def test_v3_reads_from_several_threads(pack_dir, version):
    """Threads reading one version-3 pack at once (the proxy's request
    threads, the helper) each get the right frames: the blocks a pack keeps
    are shared, its inflater holds no state between reads."""
    import random
    import threading
    n = _fill(6)
    frames = _chain(n, width=3)
    info = write_pack(pack_dir, frames, version=version)
    want = {hash_bytes(f): f for f in frames}
    errors: list[str] = []
    with PackSet(pack_dir) as ps:
        def reader(seed: int) -> None:
            rnd = random.Random(seed)
            keys = list(want)
            for _ in range(400):
                oid = rnd.choice(keys)
                if ps.get(oid) != want[oid]:
                    errors.append(oid)
        threads = [threading.Thread(target=reader, args=(s,)) for s in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads)
        ps.drop_pages()
        assert all(ps.get(o) == f for o, f in list(want.items())[::50])
    assert errors == [] and info.count == n


# -- format 4: the blocks of format 3, a parent id left out when it is an earlier frame's of the block -------

def _v4_blocks(data: bytes) -> list[tuple[list[int], list[bytes]]]:
    """``(refs, stored frames)`` of every block of a version-4 pack file, inflated by hand."""
    from objstore.core.pack import HEADER_LEN, U32
    d = U32.unpack_from(data, HEADER_LEN)[0]
    out = []
    for _off, _length, stream in _blocks(data):
        dctx = zlib.decompressobj(-15, zdict=data[16:16 + d]) if d else zlib.decompressobj(-15)
        content = dctx.decompress(stream)
        assert dctx.eof and not dctx.unused_data
        k = U32.unpack_from(content, 0)[0]
        lens = struct.unpack_from(f">{k}I", content, 4)
        refs = list(struct.unpack_from(f">{k}H", content, 4 + 4 * k))
        pos, stored = 4 + 6 * k, []
        for n in lens:
            stored.append(content[pos:pos + n])
            pos += n
        assert pos == len(content)
        out.append((refs, stored))
    return out


def test_v4_layout_parents_left_out_and_body_tables(pack_dir):
    """A version-4 pack: version-3 blocks whose content has K u16 parent
    references after the lengths; a frame whose parent (the 32 bytes after
    its last ``66 'parent' 58 20``) is an earlier frame of its block is
    stored without those 32 bytes and names that frame (j + 1); any other
    is stored whole (0).  The index is version 3's (1104 + 38·N + 12·B
    bytes) followed by each block's first body position (u32) and, per body
    position, the object's place in the id table (u32): 1104 + 42·N + 16·B."""
    from objstore.core.pack import PARENT_MARK
    n = _fill(4.7)
    frames = _chain(n, width=3, per=40)
    info = write_pack(pack_dir, frames, version=4)
    ix, data = info.idx_path.read_bytes(), info.pack_path.read_bytes()
    nb = struct.unpack_from(">I", ix, 1036 + 38 * n)[0]
    assert ix[:8] == IDX_MAGIC + b"\x00\x00\x00\x04" and data[:8] == PACK_MAGIC + b"\x00\x00\x00\x04"
    assert info.idx_size == len(ix) == idx_size(n, 4, nb) == 1104 + 42 * n + 16 * nb
    blocks = _v4_blocks(data)
    assert len(blocks) == nb > 3
    got, firsts, cut = [], [], 0
    for refs, stored in blocks:
        firsts.append(len(got))
        ids: list[bytes] = []
        for k, (r, s) in enumerate(zip(refs, stored)):
            if r:
                assert 1 <= r <= k
                p = s.rfind(PARENT_MARK) + len(PARENT_MARK)
                s = s[:p] + ids[r - 1] + s[p:]
                cut += 1
            got.append(s)
            ids.append(bytes.fromhex(hash_bytes(s)))
    assert got == frames
    # every turn but the first of its session, and but the first of its block, lost its parent id
    starts = {i for i in range(n) if i % 40 == 0} | set(firsts)
    assert cut == n - len(starts)
    table = 1040 + 38 * n
    assert [struct.unpack_from(">I", ix, table + 12 * nb + 4 * b)[0] for b in range(nb)] == firsts
    sorted_ids = [ix[1036 + 32 * i:1068 + 32 * i].hex() for i in range(n)]
    inv = struct.unpack_from(f">{n}I", ix, table + 16 * nb)
    assert [sorted_ids[inv[o]] for o in range(n)] == [hash_bytes(f) for f in frames]
    assert ix[table + 16 * nb + 4 * n:table + 16 * nb + 4 * n + 32].hex() == info.name
    with Pack(info.idx_path) as p:
        assert p.version == 4 and p.verify() == []
        assert all(p.get(hash_bytes(f)) == f for f in frames[::-1])
        assert [f for _o, f in p.frames_in_body_order()] == frames
    with Pack(info.idx_path) as p:  # a new reader, objects read alone (no block kept)
        assert all(p.get(hash_bytes(frames[i])) == frames[i] for i in (n - 1, n // 2, 41, 1))
    from objstore.core.pack import PackBytes
    pb = PackBytes(data, ix)
    assert all(pb.get(hash_bytes(f)) == f for f in frames[::97])


def test_worked_example_layout_v4(pack_dir):
    """docs/format.md's version-4 worked example, except the DEFLATE bytes (zlib-build dependent)."""
    frame = encode(GOLDEN)
    info = write_pack(pack_dir, [frame], version=4)
    pk, ix = info.pack_path.read_bytes(), info.idx_path.read_bytes()
    assert pk[:16] == bytes.fromhex("4d50414b 00000004 00000001 00000000")
    L = struct.unpack(">I", pk[16:20])[0]
    # the parent (99…99) is no frame of the block: stored whole, reference 0
    assert zlib.decompress(pk[20:20 + L], -15) == struct.pack(">IIH", 1, len(frame), 0) + frame
    assert len(pk) == 16 + 4 + L + 32 and pk[-32:].hex() == info.name
    assert len(ix) == 1162 and ix[:12] == bytes.fromhex("4d494458 00000004 00000001")
    assert ix[0x40c:0x42c].hex() == GOLDEN_ID
    assert ix[0x42c:0x432] == bytes.fromhex("00000000 0000")      # block 0, position 0
    assert ix[0x432:0x436] == bytes.fromhex("00000001")           # B = 1
    assert ix[0x436:0x43e] == bytes.fromhex("00000000 00000010")  # block 0 at offset 16
    assert ix[0x43e:0x442] == struct.pack(">I", 4 + L)
    assert ix[0x442:0x44a] == bytes.fromhex("00000000 00000000")  # block 0 starts at body position 0; it is id 0
    assert ix[0x44a:0x46a].hex() == info.name and ix[0x46a:] == bytes.fromhex(hash_bytes(ix[:0x46a]))
    if zlib.ZLIB_RUNTIME_VERSION == "1.2.13":  # the build the doc's numbers come from
        assert L == 184 and info.name.startswith("3c9ecb6a") and ix[0x46a:].hex().startswith("b200868e")


def test_v4_parent_mark_elsewhere_in_a_frame_round_trips(pack_dir):
    """The 9 bytes before a parent id may occur in a frame's text too (a
    text holding ``fparentX `` and 32 more bytes, even an id's): the block
    takes the last occurrence, and what it stores reads back exact."""
    chain = _chain(6)
    tricky = [encode(Turn(session="t", seq=i, role="user",
                          text="fparentX " + ("0123456789abcdef0123456789abcdef" if i % 2 else bytes.fromhex(
                              hash_bytes(chain[0])).decode("latin-1")) + " fparentX ",
                          timestamp=1772000000000, harness="h", cwd="", project="", source=f"x{i}",
                          parent=hash_bytes(chain[i]) if i < 5 else None)) for i in range(6)]
    facts = [fact(i) for i in range(3)]
    frames = chain + tricky + facts
    info = write_pack(pack_dir, frames, version=5)  # version 4's blocks (version 6's: test_pack_v6.py)
    refs = [r for rs, _s in _v4_blocks(info.pack_path.read_bytes()) for r in rs]
    assert refs[1:6] == [1, 2, 3, 4, 5] and refs[6:11] == [1, 2, 3, 4, 5]  # chain; tricky i -> chain i
    with Pack(info.idx_path) as p:
        assert p.verify() == [] and all(p.get(hash_bytes(f)) == f for f in frames)


def test_v4_blocks_are_not_copied_into_a_writer_of_another_version(tmp_path):
    frames = _chain(300, width=3)
    src = write_pack(tmp_path / "a", frames, version=3)
    with Pack(src.idx_path) as p:
        ids, data = next(iter(p.raw_blocks_in_body_order()))
        w = PackWriter(tmp_path / "b", dictionary=p.dictionary(), version=4)
        assert w.add_block(ids, data, 3) is False and w.count == 0
        assert w.add_block(ids, data, 4) is True
        w.abort()


def test_v4_damaged_body_table_fails_reads_never_lies(pack_dir):
    """A damaged entry of the index's body-position table (where a read
    finds a left-out parent id): verify names it; no read returns a wrong
    frame, and none is lost (the parent is computed from the block)."""
    frames = _chain(400, width=3)
    info = write_pack(pack_dir, frames, version=4)
    n = 400
    ix = info.idx_path.read_bytes()
    nb = struct.unpack_from(">I", ix, 1036 + 38 * n)[0]
    inv_at = 1040 + 38 * n + 16 * nb
    flip(info.idx_path, inv_at + 4 * 10 + 3)   # body position 10 now names another id
    with Pack(info.idx_path) as p:
        bad = 0
        for f in frames:
            try:
                assert p.get(hash_bytes(f)) == f
            except CorruptObject as e:
                assert "hashes to" in str(e)
                bad += 1
        # frame 11, whose parent is frame 10, reads too: its parent id from the index does not verify it,
        # so the read computes the parent from the block's frames (session 33, pack33)
        assert bad == 0
        problems = p.verify()
        assert any("index checksum" in e for e in problems)
        assert any("body-position table" in e for e in problems)


def test_v4_small_pack_is_written_without_a_dictionary(tmp_path):
    """Version 4: a pack whose frames all total under DICT_MIN_BYTES gets
    no dictionary (D = 0), being smaller without; a larger one, or a
    version-3 pack of the same frames, gets one; both read back."""
    from objstore.core.pack import DICT_MIN_BYTES
    small = _chain(600, width=3)
    assert 100_000 < sum(map(len, small)) < DICT_MIN_BYTES
    v4 = write_pack(tmp_path / "a", small)
    v3 = write_pack(tmp_path / "b", small, version=3)
    big = _chain(2000, width=10)
    assert sum(map(len, big)) >= DICT_MIN_BYTES
    v4big = write_pack(tmp_path / "c", big)
    with Pack(v4.idx_path) as p, Pack(v3.idx_path) as q, Pack(v4big.idx_path) as r:
        assert p.dictionary() == b"" and len(q.dictionary()) > 4096 and len(r.dictionary()) > 4096
        assert p.verify() == [] == r.verify()
        assert [f for _o, f in p.frames_in_body_order()] == small
        assert [f for _o, f in r.frames_in_body_order()] == big
    assert v4.size < v3.size


@pytest.mark.parametrize("reserve", [True, False])
def test_block_copy_into_a_small_or_reserved_table_finds_every_id(tmp_path, reserve):
    """add_block inserts a block's ids from one lookup each while their free
    slots differ and the table does not grow, else one by one: with a
    writer sized for the pack (reserve) and with one that grows from its
    first 1,024 slots, every copied id is found, each once, and a block
    holding an id already there is refused and leaves the writer as it was."""
    total = _fill(15.5)
    frames = _chain(total, width=3)
    src = write_pack(tmp_path / "a", frames, version=4)
    with Pack(src.idx_path) as p:
        blocks = list(p.raw_blocks_in_body_order())
        assert len(blocks) > 10 and sum(len(ids) for ids, _d in blocks) == total
        w = PackWriter(tmp_path / "b", dictionary=p.dictionary(), version=4)
        if reserve:
            w.reserve(len(p))
        assert all(w.add_block(ids, data) for ids, data in blocks[:-1])
        n = w.count
        assert w.add_block(blocks[-1][0][:1] + blocks[0][0][:1], blocks[-1][1]) is False  # one id is there
        assert w.count == n
        assert w.add_block(*blocks[-1])
        copied = w.finish()
    with Pack(copied.idx_path) as b:
        assert len(b) == total
        assert all(b.get(hash_bytes(f)) == f for f in frames)
