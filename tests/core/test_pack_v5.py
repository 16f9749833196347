"""Pack version 5 (session 14): version 4's pack body with a smaller index.

The index holds each id without its first byte (the fan-out bucket it lies
in gives it), one body position per object instead of a block number and
a position in the block, and the body positions and the places in the id
table W bytes wide (:func:`~objstore.core.packformat.pos_width`): 31 + 2·W
bytes an object (35 up to 65,536 objects) against version 4's 42.
``docs/format.md``, "Packs", gives the layout byte by byte.
"""

from __future__ import annotations

import struct
import zlib
from bisect import bisect_right

import pytest

from objstore.core.codec import encode
from objstore.core.errors import CorruptObject
from objstore.core.ids import hash_bytes
from objstore.core.pack import IDX_MAGIC, PACK_MAGIC, Pack, PackBytes, idx_size
from objstore.core.packformat import PACK_VERSION, pos_width, uint_bytes, uint_table
from objstore.core.packwriter import PackWriter, write_pack
from objstore.core.salvage import salvage_pack
from tests.core.test_pack import GOLDEN, GOLDEN_ID, _chain, _fill, _v4_blocks, flip


@pytest.fixture
def pack_dir(tmp_path):
    return tmp_path / "store" / "objects" / "pack"


def test_new_packs_are_version_6():
    assert PACK_VERSION == 6  # version 5's index; its blocks: test_pack_v6.py (7, zstd, opt-in: test_pack_codec.py)


@pytest.mark.parametrize("count, width", [(0, 2), (1, 2), (65536, 2), (65537, 3), (1 << 24, 3),
                                          ((1 << 24) + 1, 4), ((1 << 32) - 1, 4)])
def test_position_width_holds_every_position_below_the_count(count, width):
    assert pos_width(count) == width
    assert count <= 1 << (8 * width)   # positions 0 .. count - 1


@pytest.mark.parametrize("width", [2, 3, 4])
def test_uint_tables_round_trip_big_endian(width):
    top = (1 << (8 * width)) - 1
    values = [0, 1, 255, 256, 65535, top, top - 1, 12345 % top, 7]
    raw = uint_bytes(values, width)
    assert len(raw) == width * len(values)
    assert raw == b"".join(v.to_bytes(width, "big") for v in values)
    assert list(uint_table(b"xy" + raw, 2, len(values), width)) == values


def _layout(ix: bytes, n: int) -> dict:
    """The tables of a version-5 index, read by hand from docs/format.md's layout."""
    w = pos_width(n)
    fan = struct.unpack_from(">256I", ix, 12)
    ids_at = 1036
    pos_at = ids_at + 31 * n
    nb_at = pos_at + w * n
    nb = struct.unpack_from(">I", ix, nb_at)[0]
    boffs = struct.unpack_from(f">{nb}Q", ix, nb_at + 4)
    blens = struct.unpack_from(f">{nb}I", ix, nb_at + 4 + 8 * nb)
    firsts = struct.unpack_from(f">{nb}I", ix, nb_at + 4 + 12 * nb)
    inv_at = nb_at + 4 + 16 * nb
    sum_at = inv_at + w * n
    full = [bytes((bisect_right((0,) + fan, i) - 1,)) + ix[ids_at + 31 * i:ids_at + 31 * (i + 1)] for i in range(n)]
    pos = [int.from_bytes(ix[pos_at + w * i:pos_at + w * (i + 1)], "big") for i in range(n)]
    inv = [int.from_bytes(ix[inv_at + w * o:inv_at + w * (o + 1)], "big") for o in range(n)]
    return dict(w=w, fan=fan, nb=nb, boffs=boffs, blens=blens, firsts=firsts, ids=full, pos=pos, inv=inv,
                sum_at=sum_at, pos_at=pos_at, inv_at=inv_at)


