"""Pack version 8: a damaged pack costs only what it holds (lane pack33).

A chain of real turns (each the parent of the next, so version 4's parent
references apply) written as one version-8 pack whose frames name chunks
of several chunk blocks, some none.  One flipped byte of a chunk block
loses exactly the frames that name a chunk in it: ``get`` of every other
object reads, a whole-pack read (``frames_in_body_order``, what fsck and
``fsck --repair`` walk) names exactly those objects, ``verify`` names them
and the block.  Before, a lost frame cut its block's stream read there and
its block's later frames were lost with it (test32c Z2: one byte of a
590-byte chunk block, 191 of 960 turns).  A flipped byte of a frame block
costs that block's frames from the damage on (version 6's rule) and
nothing else; a flipped id in the index costs that object."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from objstore.core.codec import encode
from objstore.core.errors import CorruptObject, NotFound
from objstore.core.ids import hash_bytes
from objstore.core.objects import Turn
from objstore.core.packfile import Pack
from objstore.core.packformat import DeflateReader
from objstore.core.packlines import LINES_VERSION, parse_refs
from objstore.core.packscrub import ref_area
from objstore.core.packwriter import write_pack
from objstore.core.salvage import salvage_pack

N = 900


def _lines(tag: str, n: int) -> str:
    return "".join(f"  {tag} line {k}: {hash_bytes(f'{tag}.{k}'.encode())}\n" for k in range(n))


def chain(n: int = N) -> list[bytes]:
    """``n`` turns of one session, each the parent of the next, ~1.3 KB:
    lines of their own, and for turn ``i`` with ``i % 3`` ≠ 0 six lines
    it shares with turns ``i ± 300`` (a chunk in a later block: ~2
    chunk blocks of them); the turns with ``i % 3 == 0`` name no chunk."""
    out: list[bytes] = []
    for i in range(n):
        shared = _lines(f"pair {i % 300}", 6) if i % 3 and (i >= 300 or i + 300 < n) else ""
        text = f"turn {i}\n" + _lines(f"own {i}", 10) + shared + "end"
        out.append(encode(Turn(session="s", seq=i, role="user", text=text, timestamp=1772000000000 + i,
                               harness="claude-code", cwd="/w", project="w", source=f"cc:msg:{i}",
                               parent=hash_bytes(out[-1]) if out else None)))
    return out


def named_by_block(pack_path: Path, idx_path: Path) -> tuple[list[list[str]], dict[str, set[int]], list[int]]:
    """``(ids of each frame block in body order, id -> chunk blocks it names,
    chunk blocks' body offsets)`` of the intact pack: read from each
    block's line-reference area, independent of the reads under test."""
    with Pack(idx_path) as p:
        table = p.chunk_table()
        zr = DeflateReader(p.dictionary(), p.version)
        blocks, names = [], {}
        for ids, data in p.raw_blocks_in_body_order():
            count, area = ref_area(zr, data)
            assert count == len(ids)
            for oid, refs in zip(ids, parse_refs(area, count)):
                names[oid] = {table.block_of(c) for _o, c in refs}
            blocks.append(ids)
        return blocks, names, list(table.offsets)


@pytest.fixture(scope="module")
def intact(tmp_path_factory):
    d = tmp_path_factory.mktemp("v8damage")
    frames = chain()
    info = write_pack(d / "p", frames, version=LINES_VERSION)
    blocks, names, coffs = named_by_block(info.pack_path, info.idx_path)
    return d, info, frames, blocks, names, coffs


def _copy(intact, tmp_path: Path):
    d, info, *_ = intact
    dst = tmp_path / "p"
    shutil.copytree(info.pack_path.parent, dst)
    return dst / info.pack_path.name, dst / info.idx_path.name


def _flip(path: Path, at: int, mask: int = 0xFF) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= mask
    path.write_bytes(bytes(data))


def _reads(idx_path: Path, frames: list[bytes]) -> tuple[set[str], set[str], list[str]]:
    """(ids ``get`` fails on, ids a whole-pack read gives as damaged, ``verify``'s problems)."""
    with Pack(idx_path) as p:
        bad_get = set()
        for f in frames:
            oid = hash_bytes(f)
            try:
                assert p.get(oid) == f
            except (CorruptObject, NotFound):
                bad_get.add(oid)
        walked = {oid: got for oid, got in p.frames_in_body_order()}
        bad_walk = {oid for oid, got in walked.items() if isinstance(got, CorruptObject)}
        assert all(walked[hash_bytes(f)] == f for f in frames if hash_bytes(f) in walked.keys() - bad_walk)
        return bad_get, bad_walk, p.verify(max_problems=10_000)


def test_the_pack_is_what_the_tests_below_need(intact):
    _d, _info, frames, blocks, names, coffs = intact
    assert len(coffs) >= 2 and len(blocks) >= 5
    assert sum(not v for v in names.values()) >= N // 3          # frames naming no chunk
    for b in range(len(coffs)):
        assert 50 <= sum(b in v for v in names.values()) < N // 2  # each chunk block costs some, not most


@pytest.mark.parametrize("which", [0, 1])
def test_a_damaged_chunk_block_costs_only_the_frames_that_name_its_chunks(intact, tmp_path, which):
    _d, _info, frames, blocks, names, coffs = intact
    pack, idx = _copy(intact, tmp_path)
    _flip(pack, coffs[which] + 40)                               # inside the chunk block's DEFLATE stream
    lost = {oid for oid, v in names.items() if which in v}
    bad_get, bad_walk, problems = _reads(idx, frames)
    assert bad_get == lost
    assert bad_walk == lost
    named = {ln.split("object ")[1][:64] for ln in problems if ": object " in ln}
    assert named == lost
    assert any(f"chunk block {which}" in ln for ln in problems), problems
    # without the index (salvage): a lost frame's id is unknown, so in its block the frames after it
    # (each the parent of the next) are lost too; every other block reads whole
    salvaged = {oid for oid, _f in salvage_pack(pack)}
    want = set()
    for ids in blocks:
        first = next((k for k, oid in enumerate(ids) if oid in lost), len(ids))
        want |= set(ids[:first])
    assert salvaged == want


def test_a_chunk_block_whose_first_chunk_number_is_damaged_costs_the_same(intact, tmp_path):
    """A chunk block that inflates but begins at another chunk than its index says."""
    import zlib
    from objstore.core.packlines import chunk_block, inflate_chunk_block
    _d, _info, frames, _blocks, names, coffs = intact
    pack, idx = _copy(intact, tmp_path)
    data = bytearray(pack.read_bytes())
    n = int.from_bytes(data[coffs[1]:coffs[1] + 4], "big")
    first, lines = inflate_chunk_block(bytes(data[coffs[1] + 4:coffs[1] + 4 + n]))
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    new = c.compress(chunk_block(first + 1, [ln + b"\n" for ln in lines])) + c.flush()
    if len(new) != n:
        pytest.skip("the block's length changed")  # never with +1 in a u32 of a DEFLATE stored head
    data[coffs[1] + 4:coffs[1] + 4 + n] = new
    pack.write_bytes(bytes(data))
    lost = {oid for oid, v in names.items() if 1 in v}
    bad_get, bad_walk, problems = _reads(idx, frames)
    assert bad_get == lost == bad_walk
    assert any("chunk block 1" in ln for ln in problems), problems


def test_a_damaged_frame_block_costs_its_frames_from_the_damage_on(intact, tmp_path):
    _d, info, frames, blocks, _names, _coffs = intact
    pack, idx = _copy(intact, tmp_path)
    with Pack(info.idx_path) as p:
        off, length = p._block(2)
        ids = blocks[[p._place(p.find_raw(bytes.fromhex(b[0])))[0] for b in blocks].index(2)]
    _flip(pack, off + length // 2)
    bad_get, bad_walk, problems = _reads(idx, frames)
    assert bad_walk and bad_walk <= set(ids)                     # that block's frames only
    k = min(ids.index(o) for o in bad_walk)
    assert bad_walk == set(ids[k:])                              # from the damage on
    assert bad_get <= bad_walk
    assert {ln.split("object ")[1][:64] for ln in problems if ": object " in ln} == bad_walk


def test_a_damaged_id_in_the_index_costs_that_object(intact, tmp_path):
    _d, _info, frames, _blocks, _names, _coffs = intact
    pack, idx = _copy(intact, tmp_path)
    with Pack(idx) as p:
        at, oid = p._ids_off + 5 * p._idw + p._idw - 1, p._id_at(5).hex()
    _flip(idx, at, 0x01)                         # the last bit of the 6th id: the table stays in order
    bad_get, bad_walk, problems = _reads(idx, frames)
    flipped = oid[:-2] + f"{int(oid[-2:], 16) ^ 0x01:02x}"
    assert bad_get == {oid}                                      # not found under its id
    assert bad_walk == {flipped}                                 # the walk names the id the index holds there
    assert any("checksum" in ln for ln in problems)


def test_a_read_of_a_lost_frame_names_its_chunk_block(intact, tmp_path):
    _d, _info, frames, _blocks, names, coffs = intact
    pack, idx = _copy(intact, tmp_path)
    _flip(pack, coffs[0] + 40)
    oid = next(o for o, v in names.items() if 0 in v)
    with Pack(idx) as p, pytest.raises(CorruptObject, match=r"a line it names cannot be put back \(chunk block 0 "):
        p.get(oid)


def test_mem_fsck_names_exactly_the_lost_turns_and_a_reread_puts_them_back(mem, tmp_path):
    """test32c Z2 end to end: a real import's version-8 pack, one byte of its
    chunk block flipped.  ``mem fsck`` names exactly the objects whose frames
    name its chunks (before: 145 of this pack's 250, 31 of them lost), ``mem
    fsck --repair`` keeps every other object, and ``mem import --reread``
    puts the lost turns back under their ids: fsck is clean again."""
    import json
    import re

    from tests.conftest import gen_corpus
    corpus = gen_corpus(tmp_path / "corpus", "--sessions", "12", "--turns", "120", "--seed", "5")
    home = tmp_path / "home"
    mem("--home", str(home), "import", "claude-code", str(corpus))
    idxs = sorted((home / "objects" / "pack").glob("*.idx"), key=lambda p: p.stat().st_size)
    idx = idxs[-1]
    _blocks, names, coffs = named_by_block(idx.with_suffix(".pack"), idx)
    lost = {o for o, v in names.items() if 0 in v}
    assert len(coffs) == 1 and 0 < len(lost) < len(names) // 4
    with Pack(idx) as p:
        turns = {o for o in lost if b"\x66source" in p.get(o)}
    assert turns
    _flip(idx.with_suffix(".pack"), coffs[0] + 40)
    doc = json.loads(mem("--home", str(home), "fsck", "--json", exit_code=13).stdout)
    named = {m for p in doc["problems"] for m in re.findall(r"object ([0-9a-f]{64})", p)}
    assert named & set(names) == lost, doc["problems"]          # the pack's objects: exactly those
    assert any("chunk block 0" in p for p in doc["problems"])
    rep = json.loads(mem("--home", str(home), "fsck", "--repair", "--json").stdout)["repair"]
    assert set(rep["dropped_objects"]) == lost                    # no other object of the pack
    mem("--home", str(home), "import", "claude-code", str(corpus), "--reread")
    doc = json.loads(mem("--home", str(home), "fsck", "--json").stdout)
    assert doc["problems"] == []
    from objstore.memory.opening import open_store
    with open_store(home) as store:
        assert all(hash_bytes(store.read_frame(o)) == o for o in turns)  # under their ids again
