"""The object codec: round trips, canonical-only decoding, golden ids."""

from __future__ import annotations

import cbor2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from objstore.core.codec import MAGIC, decode, encode, encode_payload, object_id
from objstore.core.errors import CorruptObject, UnsupportedVersion
from objstore.core.ids import hash_bytes
from objstore.core.objects import KINDS, ROLES, SENSITIVITIES, TRUST_LEVELS, Fact, Tombstone, Turn

ids = st.binary(min_size=32, max_size=32).map(bytes.hex)
text = st.text()  # hypothesis never generates lone surrogates unless asked
ms = st.integers(min_value=0, max_value=253_402_300_799_999)

facts = st.builds(
    Fact, key=text, kind=st.sampled_from(KINDS), body=text, version=st.integers(1, 2**31),
    parent=st.none() | ids, valid_from=ms, recorded_at=ms, trust=st.sampled_from(TRUST_LEVELS),
    sensitivity=st.sampled_from(SENSITIVITIES), owner=text, sources=st.lists(text, max_size=3).map(tuple),
    pinned=st.booleans())
turns = st.builds(
    Turn, session=text, seq=st.integers(0, 2**31), role=st.sampled_from(ROLES), text=text, timestamp=ms,
    harness=text, cwd=text, project=text, source=text, parent=st.none() | ids,
    forgotten=st.sampled_from([0, 1, 23, 24, 255, 256, 65536]) | ms, entrypoint=text, untrusted=st.booleans())
tombs = st.builds(Tombstone, key=text, value_sha256=st.binary(min_size=32, max_size=32), time=ms, reason=text)
objects = facts | turns | tombs


@given(objects)
def test_round_trip(obj):
    frame = encode(obj)
    assert frame[:4] == MAGIC
    assert decode(frame) == obj
    assert decode(frame, type(obj)) == obj
    assert encode(decode(frame)) == frame
    assert object_id(obj) == hash_bytes(frame)


@given(turns)
def test_a_turn_payload_in_order_is_its_canonical_encoding(turn):
    """Turn.PAYLOAD_IN_ORDER: the keys come in canonical order, so encoding
    without sorting gives the canonical bytes (every optional field, every
    integer width)."""
    payload = turn.to_payload()
    assert encode(turn)[6:] == cbor2.dumps(payload, canonical=True) == cbor2.dumps(payload)


@given(st.binary(max_size=200))
@settings(max_examples=300)
def test_decode_garbage_raises_only_domain_errors(data):
    for d in (data, MAGIC + b"\x01\x01" + data, MAGIC + b"\x01\x02" + data):
        try:
            decode(d)
        except (CorruptObject, UnsupportedVersion):
            pass


def _fact(**kw):
    base = dict(key="project/acme/db", kind="project", body="Postgres 16 on port 5433", version=2,
                parent="9" * 64, valid_from=1772000000000, recorded_at=1772000000123,
                trust="user_stated", sensitivity="private", owner="user", sources=(), pinned=False)
    base.update(kw)
    return Fact(**base)


# The worked example of docs/format.md.  If this id changes, the format changed:
# that needs a new format version, not a new golden id.
GOLDEN_FACT_ID = "85b1bef73b2290670ff999d774b20e431e7891e0304f4b511d82d8c3ee22cc5e"


def test_golden_fact_id():
    frame = encode(_fact())
    assert frame[:6] == b"MEMO\x01\x01"
    assert object_id(_fact()) == GOLDEN_FACT_ID


def test_non_canonical_map_order_rejected():
    payload = _fact().to_payload()
    frame = encode(_fact())
    # same map, keys in reverse order: valid CBOR, not canonical
    body = b"".join([bytes([0xA0 + len(payload)])] + [cbor2.dumps(k) + cbor2.dumps(v)
                                                      for k, v in reversed(sorted(payload.items()))])
    assert body != frame[6:]
    assert cbor2.loads(body) == payload
    with pytest.raises(CorruptObject, match="canonical"):
        decode(frame[:6] + body)


def test_non_shortest_integer_rejected():
    frame = encode(Tombstone(key="user/x", value_sha256=b"\0" * 32, time=5, reason="r"))
    # re-encode the int 5 as a 1-byte-argument integer (0x18 0x05): legal CBOR, not canonical
    i = frame.index(b"time") + 4
    assert frame[i] == 0x05
    bad = frame[:i] + b"\x18\x05" + frame[i + 1:]
    with pytest.raises(CorruptObject):
        decode(bad)


def test_floats_and_unknown_fields_rejected():
    p = _fact().to_payload()
    with pytest.raises(CorruptObject):
        encode_payload(1, {**p, "valid_from": 1.5})
    with pytest.raises(CorruptObject, match="unknown fields"):
        decode(encode_payload(1, {**p, "extra": 1}))
    with pytest.raises(CorruptObject, match="wrong type"):
        decode(encode_payload(1, {**p, "version": True}))


def test_wrong_type_and_version():
    frame = encode(_fact())
    with pytest.raises(CorruptObject, match="expected a turn"):
        decode(frame, Turn)
    with pytest.raises(UnsupportedVersion):
        decode(frame[:4] + b"\x02" + frame[5:])
    with pytest.raises(CorruptObject):
        decode(b"XXXX" + frame[4:])
    with pytest.raises(CorruptObject):
        decode(frame + b"\x00")  # trailing bytes


def test_lone_surrogate_cannot_be_encoded():
    with pytest.raises(CorruptObject):
        encode(_fact(body="bad \ud83d"))


# docs/format.md, "Edges": the worked example's fact with two edges.
GOLDEN_FACT_WITH_EDGES_ID = "ecbf25d38df85dba7b7d6542f8944129457250a6d06bcf5cc02f5acf3e3f5dc9"


def test_golden_fact_with_edges_id():
    f = _fact(edges=(("rollup_of", "ab" * 32), ("relates_to", "project/acme/cache")))
    frame = encode(f)
    assert len(frame) == 343
    assert object_id(f) == GOLDEN_FACT_WITH_EDGES_ID
    assert decode(frame) == f
    # edges are optional: the fact without them keeps its old id
    assert object_id(_fact(edges=())) == GOLDEN_FACT_ID


def test_edges_have_one_encoding():
    good = _fact(edges=(("relates_to", "user/b"), ("relates_to", "user/a"), ("relates_to", "user/a")))
    assert good.edges == (("relates_to", "user/a"), ("relates_to", "user/b"))
    payload = good.to_payload()
    for bad in ({}, {"relates_to": []}, {"relates_to": ["user/b", "user/a"]}, {"relates_to": ["user/a", "user/a"]},
                {"mentions": ["user/a"]}, {"relates_to": [b"x"]}, ["user/a"]):
        frame = MAGIC + b"\x01\x01" + cbor2.dumps({**payload, "edges": bad}, canonical=True)
        with pytest.raises(CorruptObject):
            decode(frame)
    from objstore.core.errors import InvalidInput
    for rel, target in (("mentions", "user/a"), ("relates_to", "nohex"), ("relates_to", "AB" * 32)):
        with pytest.raises(InvalidInput):
            _fact(edges=((rel, target),))
