"""Pack version 8: version 6's blocks and a per-pack table of repeated lines
(``docs/format.md``, "Packs"; ``objstore/core/packlines.py``).

Frames go through a version-8 pack and read back exactly (by id, in body
order, from a bundle held in memory, by salvage without the index); a line
met again in a later block lives once, in a chunk block; the same frames
give the same pack bytes in two processes; fsck names a damaged chunk
block; and a forgotten value leaves the pack *and* its line table, while a
line it shared with a kept object stays, holding none of it (the value's
bytes searched in every file of the store, chunk blocks included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from objstore.core.gc import gc
from objstore.core.ids import hash_bytes
from objstore.core.packbytes import PackBytes
from objstore.core.packfile import Pack
from objstore.core.packlines import LINE_MIN, LINES_VERSION, body_chunks
from objstore.core.packwriter import write_pack
from objstore.core.salvage import salvage_pack
from objstore.memory import facts
from objstore.memory.forget import forget, scan_store
from objstore.memory.opening import open_store

SHARED_LINE = b"    the deploy runs make release on the build host, then tags it\n"


def _frames(n: int = 300) -> list[bytes]:
    """``n`` frames of ~1.3 KB: a line every frame holds, a line every 7th
    holds, and lines of their own (so ~100 frames fill a 128 KiB block)."""
    out = []
    for i in range(n):
        own = b"".join(b"line %d of frame %d: %s\n" % (k, i, hash_bytes(b"%d.%d" % (i, k)).encode())
                       for k in range(12))
        seventh = b"a line every seventh frame holds, long enough to be a chunk\n" if i % 7 == 0 else b""
        out.append(b"MEMO\n" + SHARED_LINE + own + seventh + b"short\nend of frame %d" % i)
    return out


def _chunks(pack_path: Path) -> list[bytes]:
    data = pack_path.read_bytes()
    start = 16 + int.from_bytes(data[12:16], "big")
    return [ln + b"\n" for _at, _first, lines in body_chunks(data, start, len(data) - 32) for ln in lines]


def test_frames_read_back_and_a_repeated_line_lives_once(tmp_path):
    frames = _frames()
    info = write_pack(tmp_path / "v8", frames, version=LINES_VERSION)
    v6 = write_pack(tmp_path / "v6", frames, version=6)
    with Pack(info.idx_path) as p:
        assert p.version == 8
        assert all(p.get(hash_bytes(f)) == f for f in frames)
        assert [f for _o, f in p.frames_in_body_order()] == frames
        assert p.verify() == []
        assert p._nchunks >= 1
    chunks = _chunks(info.pack_path)
    assert chunks.count(SHARED_LINE) == 1                      # once in the table, named by the later blocks
    assert all(len(c) >= LINE_MIN and c.endswith(b"\n") for c in chunks)
    assert b"short\n" not in chunks                           # under LINE_MIN: always stored as it is
    assert info.size + info.idx_size < v6.size + v6.idx_size  # the table pays for itself here
    bundle = PackBytes(info.pack_path.read_bytes(), info.idx_path.read_bytes())
    assert all(bundle.get(hash_bytes(f)) == f for f in frames[::13])
    info.idx_path.unlink()                                     # salvage reads the pack without its index
    assert sorted(f for _o, f in salvage_pack(info.pack_path)) == sorted(frames)


def test_the_same_frames_give_the_same_pack_in_another_process(tmp_path):
    """The line map is keyed by a line's CRC-32 and length, not Python's salted
    ``hash()``: two processes write the same bytes (the pack's name is its
    checksum)."""
    code = ("import sys; from tests.core.test_pack_v8 import _frames; from objstore.core.packwriter import write_pack; "
            "print(write_pack(sys.argv[1], _frames(), version=8).name)")
    root = Path(__file__).resolve().parents[2]
    names = {subprocess.run([sys.executable, "-c", code, str(tmp_path / str(i))], capture_output=True, text=True,
                            cwd=root, check=True, env={"PYTHONHASHSEED": str(i + 1), "PATH": "/usr/bin:/bin",
                                                        "PYTHONPATH": str(root)}).stdout.strip()
             for i in range(2)}
    assert len(names) == 1 and len(next(iter(names))) == 64


def test_a_damaged_chunk_block_is_named_and_salvage_keeps_the_frames_it_can(tmp_path):
    frames = _frames()
    info = write_pack(tmp_path / "p", frames, version=LINES_VERSION)
    data = bytearray(info.pack_path.read_bytes())
    start = 16 + int.from_bytes(data[12:16], "big")
    at = next(off for off, _first, _lines in body_chunks(bytes(data), start, len(data) - 32))
    data[at + 12] ^= 0xFF                                      # inside the chunk block's stream
    info.pack_path.write_bytes(bytes(data))
    with Pack(info.idx_path) as p:
        problems = p.verify()
        assert any("chunk block 0" in m for m in problems), problems
    got = dict(salvage_pack(info.pack_path))
    assert got and all(hash_bytes(f) == o for o, f in got.items())
    assert len(got) < len(frames)                              # the frames naming its chunks are lost
    assert frames[0] in got.values()                           # the first block names no chunk


def test_forget_leaves_no_byte_of_the_value_in_the_pack_or_its_line_table(tmp_path):
    canary = "canary-ptarmigan-7730"
    secret_line = f"    the staging password note says {canary} for now\n"
    with open_store(tmp_path / "s", create=True) as store:
        for i in range(60):
            filler = "".join(f"note {i} step {k}: build layer {k % 5} of the cache, {i * k}\n" for k in range(70))
            facts.remember(store, f"project/p/note{i}", f"note {i}\n" + SHARED_LINE.decode() + filler)
            if i % 4 == 0:
                facts.remember(store, f"project/p/secret{i}",
                               f"secret {i}\n" + secret_line + SHARED_LINE.decode() + filler[:900])
        gc(store, grace_s=0)
        packs = sorted((tmp_path / "s" / "objects" / "pack").glob("*.pack"))
        assert {Pack(p.with_suffix(".idx")).version for p in packs} == {LINES_VERSION}
        before = [c for p in packs for c in _chunks(p)]
        assert secret_line.encode() in before and SHARED_LINE in before   # both are chunks: the test can fail
        assert scan_store(store.root, [canary.encode()])
        forget(store, match=canary)
        gc(store, grace_s=0)
        assert scan_store(store.root, [canary.encode()]) == []            # frames, chunk blocks, every file
        after = [c for p in sorted((tmp_path / "s" / "objects" / "pack").glob("*.pack")) for c in _chunks(p)]
        assert secret_line.encode() not in after and not any(canary.encode() in c for c in after)
        # the chunk scrub (session 32) keeps the table's chunks or scrubs them (b"\n"), makes none: every block
        # here held a secret, so every note was written again whole and SHARED_LINE's chunk went too
        assert all(c == b"\n" or c in before for c in after) and b"\n" in after
        body = facts.current(store, "project/p/note59").fact.body
        assert body.startswith("note 59\n" + SHARED_LINE.decode()) and "note 59 step 69" in body
        assert all(SHARED_LINE.decode() in facts.current(store, f"project/p/note{i}").fact.body for i in range(60))
