"""Pack version 6: the turns' sources' ids stored as bytes in a column of
each block (``docs/format.md``, "Packs"; ``packsources.SOURCE_RULES``).

Every source shape of ../shared/data/transcripts (where present) and of the
generator's corpus goes through a version-6 pack and reads back exactly;
odd shapes are stored whole (code 0), never altered."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import pytest

from objstore.core.codec import encode
from objstore.core.errors import CorruptObject
from objstore.core.ids import hash_bytes
from objstore.core.objects import Turn
from objstore.core.pack import Pack
from objstore.core.packsources import SOURCE_RULES, BlockSources, column_len, join_sources, split_sources
from objstore.core.packwriter import write_pack
from objstore.core.salvage import salvage_pack
from tests.conftest import gen_corpus, shared_path
from tests.core.test_pack import _blocks, flip

_UUID = "4b640b4b-c92f-4682-b6ea-774030d5d941"
_MSG = "msg_01gDeAoanfq50Q2n1zZQQYWH"


def _turn(source: str, i: int = 0, parent: str | None = None, text: str = "a turn") -> bytes:
    return encode(Turn(session="s", seq=i, role="user", text=text, timestamp=1772000000000 + i, harness="claude-code",
                       cwd="/w", project="w", source=source, parent=parent))


def _chain(sources: list[str]) -> list[bytes]:
    """A session of turns, each the parent of the next (so that version 4's parent references apply too)."""
    out: list[bytes] = []
    for i, s in enumerate(sources):
        out.append(_turn(s, i, hash_bytes(out[-1]) if out else None, text=f"turn {i} says {s[-7:]}"))
    return out


def _codes(frames: list[bytes]) -> list[int]:
    return list(split_sources(frames)[1])


def _read_all(pack_dir: Path, frames: list[bytes]) -> None:
    """Write ``frames`` as one version-6 pack; every frame reads back exact, by id, in body order, salvaged."""
    info = write_pack(pack_dir, frames, version=6)
    with Pack(info.idx_path) as p:
        assert p.version == 6
        for f in reversed(frames):  # a walk up the chain: the block cache
            assert p.get(hash_bytes(f)) == f
        assert dict(p.frames_in_body_order()) == {hash_bytes(f): f for f in frames}
        assert p.verify() == []
    assert dict(salvage_pack(info.pack_path)) == {hash_bytes(f): f for f in frames}
    with Pack(info.idx_path) as p:  # a fresh reader, frames read one by one, no cache
        for f in frames:
            p.drop_pages()
            assert p.get(hash_bytes(f)) == f


# the sources' shapes (objstore.capture.claude_code, codex): coded by their rule
CODED = [f"cc:{_UUID}", f"cc:{_UUID}:tool:0", f"cc:{_UUID}:tool:12", f"cc:msg:{_MSG}", f"cc:msg:{_MSG}:{_UUID}",
         "cc:p:1c4ef3282249620ada0a1534:1", "cc:p:1c4ef3282249620ada0a1534:10",
         "cc:msg:msg_000000000000000000000000", "cc:msg:msg_zzzzzzzzzzzzzzzzzzzzzzzz",
         f"cc:msg:{_MSG}Z"]  # 25 base62 digits: the rule takes 24, the 25th stays in the frame
# odd shapes: stored whole
ODD = ["", "x", "cc:", "cc:msg:", "cc:p:", "cc:edge_001", "cc:msg:edge_002", "cc:msg:msg_004",
       f"cc:{_UUID.upper()}", f"cc:{_UUID[:-1]}", f"cc:{_UUID.replace('-', '')}", f"cc:{_UUID.replace('-', '_')}",
       f"cc:{_UUID[:8]}+{_UUID[9:]}", f" cc:{_UUID}", f"CC:{_UUID}", f"cc:msg:{_MSG[:-1]}", f"cc:msg:{_MSG[:-2]}-Q",
       "cc:p:1C4EF3282249620ADA0A1534:1", "cc:p:1c4ef3282249620ada0a153", "cc:p:1c4ef3282249620ada0a153g:1",
       "cc:p: 1c4ef3282249620ada0a1534", "cc:msg:msg_01gDeAoanfq50Q2n1zZQQYW\u00e9", "cx:u:" + "ab" * 16,
       "é" * 40, "cc:" + "é" * 12, "x" * 300]


@pytest.mark.parametrize("source", CODED)
def test_a_source_of_a_known_shape_is_stored_as_bytes_and_reads_back(tmp_path, source):
    frames = _chain([source, source + "0", source])
    codes = _codes(frames)
    assert codes[0] and codes[2] and codes[0] == codes[2]
    _read_all(tmp_path / "pack", frames)


@pytest.mark.parametrize("source", ODD)
def test_an_odd_source_is_stored_whole(tmp_path, source):
    frames = _chain([source, f"cc:{_UUID}", source])
    stored, codes, column = split_sources(frames)
    assert codes == bytes([0, 1, 0]) and len(column) == 16
    assert stored[0] == frames[0] and stored[2] == frames[2]  # never altered
    _read_all(tmp_path / "pack", frames)


def test_the_marks_in_a_turns_text_do_not_mislead_the_rule(tmp_path):
    """The bytes of the key "source" and a text head may occur in a turn's
    text: the rule takes the last occurrence (canonical CBOR puts "source"
    after "text": the shorter key first) and stores a frame whole whenever what it would store
    does not read back exact."""
    tricky = [f"fsourcex${_UUID}", f"fsource`cc:{_UUID}", "fsourcex$cc:" + _UUID, "\x66source\x78\x27cc:" + _UUID]
    frames = []
    for i, t in enumerate(tricky):
        frames.append(encode(Turn(session="s", seq=i, role="user", text=t, timestamp=1, harness="h", cwd="",
                                  project="", source=f"cc:{_UUID}", parent=None)))
        frames.append(encode(Turn(session="s", seq=i, role="user", text=t, timestamp=1, harness="h", cwd="",
                                  project="", source=t, parent=None)))
    _read_all(tmp_path / "pack", frames)


def _transcript_sources() -> list[str]:
    from objstore.capture import claude_code, codex
    from objstore.capture.transcript import ParseStats
    root = shared_path("data", "transcripts")
    out = []
    for p in sorted(root.rglob("*.jsonl")):
        mod = codex if "agent-sessions" in p.parts else claude_code
        out += [t.source for t in mod.parse_file(p, ParseStats())]
    for p in sorted((Path(__file__).resolve().parents[1] / "data" / "codex").rglob("*.jsonl")):
        out += [t.source for t in codex.parse_file(p, ParseStats())]
    return out


def test_every_source_of_the_shared_transcripts_round_trips(tmp_path):
    sources = _transcript_sources()
    assert len(sources) > 1000
    frames = _chain(sources)
    codes = _codes(frames)
    shapes = {c: set() for c in range(len(SOURCE_RULES))}
    for s, c in zip(sources, codes):
        shapes[c].add(re.sub(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "U", re.sub(r"msg_\w{24}", "M", s)))
    assert {"cc:U", "cc:U:tool:0"} <= shapes[1] and {"cc:msg:M", "cc:msg:M:U"} <= shapes[2]
    assert all(not s.startswith("cc:") or "edge" in s or s == "cc:msg:msg_004" or s.startswith("cc:h:")
               for s in shapes[0])  # the fixtures' made-up ids, codex's, and the hashed ids stay whole
    _read_all(tmp_path / "pack", frames)


def test_a_generated_corpus_imports_into_version_8_packs_that_read_back(tmp_path, monkeypatch):
    """A real ``mem import`` of bench/gen_corpus.py's sessions (its three
    source shapes): the packs are version 8 (a store's default since session
    31: version 6's blocks and a line table; 7, zstd, is opt-in: test_pack_codec.py), every turn's source is coded, ``mem fsck``
    finds nothing, and the same frames take fewer bytes in version 6 than
    in 5, and in 7 than in 6."""
    import json
    import subprocess
    import sys
    corpus = gen_corpus(tmp_path / "corpus", "--sessions", "4", "--turns", "120", "--seed", "3")
    home = tmp_path / "home"
    env = {"MEM_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    run = lambda *a: subprocess.run([sys.executable, "-m", "cmds", *a], env=env, capture_output=True,  # noqa: E731
                                    text=True, timeout=300, cwd=Path(__file__).resolve().parents[2])
    r = run("import", "claude-code", str(corpus), "--json")
    assert r.returncode == 0, r.stderr
    packs = sorted((home / "objects" / "pack").glob("*.idx"))
    frames: list[bytes] = []
    for ip in packs:
        with Pack(ip) as p:
            assert p.version == 8
            frames += [f for _o, f in p.frames_in_body_order()]
    turns = [f for f in frames if b"\x66source" in f]
    assert len(turns) >= 200 and all(_codes([f])[0] for f in turns)
    r = run("fsck", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["problems"] == [], r.stdout + r.stderr
    v5 = write_pack(tmp_path / "v5", turns, version=5)
    v6 = write_pack(tmp_path / "v6", turns, version=6)
    assert v6.size < v5.size - 8 * len(turns)  # more than 8 bytes a turn (the corpus: 13.4)
    assert write_pack(tmp_path / "v7", turns, version=7).size < v6.size


def test_a_damaged_source_column_or_code_is_found():
    frames = _chain([f"cc:{_UUID}", f"cc:msg:{_MSG}", "cc:p:1c4ef3282249620ada0a1534:1"])
    stored, codes, column = split_sources(frames)
    assert codes == bytes([1, 2, 3]) and len(column) == 16 + 18 + 12
    ok = list(stored)
    assert join_sources(ok, codes, column) is None and ok == frames
    bad = list(stored)  # an unknown rule: the frames before it are sound
    assert "source rule 9" in join_sources(bad, bytes([1, 9, 3]), column) and bad == frames[:1]
    bad = list(stored)  # a base62 number past 24 digits
    assert "base62" in join_sources(bad, codes, column[:16] + b"\xff" * 18 + column[34:]) and bad == frames[:1]
    bad = list(stored)  # a changed id byte reads back another frame, which its id's hash check rejects
    assert join_sources(bad, codes, bytes([column[0] ^ 1]) + column[1:]) is None and bad[0] != frames[0]


def test_each_frame_reads_its_own_slice_of_the_source_column():
    """The column offsets (one ``bytes.translate`` of the codes, session 22) are the widths of the codes
    before the frame, an unknown code counting 0; a frame is restored alone, in any order."""
    sources = [f"cc:{_UUID}", "plain", f"cc:msg:{_MSG}", "cc:p:1c4ef3282249620ada0a1534:1",
               "cc:0f0e2f9c-1b2a-4c3d-8e4f-5a6b7c8d9e0f"]
    frames = _chain(sources)
    stored, codes, column = split_sources(frames)
    assert codes == bytes([1, 0, 2, 3, 1])
    assert column_len(codes) == len(column) == sum(SOURCE_RULES[c][3] for c in codes)
    assert column_len(bytes([1, 200, 3, 0, 255])) == 16 + 12   # unknown codes take no column bytes
    src = BlockSources(codes, column)
    for k in reversed(range(len(frames))):   # the last first: its offset counts every code before it
        assert src.frame(stored, k) == frames[k]
    assert BlockSources(codes, column).frame(stored, 3) == frames[3]


def test_a_damaged_version_6_block_is_found_by_verify(tmp_path):
    frames = _chain([f"cc:{_UUID[:-3]}{i:03d}" for i in range(40)])
    info = write_pack(tmp_path / "pack", frames, version=6)
    data = info.pack_path.read_bytes()
    (off, length, _stream), = _blocks(data)
    at = off + 4 + 40  # inside the DEFLATE stream, in the codes and column
    flip(info.pack_path, at)
    with Pack(info.idx_path) as p:
        assert p.verify()
        with pytest.raises(CorruptObject):
            for f in frames:
                p.get(hash_bytes(f))


def test_version_6_block_content_layout(tmp_path):
    """The block content, inflated by hand: u32 K, K u32 stored lengths, K
    u16 parent references, K u8 source codes, the source column, the K
    stored frames (docs/format.md, "Packs")."""
    frames = _chain([f"cc:{_UUID}", "odd", f"cc:msg:{_MSG}:{_UUID}"])
    info = write_pack(tmp_path / "pack", frames, version=6)
    data = info.pack_path.read_bytes()
    (_off, _length, stream), = _blocks(data)
    content = zlib.decompressobj(-15).decompress(stream)  # 3 small frames: no dictionary
    k = struct.unpack_from(">I", content)[0]
    lens = struct.unpack_from(">3I", content, 4)
    refs = struct.unpack_from(">3H", content, 16)
    assert k == 3 and refs == (0, 1, 2) and content[22:25] == bytes([1, 0, 2])
    col = content[25:25 + 16 + 18]
    assert col[:16] == bytes.fromhex(_UUID.replace("-", ""))
    n = 0
    for c in _MSG[4:]:
        n = n * 62 + "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".index(c)
    assert col[16:] == n.to_bytes(18, "big")
    body = content[25 + 34:]
    assert len(body) == sum(lens)
    first = body[:lens[0]]
    assert b"\x66source\x78\x27" in first and _UUID.encode() not in first  # the head kept, the 39 characters not
    third = body[lens[0] + lens[1]:]
    assert third.count(b"\x66source\x78\x48:" + _UUID.encode()) == 1  # 72 characters; the first 35 left out


def test_a_version_5_pack_still_reads_and_a_repack_writes_version_8(tmp_path):
    """gc's rewrite (``Store.repack``) writes version 8 (a store that does
    not ask for zstd; 6 before session 31); a forget (``delete_objects``)
    in a version-8 pack writes its kept frames again in version 8 and
    keeps every other frame; in a version-5 pack it keeps version 5."""
    from objstore.core.store import Store
    store = Store.init(tmp_path / "s")
    frames = _chain([f"cc:{_UUID[:-3]}{i:03d}" for i in range(50)])
    more = _chain([f"cc:msg:{_MSG[:-2]}{i:02d}" for i in range(30)])
    pdir = store.root / "objects" / "pack"
    write_pack(pdir, frames, version=5)
    store.packs.reload()
    assert [p.version for p in store.packs.packs] == [5]
    assert all(store.read_frame(hash_bytes(f)) == f for f in frames)
    with store.lock("test"):
        store.repack(list(store.packs.packs), keep=lambda _p, _o: True)
    store.packs.reload()
    assert [p.version for p in store.packs.packs] == [8]
    assert all(store.read_frame(hash_bytes(f)) == f for f in frames)
    write_pack(pdir, more, version=5)
    store.packs.reload()
    with store.lock("test"):
        assert store.delete_objects([hash_bytes(frames[10]), hash_bytes(more[3])]) == 2
    store.packs.reload()
    assert sorted(p.version for p in store.packs.packs) == [5, 8]
    kept = frames[:10] + frames[11:] + more[:3] + more[4:]
    assert all(store.read_frame(hash_bytes(f)) == f for f in kept)
    assert not store.has(hash_bytes(frames[10])) and not store.has(hash_bytes(more[3]))
    assert all(p.verify() == [] for p in store.packs.packs)
    store.close()
