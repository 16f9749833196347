"""The version-8 writer's line map holds no object per line (issue 12: the
1M-turn import's peak RSS; docs/benchmarks.md, "Session 33 (branch
`scale33`)").

A body pack of the 1M import meets ~100,000 lines of LINE_MIN bytes or
more; the map of first-seen lines was a dict of int keys (~8.6 MB for
101,160 lines), it is now two arrays (3 MB).  Checked here: the memory the
pass holds after 100,000 distinct lines; that a map made to grow (a small
first size) and one that never grows give the same pack bytes, and that the
cap still stops new lines while the frames read back exactly, through a real
pack on disk; two lines of the same CRC-32 and length (one key) both read
back, only the first made a chunk."""

from __future__ import annotations

import tracemalloc
import zlib

from objstore.core import packlines
from objstore.core.ids import hash_bytes
from objstore.core.packfile import Pack
from objstore.core.packlines import LINES_VERSION, LinePass
from objstore.core.packwriter import write_pack


def _frames(n: int = 400, seed: int = 0) -> list[bytes]:
    """``n`` frames of ~1.4 KB: lines of their own, a line every 5th frame
    holds and one every frame holds (chunks once met in a later block)."""
    out = []
    for i in range(n):
        own = b"".join(b"line %d of frame %d.%d: %s\n" % (k, seed, i, hash_bytes(b"%d.%d.%d" % (seed, i, k)).encode())
                       for k in range(12))
        fifth = b"a line every fifth frame holds, long enough to be a chunk %d\n" % (i % 3) if i % 5 == 0 else b""
        out.append(b"MEMO\n" + b"    the line every frame holds, release notes go out at noon\n" + own + fifth
                   + b"end of frame %d" % i)
    return out


def test_the_pass_holds_no_object_per_line_it_met():
    lp = LinePass()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for b in range(100):   # 100 blocks of 1,000 distinct lines: each met once, none a chunk
            lp.strip([b"".join(b"a line of its own, block %d, number %d, padded\n" % (b, k) for k in range(f, f + 10))
                      for f in range(0, 1000, 10)])
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert lp.table == []
    assert held < 4_000_000, held   # the dict of int keys held ~8 MB here


def test_a_grown_map_and_the_cap_write_the_same_pack_and_read_back(tmp_path, monkeypatch):
    frames = _frames()
    whole = write_pack(tmp_path / "a", frames, version=LINES_VERSION)
    monkeypatch.setattr(packlines, "_MAP_START", 1 << 4)          # grows ~10 times on the way
    grown = write_pack(tmp_path / "b", frames, version=LINES_VERSION)
    assert grown.pack_path.read_bytes() == whole.pack_path.read_bytes()
    assert grown.idx_path.read_bytes() == whole.idx_path.read_bytes()
    monkeypatch.setattr(packlines, "LINE_MAP_MAX", 40)             # full after the first frames' lines
    capped = write_pack(tmp_path / "c", frames, version=LINES_VERSION)
    assert capped.pack_path.read_bytes() != whole.pack_path.read_bytes()
    for info in (whole, capped):
        with Pack(info.idx_path) as p:
            assert [f for _o, f in p.frames_in_body_order()] == frames
            assert p.verify() == []
    with Pack(capped.idx_path) as p:
        assert 1 <= p._nchunks <= 40


def _same_key(length: int) -> tuple[bytes, bytes]:
    """Two different lines of ``length`` bytes with the same CRC-32."""
    seen: dict[int, bytes] = {}
    k = 0
    while True:
        line = (b"colliding line %d " % k).ljust(length, b"x")
        c = zlib.crc32(line)
        if c in seen:
            return seen[c], line
        seen[c] = line
        k += 1


def test_two_lines_of_one_key_both_read_back(tmp_path):
    a, b = _same_key(40)
    frames = [b"MEMO\n%s\nframe %d" % (a if i % 2 else b, i) for i in range(4000)]   # many blocks of both
    info = write_pack(tmp_path / "p", frames, version=LINES_VERSION)
    with Pack(info.idx_path) as p:
        assert all(p.get(hash_bytes(f)) == f for f in frames)
        assert p.verify() == []
        assert p._nchunks == 1                      # the key's first line; the other stored as it is
