"""A version-8 block's line references read at once (lane lat36).

Every read of a version-8 frame parses the line references of the frames
before it in its block; ``packlines.parse_refs`` read them a varint at a
time (``_read_varint``: ~30 % of a recall's work in the resident helper,
docs/benchmarks.md, "Session 36 (branch `lat36`)").  It now reads the
area's varints at once (``varint_values``) and falls back to the byte by
byte parse only for a damaged area, which raises the same error at the
same place.  These tests check the two give the same list or the same
error on sound and damaged areas of every shape, and that a sound area
never takes the slow path."""

from __future__ import annotations

import random

import pytest

from objstore.core import packlines
from objstore.core.packlines import _parse_refs_bytewise, _varint, parse_refs, varint_values


def _outcome(fn, area, count, upto):
    try:
        return "ok", fn(area, count, upto)
    except ValueError as e:
        return "error", str(e)


def _area(rnd: random.Random, count: int, sound: bool = False) -> bytes:
    """``count`` frames' references; ``sound``: every chunk after the one before (even zigzags)."""
    zigzags = [0, 2, 4, 254, 1000, 2 ** 28] if sound else [0, 1, 2, 3, 4, 255, 1000, 2 ** 28]
    out = bytearray()
    for _ in range(count):
        n = rnd.choice([0, 0, 1, 2, 3, 5])
        _varint(n, out)
        for _r in range(n):
            _varint(rnd.choice([0, 1, 5, 100, 127, 128, 300, 20000, 2 ** 21, 2 ** 30]), out)  # offset step
            _varint(rnd.choice(zigzags), out)  # zigzag: odd ones step back
    return bytes(out)


def _damaged(rnd: random.Random, area: bytes) -> bytes:
    m = rnd.random()
    if m < 0.25 and area:
        return area[:rnd.randrange(len(area))]                       # runs short, maybe inside a varint
    if m < 0.4:
        return area + bytes([rnd.randrange(256)])                    # a byte left over
    if m < 0.6 and area:
        i = rnd.randrange(len(area))
        return area[:i] + bytes([rnd.randrange(256)]) + area[i + 1:]  # one byte changed
    if m < 0.7:
        return area + b"\xff" * rnd.randint(1, 7) + b"\x01"          # a varint over 5 bytes
    return area


def test_parse_refs_gives_the_byte_by_byte_parse_list_or_error():
    rnd = random.Random(36)
    seen = {"ok": 0, "error": 0}
    for _ in range(4000):
        count = rnd.randint(0, 8)
        area = _damaged(rnd, _area(rnd, count))
        for upto in (None, 0, 1, rnd.randint(0, 9)):
            want = _outcome(_parse_refs_bytewise, area, count, upto)
            assert _outcome(parse_refs, area, count, upto) == want, (area.hex(), count, upto)
            assert _outcome(parse_refs, memoryview(b"--" + area)[2:], count, upto) == want
            seen[want[0]] += 1
    assert seen["ok"] > 1000 and seen["error"] > 1000   # both kinds were met


def test_varint_values_reads_every_width_and_refuses_what_is_no_varint():
    nums = [0, 1, 127, 128, 300, 16383, 16384, 2 ** 21 - 1, 2 ** 21, 2 ** 28, 2 ** 35 - 1]
    out = bytearray()
    for n in nums:
        _varint(n, out)
    assert varint_values(bytes(out)) == nums
    assert varint_values(b"") == []
    for bad in (b"\x80", b"\x01\x81", b"\xff" * 5 + b"\x01"):
        with pytest.raises(ValueError):
            varint_values(bad)


def test_a_sound_area_is_parsed_without_the_byte_by_byte_reader(monkeypatch):
    rnd = random.Random(7)
    areas = [(_area(rnd, c, sound=True), c) for c in (1, 4, 8, 8)]
    want = {a: parse_refs(a, c) for a, c in areas}

    def refuse(buf, pos):
        raise AssertionError("a sound area read a varint at a time")

    monkeypatch.setattr(packlines, "_read_varint", refuse)
    for a, c in areas:
        assert parse_refs(a, c) == want[a]
        assert parse_refs(a, c, 2) == want[a][:2]


def _frame_by_frame(area, count, upto):
    """``first_frames_refs``' answer as a list (each frame asked for), or the error."""
    try:
        refs = packlines.first_frames_refs(area, count, upto)
        return "ok", [refs[k] for k in range(len(refs))]
    except ValueError as e:
        return "error", str(e)


