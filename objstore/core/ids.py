"""Object ids: blake3-256 over an object's exact framed bytes, written as 64
lowercase hex characters; abbreviations and the loose-object path."""

from __future__ import annotations

import sys

from blake3 import blake3

from objstore.core.errors import InvalidInput

ID_HEX_LEN = 64
ZERO_ID = "0" * ID_HEX_LEN
#: the shortest abbreviation of an object id or a session id a command takes
MIN_PREFIX_LEN = 4
_HEX_DIGITS = "0123456789abcdef"


def is_hex(text: str) -> bool:
    """True when ``text`` is one or more lowercase hex digits (``[0-9a-f]+``):
    a string test, not a regular expression, so that no process on a reader
    path compiles one for it (start-up, docs/benchmarks.md)."""
    return bool(text) and not text.strip(_HEX_DIGITS)


def hash_bytes(data: bytes) -> str:
    """Return the object id of ``data``: ``blake3(data)`` as 64 hex chars."""
    return blake3(data).hexdigest()


def sha256(data: bytes = b""):
    """A SHA-256 hash object (FIPS 180-4) of ``data``, as ``hashlib.sha256``
    gives: OpenSSL's when ``hashlib`` is loaded already (a bulk hasher),
    else CPython's own ``_sha2``/``_sha256`` (the same digests, ~4x slower
    per byte), so a command that hashes a few short texts (the prompt hook:
    a prompt's key, a transcript's cursor name) does not load OpenSSL:
    ``import hashlib`` costs a new process 2.5-4 ms (docs/benchmarks.md,
    "Session 8 (branch `lean8`)").  The built-in module is looked up once
    (a failed ``import _sha2`` searches every ``sys.path`` entry again on
    each call: ~67 µs of CPU on CPython 3.11, where it does not exist)."""
    lib = sys.modules.get("hashlib")
    if lib is not None:
        return lib.sha256(data)
    return (_own_sha256 or _find_own_sha256())(data)


_own_sha256 = None


def _find_own_sha256():
    """CPython's own SHA-256 constructor (``_sha2`` from 3.12, ``_sha256``
    before), or hashlib's when neither exists; found once."""
    global _own_sha256
    try:
        from _sha2 import sha256 as own   # CPython >= 3.12
    except ImportError:
        try:
            from _sha256 import sha256 as own   # CPython 3.11
        except ImportError:  # pragma: no cover - another interpreter
            from hashlib import sha256 as own
    _own_sha256 = own
    return own


def blake2b(data: bytes = b"", *, digest_size: int = 64, key: bytes = b""):
    """A BLAKE2b hash object (RFC 7693) of ``data`` with a ``digest_size``-byte
    digest (1..64), as ``hashlib.blake2b`` gives: CPython's own ``_blake2``,
    which is what ``hashlib.blake2b`` is, so that a reader does not load
    ``hashlib`` and with it OpenSSL's ``_hashlib`` (2.5-4 ms of a new
    process: docs/benchmarks.md, "Session 9 (branch `lat9`)").  ``key``
    (up to 64 bytes): BLAKE2b's keyed mode, a MAC (RFC 7693 section 2.9).
    Raises ValueError for a ``digest_size`` or ``key`` out of range."""
    global _own_blake2b
    if _own_blake2b is None:   # looked up once (an import per call costs ~1 µs: a turn's digest)
        try:
            from _blake2 import blake2b as own
        except ImportError:  # pragma: no cover - another interpreter
            from hashlib import blake2b as own
        _own_blake2b = own
    return _own_blake2b(data, digest_size=digest_size, key=key)


_own_blake2b = None


def is_full_id(text: str) -> bool:
    """True when ``text`` is a full 64-character lowercase hex id."""
    return len(text) == ID_HEX_LEN and is_hex(text)


def check_prefix(text: str) -> str:
    """Validate an id or an abbreviation of at least 4 hex characters.

    Returns it lower-cased.  Raises :class:`InvalidInput` otherwise.
    """
    t = text.strip().lower()
    if not (MIN_PREFIX_LEN <= len(t) <= ID_HEX_LEN and is_hex(t)):
        raise InvalidInput(f"not an object id: {text!r} (want 4 to 64 hex characters)")
    return t


def to_raw(hex_id: str) -> bytes:
    """Hex id -> 32 raw bytes (as stored inside CBOR payloads)."""
    return bytes.fromhex(hex_id)


def to_hex(raw: bytes) -> str:
    """32 raw bytes -> hex id."""
    return raw.hex()
