"""``integrations.httpcoding.decode_body``: the codings an upstream may
compress an answer with, decoded for capture with a bound (mend25: br and
zstd by the proxy extra's brotli and backports.zstd)."""

from __future__ import annotations

import gzip
import zlib

import pytest

from objstore.integrations import httpcoding
from objstore.integrations.httpcoding import MAX_DECODED, decode_body, not_decoded

brotli = pytest.importorskip("brotli")
zstd = pytest.importorskip("backports.zstd")

DOC = b'{"type": "message", "content": [{"type": "text", "text": "hello"}]}' * 50


@pytest.mark.parametrize("coding, pack", [
    ("gzip", gzip.compress), ("x-gzip", gzip.compress), ("deflate", zlib.compress),
    ("deflate", lambda d: zlib.compress(d, wbits=-15)), ("br", brotli.compress), ("zstd", zstd.compress),
    ("identity", lambda d: d), ("BR", brotli.compress),
])
def test_each_coding_decodes(coding, pack):
    assert decode_body(pack(DOC), coding) == DOC


def test_a_list_of_codings_is_undone_last_first():
    assert decode_body(brotli.compress(zstd.compress(DOC)), "zstd, br") == DOC
    assert decode_body(gzip.compress(brotli.compress(DOC)), "br,gzip") == DOC


def test_several_zstd_frames_are_one_body():
    assert decode_body(zstd.compress(DOC[:100]) + zstd.compress(DOC[100:]), "zstd") == DOC


def test_a_zstd_body_of_many_frames_decodes_up_to_the_frame_bound_and_no_further():
    """test25b U2: frames are found by their headers in one pass (before, each
    frame copied the rest of the body: 150,000 frames took 30 s); a skippable
    frame is no text; one frame past MAX_ZSTD_FRAMES refuses the body."""
    skip = (0x184D2A50).to_bytes(4, "little") + (3).to_bytes(4, "little") + b"abc"   # RFC 8878 3.1.2
    empty = zstd.compress(b"")
    assert decode_body(zstd.compress(DOC[:50]) + skip + empty * 3 + zstd.compress(DOC[50:]), "zstd") == DOC
    body = empty * (httpcoding.MAX_ZSTD_FRAMES - 1) + zstd.compress(b"last")
    assert decode_body(body, "zstd") == b"last"
    assert decode_body(empty + body, "zstd") is None
    assert decode_body(b"", "zstd") is None
    assert decode_body(zstd.compress(DOC) + b"junk", "zstd") is None


def test_every_member_of_a_gzip_body_is_read_up_to_the_member_bound():
    """mend26: only the first member was read, so a body compressed a flush
    at a time (or ``gzip -c a b``) was captured cut short.  Members are read
    a chunk at a time in one pass (16 KiB chunks across a member boundary
    too); zero padding after the last is ignored, other bytes after it
    refuse the body, as do a member cut short and one member past
    MAX_GZIP_MEMBERS."""
    parts = [DOC[:7], DOC[7:1000], b"", DOC[1000:]]
    assert decode_body(b"".join(gzip.compress(p) for p in parts), "gzip") == DOC
    wide = bytes(range(256)) * 400                   # 100 KiB: members that span chunks, stored not deflated
    assert decode_body(gzip.compress(wide, 0) + gzip.compress(wide, 0), "x-gzip") == wide * 2
    assert decode_body(gzip.compress(DOC) + b"\0" * 100, "gzip") == DOC
    assert decode_body(gzip.compress(DOC) + b"\0\0junk", "gzip") is None
    assert decode_body(gzip.compress(DOC) + b"junk", "gzip") is None
    second = gzip.compress(DOC)
    assert decode_body(gzip.compress(DOC) + second[:-4], "gzip") is None
    empty = gzip.compress(b"")
    body = empty * (httpcoding.MAX_GZIP_MEMBERS - 1) + gzip.compress(b"last")
    assert decode_body(body, "gzip") == b"last"
    assert decode_body(empty + body, "gzip") is None
    # the decoded bound counts every member together
    half = gzip.compress(b"\0" * (MAX_DECODED // 2))
    assert decode_body(half + half, "gzip") == b"\0" * MAX_DECODED
    with pytest.raises(httpcoding.TooLarge):
        decode_body(half + half + gzip.compress(b"x"), "gzip")


@pytest.mark.parametrize("coding, pack", [("br", brotli.compress), ("zstd", zstd.compress), ("gzip", gzip.compress)])
def test_a_cut_short_or_damaged_body_is_none_and_a_too_large_one_raises_too_large(coding, pack):
    packed = pack(DOC)
    assert decode_body(packed[: len(packed) // 2], coding) is None
    assert decode_body(b"\xff" * 40, coding) is None
    big = pack(b"\0" * (MAX_DECODED + 1))          # a bomb: a few KB that would decode to 64 MiB + 1
    assert len(big) < 1 << 20
    with pytest.raises(httpcoding.TooLarge) as e:   # told apart from damage: the proxy answers 413 for it
        decode_body(big, coding)
    assert e.value.limit == MAX_DECODED
    assert decode_body(pack(b"\0" * MAX_DECODED), coding) == b"\0" * MAX_DECODED   # the bound itself is taken
    with pytest.raises(httpcoding.TooLarge):        # a bound of the caller's
        decode_body(pack(b"\0" * 1001), coding, 1000)
    assert decode_body(pack(b"\0" * 1000), coding, 1000) == b"\0" * 1000


def test_an_unknown_coding_is_none_and_named_without_an_install_hint():
    assert decode_body(DOC, "compress") is None
    assert not_decoded("compress") == "content-encoding compress not decoded"
    assert not_decoded("x\n\"evil") == "content-encoding (not a coding name) not decoded"
    assert httpcoding.missing_decoder("gzip, br, zstd") == ""   # both libraries installed here