def test_a_read_of_one_frame_makes_that_frames_references_alone_the_same_as_parse_refs(monkeypatch):
    """A block read (``stored_prefix(lazy=True)``) makes only the references
    of the frame it reads (session 40, rec40): each frame's list is
    ``parse_refs``', and an area ``parse_refs`` refuses is refused, when
    read or when the frame holding the damage is asked for."""
    rnd = random.Random(40)
    seen = {"ok": 0, "error": 0}
    for _ in range(3000):
        count = rnd.randint(1, 8)
        area = _damaged(rnd, _area(rnd, count))
        for upto in (1, count, rnd.randint(1, 9)):
            want = _outcome(parse_refs, area, count, upto)
            got = _frame_by_frame(area, count, upto)
            assert got[0] == want[0], (area.hex(), count, upto)
            if want[0] == "ok":
                assert got[1] == want[1]
            seen[want[0]] += 1
    assert seen["ok"] > 1000 and seen["error"] > 500
    area = b"".join(bytes([2, 3, 2, 4, 2]) for _ in range(8))   # 8 frames of two references each
    refs = packlines.first_frames_refs(area, 8, 8)
    assert refs[7] == parse_refs(area, 8)[7] == [(3, 1), (7, 3)]
    assert list(refs._made) == [7]   # frame 7's list made, not those of the seven frames before it


def test_strip_writes_one_byte_and_longer_varints_that_read_back_every_frame():
    """imp41: ``LinePass.strip`` appends a reference's one-byte varints (a step under 128) itself and
    hands longer ones to ``_varint``; frames whose repeated lines lie at offset steps and chunk steps
    on both sides of 128 (backward chunk steps too) read back byte for byte, and the area is exactly
    the varints of the references ``parse_refs`` reads from it."""
    rnd = random.Random(41)
    lines = [b"line %04d " % i + b"x" * rnd.choice([6, 20, 90, 300]) + b"\n" for i in range(400)]
    lp = packlines.LinePass()
    blocks = []
    for _b in range(6):
        frames = [b"".join(rnd.choice(lines) if rnd.random() < 0.8 else b"short\n"
                           for _ in range(rnd.randint(0, 30))) + b"tail" for _f in range(40)]
        blocks.append((frames, *lp.strip(frames)))
    table = [line for _first, content in lp.chunk_blocks(final=True)
             for line in packlines.parse_chunk_block(content)[1]]
    seen = set()
    for frames, stored, area in blocks:
        refs = parse_refs(area, len(frames))
        again = bytearray()
        for got, frame, rs in zip(stored, frames, refs):
            assert packlines.splice(got, rs, lambda c: table[c] + b"\n") == frame
            _varint(len(rs), again)
            lo, lc = 0, -1
            for o, c in rs:
                d = c - lc - 1
                seen.update((("offset", o - lo >= 128), ("chunk", (d * 2 if d >= 0 else -d * 2 - 1) >= 128),
                             ("back", d < 0)))
                _varint(o - lo, again)
                _varint(d * 2 if d >= 0 else -d * 2 - 1, again)
                lo, lc = o, c
        assert bytes(again) == area
    # one-byte and longer varints of both values, and chunk steps backwards, were all written
    assert seen == {(k, v) for k in ("offset", "chunk", "back") for v in (True, False)}
def test_a_read_of_an_early_frame_decodes_the_area_only_up_to_its_frame_references(monkeypatch):
    """A block read of frame ``k`` short of the block's last decodes the
    line-reference area's first ``(k + 1) / count`` part, cut between two
    varints, and the rest only when the frames run past it (session 41,
    rec41): the same lists as the whole area's read, and a read no longer
    depends on the bytes past its frames' references."""
    rnd = random.Random(41)
    for _ in range(2000):   # sound areas: each frame's list as parse_refs gives it, whatever the cut
        count = rnd.randint(1, 12)
        area = _area(rnd, count, sound=True)
        for upto in range(1, count + 1):
            assert _frame_by_frame(area, count, upto) == ("ok", parse_refs(area, count)[:upto])
    frames = [bytes([2, 3, 2, 4, 2])] * 16                       # 16 frames of two references each
    area = b"".join(frames)
    decoded: list[int] = []
    real = packlines.varint_values
    monkeypatch.setattr(packlines, "varint_values", lambda part: decoded.append(len(part)) or real(part))
    refs = packlines.first_frames_refs(area, 16, 4)              # a read of frame 3 of 16
    assert refs[3] == [(3, 1), (7, 3)] and sum(decoded) < len(area) // 2
    damaged = area + b"\xff" * 7                                 # no varint after the last frame's references
    assert packlines.first_frames_refs(damaged, 16, 4)[3] == [(3, 1), (7, 3)]
    # frame 1 names a negative chunk (zigzag 7: a step of -4): its own read fails; frame 3's (that does
    # not name it) reads, as in a sound area (before: the tail's damage sent the read to the byte-by-byte
    # parse, which refused every frame of the block)
    bad = frames[0] + bytes([2, 3, 7, 4, 2]) + b"".join(frames[2:]) + b"\xff" * 7
    refs = packlines.first_frames_refs(bad, 16, 4)
    assert refs[3] == [(3, 1), (7, 3)]
    with pytest.raises(ValueError, match="negative chunk"):
        refs[1]