def test_v5_layout_ids_without_their_first_byte_and_body_positions(pack_dir):
    """The index: header, fan-out, the N ids without their first byte
    (sorted: the fan-out bucket of a position gives its first byte), each
    object's body position (W bytes), B, the blocks' offsets, entry lengths
    and first body positions, each body position's place in the id table
    (W bytes), the pack checksum, the index checksum: 1104 + 35·N + 16·B
    bytes for N ≤ 65,536.  The pack body is version 4's."""
    n = _fill(4.7)  # four blocks and part of a fifth
    frames = _chain(n, width=3, per=40)
    info = write_pack(pack_dir, frames, version=5)
    ix, data = info.idx_path.read_bytes(), info.pack_path.read_bytes()
    t = _layout(ix, n)
    assert ix[:12] == IDX_MAGIC + struct.pack(">II", 5, n) and data[:8] == PACK_MAGIC + b"\x00\x00\x00\x05"
    assert t["w"] == 2 and t["nb"] > 3
    assert info.idx_size == len(ix) == idx_size(n, 5, t["nb"]) == 1104 + 35 * n + 16 * t["nb"]
    ids = [bytes.fromhex(hash_bytes(f)) for f in frames]
    assert t["ids"] == sorted(ids)                                  # first bytes from the fan-out
    assert t["fan"][255] == n and all(t["fan"][b] == sum(1 for i in ids if i[0] <= b) for b in range(256))
    assert [t["ids"][t["inv"][o]] for o in range(n)] == ids          # body position -> place
    assert all(t["inv"][t["pos"][i]] == i for i in range(n))         # place -> body position, its inverse
    # the blocks: version 4's, in body order; each block's first body position
    blocks = _v4_blocks(data)
    assert len(blocks) == t["nb"]
    assert list(t["firsts"]) == [sum(len(r) for r, _s in blocks[:b]) for b in range(t["nb"])]
    assert list(t["boffs"]) == sorted(t["boffs"]) and t["boffs"][0] == 16 + struct.unpack_from(">I", data, 12)[0]
    assert all(t["boffs"][b] + t["blens"][b] == (t["boffs"][b + 1] if b + 1 < t["nb"] else len(data) - 32)
               for b in range(t["nb"]))
    assert ix[t["sum_at"]:t["sum_at"] + 32].hex() == info.name and len(ix) == t["sum_at"] + 64
    assert ix[-32:] == bytes.fromhex(hash_bytes(ix[:-32]))
    with Pack(info.idx_path) as p:
        assert p.version == 5 and p.verify() == []
        assert list(p) == [i.hex() for i in sorted(ids)]
        assert all(p.get(hash_bytes(f)) == f for f in frames[::-1])
        assert [f for _o, f in p.frames_in_body_order()] == frames
        assert p.ids_in_body_order() == [i.hex() for i in ids]
        one = hash_bytes(frames[123])
        assert p.resolve_prefix(one[:6]) == [x for x in (i.hex() for i in sorted(ids)) if x.startswith(one[:6])]
        assert not p.contains(("%02x" % (ids[0][0] ^ 1)) + hash_bytes(frames[0])[2:])  # same tail, other bucket
    with Pack(info.idx_path) as p:  # a new reader, objects read alone (no block kept)
        assert all(p.get(hash_bytes(frames[i])) == frames[i] for i in (n - 1, n // 2, 41, 1, 0))
    pb = PackBytes(data, ix)
    assert all(pb.get(hash_bytes(f)) == f for f in frames[::7])
    assert pb.get("ab" * 32) is None
    assert sorted(oid for oid, _f in salvage_pack(info.pack_path)) == sorted(i.hex() for i in ids)


def test_v5_index_is_smaller_than_v4_for_the_same_pack_body(tmp_path):
    """The same frames in version 4 and 5: the pack bodies are the same
    bytes (only the header's version differs), the index 7 bytes an object
    smaller."""
    frames = _chain(2000, width=2)
    v4 = write_pack(tmp_path / "a", frames, version=4)
    v5 = write_pack(tmp_path / "b", frames, version=5)
    a, b = v4.pack_path.read_bytes(), v5.pack_path.read_bytes()
    assert a[:4] == b[:4] and a[8:-32] == b[8:-32]
    with Pack(v4.idx_path) as p:
        nb = p._nblocks
    assert v4.idx_size - v5.idx_size == 7 * 2000 == idx_size(2000, 4, nb) - idx_size(2000, 5, nb)


def test_v5_three_byte_positions_past_65536_objects(pack_dir):
    """A pack of 65,537 objects has 3-byte body positions and places; every
    object reads, verify is clean."""
    n = 65537
    frames = [b"MEMO" + i.to_bytes(4, "big") for i in range(n)]  # not objects: a pack holds any frames
    info = write_pack(pack_dir, frames)
    ix = info.idx_path.read_bytes()
    with Pack(info.idx_path) as p:
        assert p._w == 3 and info.idx_size == len(ix) == 1104 + 37 * n + 16 * p._nblocks
        assert p.verify() == []
        assert all(p.get(hash_bytes(frames[i])) == frames[i] for i in (0, 1, 65535, 65536, 40000))
    pb = PackBytes(info.pack_path.read_bytes(), ix)
    assert pb.get(hash_bytes(frames[65536])) == frames[65536]


@pytest.mark.parametrize("table", ["pos", "inv"])
def test_v5_damaged_position_fails_reads_never_lies(pack_dir, table):
    """A damaged body position (where a read finds an object's block and
    place in it) or body-position place (where a read finds a left-out
    parent id) makes the reads that need it fail as corruption and verify
    name it; no read returns a wrong frame."""
    frames = _chain(400, width=3)
    info = write_pack(pack_dir, frames)
    n = 400
    t = _layout(info.idx_path.read_bytes(), n)
    ids = [hash_bytes(f) for f in frames]
    place = t["ids"].index(bytes.fromhex(ids[10]))
    if table == "pos":
        flip(info.idx_path, t["pos_at"] + 2 * place + 1)    # object 10 now points at body position 11
    else:
        flip(info.idx_path, t["inv_at"] + 2 * 10 + 1)       # body position 10 now names another id
    with Pack(info.idx_path) as p:
        bad = []
        for i, f in enumerate(frames):
            try:
                assert p.get(ids[i]) == f
            except CorruptObject as e:
                assert "hashes to" in str(e)
                bad.append(i)
        # frame 11's parent is frame 10: with its id damaged in the body-position table a read of frame 11
        # computes the parent from the block's frames (session 33, pack33), so only a damaged position costs
        assert bad == ([10] if table == "pos" else [])
        problems = p.verify()
        assert any("index checksum" in e for e in problems)
        assert any("body positions do not name" in e for e in problems), problems


@pytest.mark.parametrize("byte", [3, 0])
def test_v5_damaged_block_starts_are_named(pack_dir, byte):
    """A damaged first body position of a block moves objects between two
    blocks in the index: their reads fail as corruption (never a wrong
    frame), and verify names the blocks whose object count no longer
    matches their stream (its low byte) or the table itself (its high
    byte: past the objects)."""
    n = _fill(2.5)
    frames = _chain(n, width=3)
    info = write_pack(pack_dir, frames)
    t = _layout(info.idx_path.read_bytes(), n)
    at = t["pos_at"] + 2 * n + 4 + 12 * t["nb"] + 4 * 1 + byte  # a byte of block 1's first body position
    data = bytearray(info.idx_path.read_bytes())
    data[at] ^= 1
    info.idx_path.write_bytes(bytes(data))
    with Pack(info.idx_path) as p:
        bad = 0
        for f in frames:
            try:
                assert p.get(hash_bytes(f)) == f
            except CorruptObject:
                bad += 1
        assert bad >= 1
        problems = p.verify()
        want = "first body positions are damaged" if byte == 0 else "objects, its index lists"
        assert any(want in e for e in problems), problems


def test_v4_and_v5_blocks_copy_into_each_other_but_not_v3(tmp_path):
    """Versions 4 and 5 share the pack body: a block of one is copied into a
    writer of the other as it is; version 3's blocks (no parent references)
    are not."""
    frames = _chain(300, width=3)
    for src_version, dst_version, ok in ((4, 5, True), (5, 4, True), (3, 5, False), (5, 3, False)):
        src = write_pack(tmp_path / f"a{src_version}{dst_version}", frames, version=src_version)
        with Pack(src.idx_path) as p:
            ids, data = next(iter(p.raw_blocks_in_body_order()))
            w = PackWriter(tmp_path / f"b{src_version}{dst_version}", dictionary=p.dictionary(), version=dst_version)
            assert w.add_block(ids, data, src_version) is ok
            if ok:
                info = w.finish()
                with Pack(info.idx_path) as q:
                    assert q.version == dst_version and q.verify() == []
                    assert all(q.get(o) == p.get(o) for o in ids)
            else:
                w.abort()


def test_worked_example_layout_v5(pack_dir):
    """docs/format.md's version-5 worked example, except the DEFLATE bytes (zlib-build dependent)."""
    frame = encode(GOLDEN)
    info = write_pack(pack_dir, [frame], version=5)
    pk, ix = info.pack_path.read_bytes(), info.idx_path.read_bytes()
    assert pk[:16] == bytes.fromhex("4d50414b 00000005 00000001 00000000")
    L = struct.unpack(">I", pk[16:20])[0]
    assert zlib.decompress(pk[20:20 + L], -15) == struct.pack(">IIH", 1, len(frame), 0) + frame
    assert len(pk) == 16 + 4 + L + 32 and pk[-32:].hex() == info.name
    assert len(ix) == 1155 and ix[:12] == bytes.fromhex("4d494458 00000005 00000001")
    assert ix[12 + 4 * 0x84:12 + 4 * 0x85] == bytes(4) and ix[12 + 4 * 0x85:12 + 4 * 0x86] == bytes.fromhex("00000001")
    assert ix[0x40c:0x42b].hex() == GOLDEN_ID[2:]                  # the id without its first byte (0x85)
    assert ix[0x42b:0x42d] == bytes.fromhex("0000")                # its body position: 0
    assert ix[0x42d:0x431] == bytes.fromhex("00000001")            # B = 1
    assert ix[0x431:0x439] == bytes.fromhex("00000000 00000010")   # block 0 at offset 16
    assert ix[0x439:0x43d] == struct.pack(">I", 4 + L)
    assert ix[0x43d:0x441] == bytes.fromhex("00000000")            # block 0 starts at body position 0
    assert ix[0x441:0x443] == bytes.fromhex("0000")                # body position 0 is id 0
    assert ix[0x443:0x463].hex() == info.name and ix[0x463:] == bytes.fromhex(hash_bytes(ix[:0x463]))
    if zlib.ZLIB_RUNTIME_VERSION == "1.2.13":  # the build the doc's numbers come from
        assert L == 184
