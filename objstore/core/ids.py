"""Object ids: blake3-256 over an object's exact framed bytes, written as 64
lowercase hex characters; abbreviations and the loose-object path."""

from __future__ import annotations

import re

from blake3 import blake3

from objstore.core.errors import InvalidInput

ID_HEX_LEN = 64
ZERO_ID = "0" * ID_HEX_LEN
#: the shortest abbreviation of an object id or a session id a command takes
MIN_PREFIX_LEN = 4
_HEX = re.compile(r"[0-9a-f]+")


def hash_bytes(data: bytes) -> str:
    """Return the object id of ``data``: ``blake3(data)`` as 64 hex chars."""
    return blake3(data).hexdigest()


def is_full_id(text: str) -> bool:
    """True when ``text`` is a full 64-character lowercase hex id."""
    return len(text) == ID_HEX_LEN and bool(_HEX.fullmatch(text))


def check_prefix(text: str) -> str:
    """Validate an id or an abbreviation of at least 4 hex characters.

    Returns it lower-cased.  Raises :class:`InvalidInput` otherwise.
    """
    t = text.strip().lower()
    if not (MIN_PREFIX_LEN <= len(t) <= ID_HEX_LEN and _HEX.fullmatch(t)):
        raise InvalidInput(f"not an object id: {text!r} (want 4 to 64 hex characters)")
    return t


def to_raw(hex_id: str) -> bytes:
    """Hex id -> 32 raw bytes (as stored inside CBOR payloads)."""
    return bytes.fromhex(hex_id)


def to_hex(raw: bytes) -> str:
    """32 raw bytes -> hex id."""
    return raw.hex()
