"""Framing and canonical CBOR: the only place objects become bytes.

Frame (``docs/format.md``)::

    offset 0  4 bytes  magic  b"MEMO"
    offset 4  1 byte   format version, 1
    offset 5  1 byte   type code (1 fact, 2 turn, 3 tombstone, 4 queue item, 5 sealed)
    offset 6  ...      payload: canonical CBOR (RFC 8949 §4.2.1 core deterministic
                       encoding as produced by ``cbor2.dumps(canonical=True)``) of a
                       map with text keys

The object id is ``blake3(frame)`` in hex.  Decoding re-encodes the payload and
requires byte equality, so a non-canonical frame is rejected as corrupt.
"""

from __future__ import annotations

from objstore.core.cborext import cbor2
from objstore.core.errors import CorruptObject, UnsupportedVersion
from objstore.core.ids import hash_bytes
from objstore.core.objects import TYPES, MemObject

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from typing import Any

MAGIC = b"MEMO"
FORMAT_VERSION = 1
HEADER_LEN = 6

_ALLOWED = (int, str, bytes, bool, type(None))


_INT_MIN, _INT_MAX = -(2**64), 2**64 - 1  # CBOR major types 0/1, no bignum tags


def _check_value(v: Any, depth: int = 0) -> None:
    if depth > 8:
        raise CorruptObject("payload nested too deeply")
    if isinstance(v, int) and not isinstance(v, bool) and not _INT_MIN <= v <= _INT_MAX:
        raise CorruptObject("integer outside CBOR's 64-bit range (bignums are not allowed)")
    if isinstance(v, _ALLOWED):
        return
    if isinstance(v, list):
        for x in v:
            _check_value(x, depth + 1)
        return
    if isinstance(v, dict):
        for k, x in v.items():
            if not isinstance(k, str):
                raise CorruptObject("map keys must be text")
            _check_value(x, depth + 1)
        return
    raise CorruptObject(f"type {type(v).__name__} not allowed in a payload")


def encode_payload(type_code: int, payload: dict[str, Any]) -> bytes:
    """Frame a payload: header + canonical CBOR.  Raises CorruptObject for a
    value outside the allowed types (floats, datetimes, tags...)."""
    _check_value(payload)
    try:
        body = cbor2.dumps(payload, canonical=True)
    except (UnicodeEncodeError, ValueError, TypeError) as e:
        raise CorruptObject(f"cannot encode payload: {e}") from None
    return MAGIC + bytes((FORMAT_VERSION, type_code)) + body


def encode(obj: MemObject) -> bytes:
    """Object -> framed bytes.  ``object_id(obj) == hash_bytes(encode(obj))``.

    The object classes validate their fields on construction (types, time
    ranges), so the payload walk of :func:`encode_payload` is skipped here.
    A class whose ``PAYLOAD_IN_ORDER`` is true gives its payload's keys in
    canonical order already (and no value that canonical encoding would
    change: no float, no nested map), so cbor2 writes the same bytes without
    sorting them (a turn: 0.35 s -> 0.2 s over the 37,493 turns of the bench
    corpus)."""
    try:
        body = cbor2.dumps(obj.to_payload(), canonical=not getattr(obj, "PAYLOAD_IN_ORDER", False))
    except (UnicodeEncodeError, ValueError, TypeError) as e:
        raise CorruptObject(f"cannot encode payload: {e}") from None
    return MAGIC + bytes((FORMAT_VERSION, obj.TYPE)) + body


def object_id(obj: MemObject) -> str:
    """The id of an object: blake3 of its framed bytes, 64 hex chars."""
    return hash_bytes(encode(obj))


def read_header(data: bytes) -> int:
    """Check magic and version; return the type code.

    Raises CorruptObject (bad magic, short, unknown type) or UnsupportedVersion.
    """
    if len(data) < HEADER_LEN + 1 or data[:4] != MAGIC:
        raise CorruptObject("not a mem object (bad magic or too short)")
    if data[4] != FORMAT_VERSION:
        raise UnsupportedVersion(f"object format version {data[4]} is not supported (this mem reads {FORMAT_VERSION})")
    if data[5] not in TYPES:
        raise CorruptObject(f"unknown object type code {data[5]}")
    return data[5]


def decode(data: bytes, expected: type | None = None, *, strict: bool = True) -> MemObject:
    """Framed bytes -> object.

    Args:
        data: the exact frame.
        expected: a class from ``objects.TYPES``; a different type raises.
        strict: also re-encode the payload and require byte equality (and
            walk it for disallowed types).  fsck and any untrusted input
            use it; the store's own reads pass False, because every read
            already checks that the frame hashes to its id, so the bytes are
            exactly what this code's canonical encoder wrote.
    Raises:
        CorruptObject: bad magic, bad CBOR, trailing bytes, non-canonical
            encoding, missing/extra/mistyped fields, or an unexpected type.
        UnsupportedVersion: a frame version this code does not know.
    """
    code = read_header(data)
    cls = TYPES[code]
    if expected is not None and cls is not expected:
        raise CorruptObject(f"expected a {expected.TYPE_NAME}, found a {cls.TYPE_NAME}")
    body = data[HEADER_LEN:]
    try:
        payload = cbor2.loads(body)
    except Exception as e:  # cbor2 raises several unrelated types on garbage
        raise CorruptObject(f"bad CBOR: {type(e).__name__}: {e}") from None
    if not isinstance(payload, dict):
        raise CorruptObject("payload is not a map")
    if strict:
        _check_value(payload)
        try:
            again = cbor2.dumps(payload, canonical=True)
        except Exception as e:
            raise CorruptObject(f"payload cannot be re-encoded: {e}") from None
        if again != body:
            raise CorruptObject("payload is not canonical CBOR")
    return cls.from_payload(payload)
