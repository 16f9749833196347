"""One flipped bit in a block of a pack is found and flipped back (test34b T24).

Before, one bit in the first half of a 12-key pack lost every key: the
objects after it in the block inflate to wrong bytes (a literal they copy,
a Huffman table they share), and ``mem fsck --repair`` dropped them all
without a cause.  ``packmend.find_flip`` finds the flipped bit, proved by
the pack's name (the BLAKE3 of its body) and the objects' ids, in every
block version (3 to 6 and 8; 8 with its table of repeated lines).  Real
packs written by the writer, real flips of every bit of sampled bytes of
their frame blocks."""

from __future__ import annotations

import shutil

import pytest

from objstore.core.codec import encode
from objstore.core.errors import CorruptObject
from objstore.core.ids import hash_bytes
from objstore.core.objects import Turn
from objstore.core.packfile import Pack
from objstore.core.packmend import find_flip
from objstore.core.packwriter import write_pack


def _frames(n: int = 40) -> list[bytes]:
    """``n`` turns of one session (each the parent of the next) sharing long lines (chunks in version 8)."""
    out: list[bytes] = []
    for i in range(n):
        shared = "".join(f"  a shared line number {k} of the project notes\n" for k in range(i % 4, 6))
        out.append(encode(Turn(session="s", seq=i, role="user", text=f"turn {i}\n{shared}own text {i}\n",
                               timestamp=1772000000000 + i, harness="claude-code", cwd="/w", project="w",
                               source=f"cc:msg:{i}", parent=hash_bytes(out[-1]) if out else None)))
    return out


def _unreadable(idx) -> int:
    with Pack(idx) as p:
        return sum(isinstance(f, CorruptObject) for _oid, f in p.frames_in_body_order())


@pytest.mark.parametrize("version", [3, 4, 5, 6, 8])
def test_a_flipped_bit_of_a_frame_block_is_found(tmp_path, version):
    frames = _frames()
    info = write_pack(tmp_path / "w", frames, version=version)
    good = info.pack_path.read_bytes()
    with Pack(info.idx_path) as p:
        blocks = p.block_offsets()
    lo = blocks[0] + 4
    hi = lo + int.from_bytes(good[blocks[0]:blocks[0] + 4], "big")
    work = tmp_path / "p"
    work.mkdir()
    shutil.copy(info.idx_path, work / info.idx_path.name)
    pack, idx = work / info.pack_path.name, work / info.idx_path.name
    tried = found = 0
    for at in range(lo, hi, max(1, (hi - lo) // 12)):
        for bit in (0, 5):
            data = bytearray(good)
            data[at] ^= 1 << bit
            pack.write_bytes(bytes(data))
            if not _unreadable(idx):
                continue          # a bit no object depends on (padding): nothing is lost
            tried += 1
            with Pack(idx) as p:
                assert find_flip(p) == (at, bit), (version, at, bit)
            found += 1
    assert tried >= 8 and found == tried


def test_a_sound_pack_and_a_two_bit_damage_are_left_alone(tmp_path):
    info = write_pack(tmp_path, _frames(), version=8)
    with Pack(info.idx_path) as p:
        assert find_flip(p) is None
        at = p.block_offsets()[0] + 40
    data = bytearray(info.pack_path.read_bytes())
    data[at] ^= 0x11                 # two bits: not one flip (the repair sets the pack aside as before)
    info.pack_path.write_bytes(bytes(data))
    assert _unreadable(info.idx_path)
    with Pack(info.idx_path) as p:
        assert find_flip(p) is None
