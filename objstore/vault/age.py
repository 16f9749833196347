"""The age v1 file encryption format, in pure Python over ``cryptography``.

Implements the C2SP age specification (https://c2sp.org/age, also published as
https://age-encryption.org/v1): the textual header with recipient stanzas and
HMAC, the STREAM ChaCha20-Poly1305 payload, strict ASCII armor, and three
native recipient types:

* ``X25519``: identities ``AGE-SECRET-KEY-1...``, recipients ``age1...``;
* ``scrypt``: a passphrase; its stanza must be the only one in the header;
* ``mlkem768x25519``: the hybrid post-quantum ML-KEM-768 + X25519 (X-Wing)
  type of age 1.3, identities ``AGE-SECRET-KEY-PQ-1...``, recipients
  ``age1pq1...``.  Only where the installed ``cryptography`` exposes
  ML-KEM-768 (see :func:`hybrid_supported`).

Every primitive (X25519, HKDF-SHA-256, HMAC-SHA-256, ChaCha20-Poly1305,
scrypt, ML-KEM-768, SHAKE256, SHA3-256) comes from ``cryptography``; this
module only composes them as the specifications define, plus Bech32 (BIP-173)
and the HPKE key schedule (RFC 9180), which are encodings/compositions rather
than primitives.  Conformance is checked against the C2SP CCTV age test
vectors and the ``age`` reference binary (``tests/vault/test_age.py``).

Public API (all strings are ASCII key strings as ``age-keygen`` prints them)::

    generate_x25519() -> (identity, recipient)
    generate_hybrid() -> (identity, recipient)          # UnsupportedFeature if no ML-KEM
    hybrid_supported() -> bool
    recipient_of(identity) -> recipient
    encrypt(plaintext, recipients=None, passphrase=None, *, armor=False,
            work_factor=18) -> bytes
    decrypt(data, identities=None, passphrase=None, *, armor=None,
            max_work_factor=22) -> bytes
    parse_identity_file(text) -> list[str]
    format_identity_file(identity, created=None) -> str
    looks_encrypted(data) -> bool

Errors (all subclasses of :class:`AgeError`; nothing else escapes ``decrypt``
for any input bytes):

* :class:`AgeFormatError` -- malformed or unsupported header/stanza ("header
  failure" in the test vectors), including an scrypt stanza mixed with others,
  an all-zero X25519 shared secret, an scrypt work factor above the maximum;
* :class:`AgeArmorError` (an ``AgeFormatError``) -- malformed ASCII armor, or
  input that is neither a binary age file nor armor;
* :class:`AgeMacMismatch` -- a file key was unwrapped but the header MAC is
  wrong (the header was tampered with);
* :class:`NoIdentityMatched` -- no identity/passphrase opens any stanza: wrong
  key or wrong passphrase;
* :class:`AgePayloadError` -- the payload is truncated, tampered with, or has
  trailing data;
* :class:`AgeKeyError` -- a malformed identity, recipient or identity file;
* :class:`AgeUsageError` -- bad arguments (nothing to encrypt to, scrypt mixed
  with recipients, post-quantum mixed with classical recipients, ...);
* :class:`UnsupportedFeature` -- hybrid keys without ML-KEM support.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import functools
import os
import re
from dataclasses import dataclass
from typing import Iterable

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import hmac as _hmac
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF, HKDFExpand
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

try:  # only recent cryptography releases expose ML-KEM (and only with a backend that has it)
    from cryptography.hazmat.primitives.asymmetric import mlkem as _mlkem
except ImportError:  # pragma: no cover - depends on the installed cryptography
    _mlkem = None

__all__ = [
    "AgeError", "AgeFormatError", "AgeArmorError", "AgeMacMismatch", "NoIdentityMatched",
    "AgePayloadError", "AgeKeyError", "AgeUsageError", "UnsupportedFeature",
    "DEFAULT_WORK_FACTOR", "MAX_WORK_FACTOR",
    "generate_x25519", "generate_hybrid", "hybrid_supported", "recipient_of",
    "encrypt", "decrypt", "parse_identity_file", "format_identity_file", "looks_encrypted",
    "bech32_encode", "bech32_decode",
]

DEFAULT_WORK_FACTOR = 18
"""log2 of the scrypt N used when encrypting with a passphrase (age's default)."""
MAX_WORK_FACTOR = 22
"""Largest scrypt work factor accepted when decrypting (age's limit; 2**22 * 1 KiB = 4 GiB)."""

_INTRO = b"age-encryption.org/v1"
_INTRO_PREFIX = b"age-encryption.org/"
_ARMOR_BEGIN = "-----BEGIN AGE ENCRYPTED FILE-----"
_ARMOR_END = "-----END AGE ENCRYPTED FILE-----"
_COLUMNS = 64                      # base64 columns per line, header and armor
_BYTES_PER_LINE = _COLUMNS // 4 * 3
_FILE_KEY_SIZE = 16
_CHUNK = 64 * 1024
_TAG = 16
_ENC_CHUNK = _CHUNK + _TAG
_ZERO_NONCE = bytes(12)

_X25519_INFO = b"age-encryption.org/v1/X25519"
_SCRYPT_LABEL = b"age-encryption.org/v1/scrypt"
_HYBRID_INFO = b"age-encryption.org/mlkem768x25519"

_HRP_X25519_ID = "age-secret-key-"
_HRP_X25519_RCPT = "age"
_HRP_HYBRID_ID = "age-secret-key-pq-"
_HRP_HYBRID_RCPT = "age1pq"


# --------------------------------------------------------------------------- errors


class AgeError(Exception):
    """Base of every error this module raises on purpose."""


class AgeFormatError(AgeError):
    """The age header (or a stanza in it) is malformed or unsupported."""


class AgeArmorError(AgeFormatError):
    """The ASCII armor is malformed, or the input is not an age file at all."""


class AgeMacMismatch(AgeError):
    """The header MAC does not verify: the header was modified."""


class NoIdentityMatched(AgeError):
    """None of the identities or passphrases opens any recipient stanza."""


class AgePayloadError(AgeError):
    """The encrypted payload is truncated, corrupted or followed by garbage."""


class AgeKeyError(AgeError):
    """A malformed or unknown identity, recipient, or identity file."""


class AgeUsageError(AgeError):
    """The arguments do not describe a valid encryption or decryption."""


class UnsupportedFeature(AgeError):
    """The feature (ML-KEM hybrid keys) is unavailable with this ``cryptography``."""


# --------------------------------------------------------------------------- bech32

_B32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_B32_REV = {c: i for i, c in enumerate(_B32_CHARSET)}
_B32_GEN = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)


def _b32_polymod(values: Iterable[int]) -> int:
    chk = 1
    for v in values:
        top = chk >> 25
        chk = ((chk & 0x1FFFFFF) << 5) ^ v
        for i in range(5):
            if (top >> i) & 1:
                chk ^= _B32_GEN[i]
    return chk


def _b32_hrp_expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _convert_bits(data: Iterable[int], frm: int, to: int, pad: bool) -> list[int]:
    acc = bits = 0
    out: list[int] = []
    maxv = (1 << to) - 1
    for v in data:
        acc = (acc << frm) | v
        bits += frm
        while bits >= to:
            bits -= to
            out.append((acc >> bits) & maxv)
    if pad:
        if bits:
            out.append((acc << (to - bits)) & maxv)
    elif bits >= frm or (acc << (to - bits)) & maxv:
        raise ValueError("invalid bech32 padding")
    return out


def bech32_encode(hrp: str, data: bytes) -> str:
    """Bech32-encode *data* under *hrp* as specified in BIP-173
    (https://github.com/bitcoin/bips/blob/master/bip-0173.mediawiki), without
    its 90-character limit, as the age spec requires.  The checksum is computed
    over the lowercase form; the result is uppercase iff *hrp* is."""
    low = hrp.lower()
    if not low or any(not 33 <= ord(c) <= 126 for c in low):
        raise ValueError("invalid bech32 human-readable part")
    values = _convert_bits(data, 8, 5, True)
    poly = _b32_polymod(_b32_hrp_expand(low) + values + [0] * 6) ^ 1
    checksum = [(poly >> 5 * (5 - i)) & 31 for i in range(6)]
    out = low + "1" + "".join(_B32_CHARSET[v] for v in values + checksum)
    return out.upper() if hrp != low else out


def bech32_decode(s: str) -> tuple[str, bytes]:
    """Decode a BIP-173 Bech32 string (no length limit) into ``(hrp, data)``,
    *hrp* lowercased.  Raises ``ValueError`` on mixed case, a bad character,
    a bad checksum or non-zero padding."""
    if any(not 33 <= ord(c) <= 126 for c in s):
        raise ValueError("invalid character in bech32 string")
    low = s.lower()
    if s != low and s != s.upper():
        raise ValueError("mixed-case bech32 string")
    pos = low.rfind("1")
    if pos < 1 or pos + 7 > len(low):
        raise ValueError("bech32 separator misplaced")
    hrp = low[:pos]
    try:
        values = [_B32_REV[c] for c in low[pos + 1:]]
    except KeyError:
        raise ValueError("invalid character in bech32 data") from None
    if _b32_polymod(_b32_hrp_expand(hrp) + values) != 1:
        raise ValueError("invalid bech32 checksum")
    return hrp, bytes(_convert_bits(values[:-6], 5, 8, False))


# --------------------------------------------------------------------------- base64

_RAW_B64 = re.compile(rb"[A-Za-z0-9+/]*")


def _b64encode(data: bytes) -> bytes:
    """Unpadded standard base64 (the header encoding)."""
    return base64.b64encode(data).rstrip(b"=")


def _b64decode(s: bytes | str, what: str) -> bytes:
    """Strict, canonical, unpadded base64 as the spec requires; AgeFormatError otherwise."""
    if isinstance(s, str):
        s = s.encode("ascii")
    if not _RAW_B64.fullmatch(s) or len(s) % 4 == 1:
        raise AgeFormatError(f"invalid base64 in {what}")
    out = base64.b64decode(s + b"=" * (-len(s) % 4))
    if _b64encode(out) != s:
        raise AgeFormatError(f"non-canonical base64 in {what}")
    return out


# --------------------------------------------------------------------------- KDF helpers


def _hkdf(ikm: bytes, salt: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt or None, info=info).derive(ikm)


def _hmac_sha256(key: bytes, data: bytes) -> bytes:
    h = _hmac.HMAC(key, hashes.SHA256())
    h.update(data)
    return h.finalize()


def _x25519(priv: X25519PrivateKey, pub: bytes) -> bytes:
    """X25519 refusing the all-zero shared secret (low-order points)."""
    try:
        return priv.exchange(X25519PublicKey.from_public_bytes(pub))
    except ValueError:  # OpenSSL rejects an all-zero output
        raise AgeFormatError("X25519 share is a low-order point (all-zero shared secret)") from None


# --------------------------------------------------------------------------- stanzas


@dataclass(frozen=True)
class Stanza:
    args: tuple[str, ...]   # args[0] is the stanza type
    body: bytes


def _check_body(stanza: Stanza) -> None:
    # Checked before any decryption, to rule out partitioning oracles.
    if len(stanza.body) != _FILE_KEY_SIZE + _TAG:
        raise AgeFormatError(f"{stanza.args[0]} stanza body is not {_FILE_KEY_SIZE + _TAG} bytes")


class _X25519Recipient:
    postquantum = False

    def __init__(self, public: bytes) -> None:
        self.public = public

    def wrap(self, file_key: bytes) -> Stanza:
        eph = X25519PrivateKey.generate()
        share = eph.public_key().public_bytes_raw()
        secret = _x25519(eph, self.public)
        key = _hkdf(secret, share + self.public, _X25519_INFO)
        body = ChaCha20Poly1305(key).encrypt(_ZERO_NONCE, file_key, None)
        return Stanza(("X25519", _b64encode(share).decode()), body)


class _X25519Identity:
    def __init__(self, secret: bytes) -> None:
        self._key = X25519PrivateKey.from_private_bytes(secret)
        self.public = self._key.public_key().public_bytes_raw()

    def recipient(self) -> str:
        return bech32_encode(_HRP_X25519_RCPT, self.public)

    def unwrap(self, stanzas: list[Stanza]) -> bytes | None:
        for s in stanzas:
            if s.args[0] != "X25519":
                continue
            if len(s.args) != 2:
                raise AgeFormatError("X25519 stanza must have exactly one argument")
            share = _b64decode(s.args[1], "X25519 share")
            if len(share) != 32:
                raise AgeFormatError("X25519 share is not 32 bytes")
            _check_body(s)
            secret = _x25519(self._key, share)
            key = _hkdf(secret, share + self.public, _X25519_INFO)
            try:
                return ChaCha20Poly1305(key).decrypt(_ZERO_NONCE, s.body, None)
            except InvalidTag:
                continue
        return None


class _ScryptIdentity:
    def __init__(self, passphrase: bytes, max_work_factor: int) -> None:
        self._passphrase = passphrase
        self._max = max_work_factor

    def unwrap(self, stanzas: list[Stanza]) -> bytes | None:
        for s in stanzas:
            if s.args[0] != "scrypt":
                continue
            if len(s.args) != 3:
                raise AgeFormatError("scrypt stanza must have exactly two arguments")
            salt = _b64decode(s.args[1], "scrypt salt")
            if len(salt) != 16:
                raise AgeFormatError("scrypt salt is not 16 bytes")
            wf = s.args[2]
            if not re.fullmatch(r"[1-9][0-9]*", wf, flags=re.ASCII):
                raise AgeFormatError(f"invalid scrypt work factor {wf!r}")
            if len(wf) > 3 or int(wf) > self._max:
                raise AgeFormatError(f"scrypt work factor {wf} exceeds the maximum {self._max}")
            _check_body(s)
            key = _scrypt(self._passphrase, salt, int(wf))
            try:
                return ChaCha20Poly1305(key).decrypt(_ZERO_NONCE, s.body, None)
            except InvalidTag:
                continue
        return None


def _scrypt(passphrase: bytes, salt: bytes, work_factor: int) -> bytes:
    return Scrypt(salt=_SCRYPT_LABEL + salt, length=32, n=1 << work_factor, r=8, p=1).derive(passphrase)


def _scrypt_stanza(passphrase: bytes, work_factor: int, file_key: bytes) -> Stanza:
    salt = os.urandom(16)
    key = _scrypt(passphrase, salt, work_factor)
    body = ChaCha20Poly1305(key).encrypt(_ZERO_NONCE, file_key, None)
    return Stanza(("scrypt", _b64encode(salt).decode(), str(work_factor)), body)


# --------------------------------------------------------------------------- hybrid (X-Wing)
#
# MLKEM768-X25519 as in filippo.io/hpke-pq / draft-ietf-hpke-pq-03 (X-Wing),
# used through HPKE base mode (RFC 9180) with HKDF-SHA256 and ChaCha20Poly1305.

_XWING_LABEL = b"\\.//^\\"            # 5c2e2f2f5e5c
_MLKEM_CT = 1088
_MLKEM_EK = 1184
_HYBRID_ENC = _MLKEM_CT + 32
_HYBRID_PK = _MLKEM_EK + 32
_HPKE_SUITE = b"HPKE" + (0x647A).to_bytes(2, "big") + (0x0001).to_bytes(2, "big") + (0x0003).to_bytes(2, "big")


@functools.lru_cache(maxsize=1)
def hybrid_supported() -> bool:
    """Whether ML-KEM-768 (hence the ``mlkem768x25519`` hybrid type) is usable."""
    if _mlkem is None:
        return False
    try:
        _mlkem.MLKEM768PrivateKey.from_seed_bytes(bytes(64))
    except Exception:  # UnsupportedAlgorithm, or an older API shape
        return False
    return True


def _require_hybrid() -> None:
    if not hybrid_supported():
        raise UnsupportedFeature(
            "ML-KEM-768 hybrid (age1pq/AGE-SECRET-KEY-PQ-) keys need a cryptography release "
            "providing cryptography.hazmat.primitives.asymmetric.mlkem with a backend that "
            "supports ML-KEM-768")


def _sha3_256(*parts: bytes) -> bytes:
    h = hashes.Hash(hashes.SHA3_256())
    for p in parts:
        h.update(p)
    return h.finalize()


def _hpke_extract(salt: bytes, label: bytes, ikm: bytes) -> bytes:
    return HKDF.extract(hashes.SHA256(), salt or None, b"HPKE-v1" + _HPKE_SUITE + label + ikm)


def _hpke_expand(prk: bytes, label: bytes, info: bytes, length: int) -> bytes:
    full = length.to_bytes(2, "big") + b"HPKE-v1" + _HPKE_SUITE + label + info
    return HKDFExpand(hashes.SHA256(), length, full).derive(prk)


def _hpke_base_key(shared_secret: bytes, info: bytes) -> tuple[bytes, bytes]:
    """RFC 9180 KeySchedule for mode_base, returning (key, base_nonce)."""
    ctx = b"\x00" + _hpke_extract(b"", b"psk_id_hash", b"") + _hpke_extract(b"", b"info_hash", info)
    secret = _hpke_extract(shared_secret, b"secret", b"")
    return _hpke_expand(secret, b"key", ctx, 32), _hpke_expand(secret, b"base_nonce", ctx, 12)


class _HybridRecipient:
    postquantum = True

    def __init__(self, public: bytes) -> None:
        _require_hybrid()
        try:
            self._pq = _mlkem.MLKEM768PublicKey.from_public_bytes(public[:_MLKEM_EK])
        except ValueError:
            raise AgeKeyError("invalid ML-KEM-768 encapsulation key in age1pq recipient") from None
        self._t = public[_MLKEM_EK:]

    def wrap(self, file_key: bytes) -> Stanza:
        ss_pq, ct_pq = self._pq.encapsulate()
        eph = X25519PrivateKey.generate()
        ct_t = eph.public_key().public_bytes_raw()
        ss_t = _x25519(eph, self._t)
        ss = _sha3_256(ss_pq, ss_t, ct_t, self._t, _XWING_LABEL)
        key, nonce = _hpke_base_key(ss, _HYBRID_INFO)
        body = ChaCha20Poly1305(key).encrypt(nonce, file_key, None)
        return Stanza(("mlkem768x25519", _b64encode(ct_pq + ct_t).decode()), body)


class _HybridIdentity:
    def __init__(self, seed: bytes) -> None:
        _require_hybrid()
        xof = hashes.Hash(hashes.SHAKE256(digest_size=96))
        xof.update(seed)
        full = xof.finalize()
        self._pq = _mlkem.MLKEM768PrivateKey.from_seed_bytes(full[:64])
        self._t = X25519PrivateKey.from_private_bytes(full[64:])
        self._ek_t = self._t.public_key().public_bytes_raw()
        self.public = self._pq.public_key().public_bytes_raw() + self._ek_t

    def recipient(self) -> str:
        return bech32_encode(_HRP_HYBRID_RCPT, self.public)

    def unwrap(self, stanzas: list[Stanza]) -> bytes | None:
        for s in stanzas:
            if s.args[0] != "mlkem768x25519":
                continue
            if len(s.args) != 2:
                raise AgeFormatError("mlkem768x25519 stanza must have exactly one argument")
            enc = _b64decode(s.args[1], "mlkem768x25519 enc")
            if len(enc) != _HYBRID_ENC:
                raise AgeFormatError(f"mlkem768x25519 enc is not {_HYBRID_ENC} bytes")
            _check_body(s)
            ct_pq, ct_t = enc[:_MLKEM_CT], enc[_MLKEM_CT:]
            ss_pq = self._pq.decapsulate(ct_pq)
            ss_t = _x25519(self._t, ct_t)
            ss = _sha3_256(ss_pq, ss_t, ct_t, self._ek_t, _XWING_LABEL)
            key, nonce = _hpke_base_key(ss, _HYBRID_INFO)
            try:
                return ChaCha20Poly1305(key).decrypt(nonce, s.body, None)
            except InvalidTag:
                continue
        return None


# --------------------------------------------------------------------------- keys


def _decode_key(s: str, kind: str) -> tuple[str, bytes]:
    if not isinstance(s, str):
        raise AgeKeyError(f"{kind} must be a str, not {type(s).__name__}")
    try:
        return bech32_decode(s.strip())
    except ValueError as e:
        raise AgeKeyError(f"malformed {kind}: {e}") from None


def _parse_identity(s: str) -> _X25519Identity | _HybridIdentity:
    hrp, data = _decode_key(s, "identity")
    if hrp == _HRP_X25519_ID:
        if len(data) != 32:
            raise AgeKeyError("malformed identity: X25519 secret key is not 32 bytes")
        return _X25519Identity(data)
    if hrp == _HRP_HYBRID_ID:
        if len(data) != 32:
            raise AgeKeyError("malformed identity: post-quantum secret key is not 32 bytes")
        return _HybridIdentity(data)
    raise AgeKeyError(f"unsupported identity type {hrp.upper()!r} (expected AGE-SECRET-KEY-[PQ-]1...)")


@functools.lru_cache(maxsize=256)
def _parse_recipient(s: str) -> _X25519Recipient | _HybridRecipient:
    hrp, data = _decode_key(s, "recipient")
    if hrp == _HRP_X25519_RCPT:
        if len(data) != 32:
            raise AgeKeyError("malformed recipient: X25519 public key is not 32 bytes")
        return _X25519Recipient(data)
    if hrp == _HRP_HYBRID_RCPT:
        if len(data) != _HYBRID_PK:
            raise AgeKeyError(f"malformed recipient: age1pq key is not {_HYBRID_PK} bytes")
        return _HybridRecipient(data)
    raise AgeKeyError(f"unsupported recipient type {hrp!r} (expected age1... or age1pq1...)")


def generate_x25519() -> tuple[str, str]:
    """A fresh X25519 key pair as ``(identity, recipient)`` strings:
    ``AGE-SECRET-KEY-1...`` and ``age1...``."""
    secret = os.urandom(32)
    ident = _X25519Identity(secret)
    return bech32_encode(_HRP_X25519_ID.upper(), secret), ident.recipient()


def generate_hybrid() -> tuple[str, str]:
    """A fresh ML-KEM-768 + X25519 key pair as ``(identity, recipient)``:
    ``AGE-SECRET-KEY-PQ-1...`` and ``age1pq1...`` (about 1,950 characters).
    Raises :class:`UnsupportedFeature` where ML-KEM is unavailable."""
    _require_hybrid()
    seed = os.urandom(32)
    return bech32_encode(_HRP_HYBRID_ID.upper(), seed), _HybridIdentity(seed).recipient()


def recipient_of(identity: str) -> str:
    """The recipient (public key) string of an identity string, X25519 or hybrid."""
    return _parse_identity(identity).recipient()


def parse_identity_file(text: str | bytes) -> list[str]:
    """Identities from an ``age-keygen`` style file: one identity per line,
    blank lines and ``#`` comments ignored, LF or CRLF.  Every identity is
    validated and returned in its canonical (stripped) form.  Raises
    :class:`AgeKeyError` on any other line, on an encrypted identity file
    (decrypt it first), or when the file holds no identity."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        if looks_encrypted(bytes(text)):
            raise AgeKeyError("identity file is age-encrypted; decrypt it with its passphrase first")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise AgeKeyError("identity file is not UTF-8 text") from None
    elif looks_encrypted(text.encode("utf-8", "replace")):
        raise AgeKeyError("identity file is age-encrypted; decrypt it with its passphrase first")
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            _parse_identity(line)
        except AgeKeyError as e:
            raise AgeKeyError(f"identity file line {n}: {e}") from None
        out.append(line)
    if not out:
        raise AgeKeyError("no identities found in identity file")
    return out


def format_identity_file(identity: str, created: datetime.datetime | None = None) -> str:
    """An identity as ``age-keygen`` writes it: ``# created:`` and ``# public key:``
    comments followed by the identity line."""
    recipient = recipient_of(identity)
    when = (created or datetime.datetime.now(datetime.timezone.utc)).replace(microsecond=0)
    stamp = when.isoformat().replace("+00:00", "Z")
    return f"# created: {stamp}\n# public key: {recipient}\n{identity.strip()}\n"


# --------------------------------------------------------------------------- header


def _marshal_header(stanzas: list[Stanza], file_key: bytes) -> bytes:
    out = bytearray(_INTRO + b"\n")
    for s in stanzas:
        out += ("-> " + " ".join(s.args) + "\n").encode("ascii")
        enc = _b64encode(s.body)
        # Wrap at 64 columns; the last line is always short, possibly empty.
        for i in range(0, len(enc) + 1, _COLUMNS):
            out += enc[i:i + _COLUMNS] + b"\n"
    out += b"---"
    mac = _hmac_sha256(_hkdf(file_key, b"", b"header"), bytes(out))
    out += b" " + _b64encode(mac) + b"\n"
    return bytes(out)


def parse_header(data: bytes) -> tuple[list[Stanza], bytes, int, int]:
    """Parse the binary header of an age file (age spec, "Header") strictly.  Returns (stanzas, mac, mac_end,
    payload_start) where ``data[:mac_end]`` is the HMAC input."""
    pos = 0

    def line() -> bytes:
        nonlocal pos
        end = data.find(b"\n", pos)
        if end < 0:
            raise AgeFormatError("unexpected end of header")
        out, pos = data[pos:end], end + 1
        return out

    intro = line()
    if intro != _INTRO:
        if intro.startswith(_INTRO_PREFIX):
            raise AgeFormatError(f"unsupported age format version {intro[len(_INTRO_PREFIX):]!r}")
        raise AgeFormatError("not an age file (bad intro line)")
    stanzas: list[Stanza] = []
    while True:
        start = pos
        if data.startswith(b"---", pos):
            parts = line().split(b" ")
            if parts[0] != b"---" or len(parts) != 2:
                raise AgeFormatError("malformed header MAC line")
            mac = _b64decode(parts[1], "header MAC")
            if len(mac) != 32:
                raise AgeFormatError("header MAC is not 32 bytes")
            if not stanzas:
                raise AgeFormatError("header has no recipient stanzas")
            return stanzas, mac, start + 3, pos
        parts = line().split(b" ")
        if parts[0] != b"->" or len(parts) < 2:
            raise AgeFormatError("malformed recipient stanza line")
        for a in parts[1:]:
            if not a or any(not 33 <= c <= 126 for c in a):
                raise AgeFormatError("malformed recipient stanza argument")
        body = bytearray()
        while True:
            chunk = _b64decode(line(), "stanza body")
            if len(chunk) > _BYTES_PER_LINE:
                raise AgeFormatError("stanza body line longer than 64 columns")
            body += chunk
            if len(chunk) < _BYTES_PER_LINE:
                break
        stanzas.append(Stanza(tuple(a.decode("ascii") for a in parts[1:]), bytes(body)))


# --------------------------------------------------------------------------- armor

_WS = " \t\r\n\v\f"


def armor_encode(data: bytes) -> bytes:
    """A binary age file as ASCII armor (RFC 7468 PEM, label AGE ENCRYPTED
    FILE, 64-column base64 lines, LF line ends), as ``age -a`` writes it."""
    enc = base64.b64encode(data).decode("ascii")
    lines = [enc[i:i + _COLUMNS] for i in range(0, len(enc), _COLUMNS)]
    return ("\n".join([_ARMOR_BEGIN, *lines, _ARMOR_END]) + "\n").encode("ascii")


def armor_decode(data: bytes) -> bytes:
    """Strict RFC 7468 PEM with label AGE ENCRYPTED FILE: 64-column lines, only
    the last one shorter, canonical padded base64, no headers; LF or CRLF line
    ends; whitespace allowed only before BEGIN and after END."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise AgeArmorError("not an age file: neither binary nor ASCII armor") from None
    lines = text.strip(_WS).split("\n")
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    if lines[0] != _ARMOR_BEGIN:
        raise AgeArmorError("not an age file: no '-----BEGIN AGE ENCRYPTED FILE-----' line")
    if len(lines) < 2 or lines[-1] != _ARMOR_END:
        raise AgeArmorError("ASCII armor: missing or malformed END line")
    body = lines[1:-1]
    for i, ln in enumerate(body):
        if not ln or len(ln) > _COLUMNS or (i < len(body) - 1 and len(ln) != _COLUMNS):
            raise AgeArmorError("ASCII armor: malformed line length")
    enc = "".join(body).encode("ascii")
    try:
        out = base64.b64decode(enc, validate=True)
    except (binascii.Error, ValueError):
        raise AgeArmorError("ASCII armor: invalid base64") from None
    if base64.b64encode(out) != enc:
        raise AgeArmorError("ASCII armor: non-canonical base64")
    return out


def looks_encrypted(data: bytes) -> bool:
    """Whether *data* starts like an age file, binary or armored (no validation)."""
    return data.startswith(_INTRO + b"\n") or data.lstrip(_WS.encode()).startswith(
        _ARMOR_BEGIN.encode())


def check_recipient(recipient: str) -> None:
    """Raise AgeKeyError unless *recipient* is an ``age1…`` or ``age1pq1…``
    recipient this module can encrypt to (its checksum and key length)."""
    _parse_recipient(recipient)


def check_passphrase_file(data: bytes) -> None:
    """Check, without the passphrase, that *data* (binary or armored) is
    shaped as a passphrase-encrypted age file: a header that parses, one
    ``scrypt`` stanza with a 16-byte salt, a work factor and a
    32-byte body, and a payload of at least a nonce and one chunk's tag.
    A flipped byte inside the payload or the MAC is found only by
    :func:`decrypt`.  Raises AgeFormatError naming what is wrong."""
    data = bytes(data)
    if data and not data.startswith(_INTRO_PREFIX):
        data = armor_decode(data)
    stanzas, _mac, _end, payload_start = parse_header(data)
    if len(stanzas) != 1 or stanzas[0].args[0] != "scrypt" or len(stanzas[0].args) != 3:
        raise AgeFormatError("the header does not hold exactly one scrypt stanza with two arguments")
    s = stanzas[0]
    if len(_b64decode(s.args[1], "scrypt salt")) != 16:
        raise AgeFormatError("scrypt salt is not 16 bytes")
    if not re.fullmatch(r"[1-9][0-9]{0,2}", s.args[2], flags=re.ASCII):
        raise AgeFormatError(f"invalid scrypt work factor {s.args[2]!r}")
    _check_body(s)
    if len(data) - payload_start < 16 + _TAG:
        raise AgeFormatError("the payload is cut short")


# --------------------------------------------------------------------------- payload


def _chunk_nonce(counter: int, last: bool) -> bytes:
    return counter.to_bytes(11, "big") + (b"\x01" if last else b"\x00")


def _seal_payload(file_key: bytes, plaintext: bytes) -> bytes:
    nonce = os.urandom(16)
    aead = ChaCha20Poly1305(_hkdf(file_key, nonce, b"payload"))
    n = max(1, -(-len(plaintext) // _CHUNK))
    out = [nonce]
    view = memoryview(plaintext)
    for i in range(n):
        out.append(aead.encrypt(_chunk_nonce(i, i == n - 1), view[i * _CHUNK:(i + 1) * _CHUNK], None))
    return b"".join(out)


def _open_payload(file_key: bytes, payload: memoryview) -> bytes:
    if len(payload) < 16:
        # The vectors classify a missing or short nonce as a header failure.
        raise AgeFormatError("file ends before the payload nonce")
    aead = ChaCha20Poly1305(_hkdf(file_key, bytes(payload[:16]), b"payload"))
    ct = payload[16:]
    n, pos, counter, out = len(ct), 0, 0, []
    while True:
        rem = n - pos
        if rem < _TAG:
            raise AgePayloadError("payload truncated: missing final chunk" if rem == 0
                                  else "payload truncated: chunk shorter than its tag")
        if rem < _ENC_CHUNK:
            if rem == _TAG and counter:
                raise AgePayloadError("payload final chunk is empty")
            try:
                out.append(aead.decrypt(_chunk_nonce(counter, True), ct[pos:], None))
            except InvalidTag:
                raise AgePayloadError(f"payload chunk {counter} failed authentication") from None
            return b"".join(out)
        chunk = ct[pos:pos + _ENC_CHUNK]
        try:
            out.append(aead.decrypt(_chunk_nonce(counter, False), chunk, None))
        except InvalidTag:
            try:  # a full-size final chunk
                out.append(aead.decrypt(_chunk_nonce(counter, True), chunk, None))
            except InvalidTag:
                raise AgePayloadError(f"payload chunk {counter} failed authentication") from None
            if pos + _ENC_CHUNK != n:
                raise AgePayloadError("trailing data after the payload's final chunk")
            return b"".join(out)
        pos += _ENC_CHUNK
        counter += 1


# --------------------------------------------------------------------------- API


def _passphrase_bytes(passphrase: bytes | str) -> bytes:
    if isinstance(passphrase, str):
        return passphrase.encode("utf-8")
    if isinstance(passphrase, (bytes, bytearray, memoryview)):
        return bytes(passphrase)
    raise AgeUsageError(f"passphrase must be bytes, not {type(passphrase).__name__}")


def encrypt(plaintext: bytes, recipients: list[str] | None = None, passphrase: bytes | None = None,
            *, armor: bool = False, work_factor: int = DEFAULT_WORK_FACTOR) -> bytes:
    """Encrypt *plaintext* to the recipient strings, or to a passphrase.

    Exactly one of *recipients* (``age1...``/``age1pq1...``, at least one) and
    *passphrase* (non-empty bytes; str is UTF-8 encoded) must be given: an
    scrypt stanza must be alone.  Post-quantum and classical recipients are not
    mixed (that would void the post-quantum protection).  *work_factor* is
    log2 of scrypt's N, 1..MAX_WORK_FACTOR.  With *armor* the result is the
    ASCII-armored (PEM) form.  Raises AgeKeyError, AgeUsageError,
    UnsupportedFeature."""
    if recipients is not None and isinstance(recipients, str):
        raise AgeUsageError("recipients must be a list of strings, not a str")
    if recipients and passphrase is not None:
        raise AgeUsageError("a passphrase cannot be combined with recipients")
    file_key = os.urandom(_FILE_KEY_SIZE)
    if passphrase is not None:
        pw = _passphrase_bytes(passphrase)
        if not pw:
            raise AgeUsageError("empty passphrase")
        if not isinstance(work_factor, int) or not 1 <= work_factor <= MAX_WORK_FACTOR:
            raise AgeUsageError(f"scrypt work factor must be an int in 1..{MAX_WORK_FACTOR}")
        stanzas = [_scrypt_stanza(pw, work_factor, file_key)]
    elif recipients:
        if not all(isinstance(r, str) for r in recipients):
            raise AgeKeyError("recipients must be strings")
        parsed = [_parse_recipient(r.strip()) for r in recipients]
        if len({r.postquantum for r in parsed}) > 1:
            raise AgeUsageError("post-quantum (age1pq) and classical (age1) recipients cannot be mixed")
        stanzas = [r.wrap(file_key) for r in parsed]
    else:
        raise AgeUsageError("encrypt needs at least one recipient or a passphrase")
    if not isinstance(plaintext, (bytes, bytearray, memoryview)):
        raise AgeUsageError(f"plaintext must be bytes, not {type(plaintext).__name__}")
    out = _marshal_header(stanzas, file_key) + _seal_payload(file_key, plaintext)
    return armor_encode(out) if armor else out


def decrypt(data: bytes, identities: list[str] | None = None, passphrase: bytes | None = None,
            *, armor: bool | None = None, max_work_factor: int = MAX_WORK_FACTOR) -> bytes:
    """Decrypt an age file (binary, or ASCII-armored) and return the plaintext.

    *identities* are ``AGE-SECRET-KEY-1...``/``AGE-SECRET-KEY-PQ-1...``
    strings; *passphrase* (bytes, or str as UTF-8) opens an scrypt stanza of
    work factor at most *max_work_factor*.  They are tried in that order.
    *armor* None detects the form (a binary file starts with
    ``age-encryption.org/``; anything else must be valid armor); True/False
    forces it.  Raises the AgeError subclasses listed in the module docstring:
    NoIdentityMatched for a wrong key or passphrase."""
    if isinstance(identities, str):
        raise AgeUsageError("identities must be a list of strings, not a str")
    ids: list = [_parse_identity(i) for i in identities or []]
    if passphrase is not None:
        ids.append(_ScryptIdentity(_passphrase_bytes(passphrase), max_work_factor))
    if not ids:
        raise AgeUsageError("decrypt needs at least one identity or a passphrase")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise AgeUsageError(f"data must be bytes, not {type(data).__name__}")
    data = bytes(data)
    if armor is None:
        armor = bool(data) and not data.startswith(_INTRO_PREFIX)
    if armor:
        data = armor_decode(data)
    stanzas, mac, mac_end, payload_start = parse_header(data)
    if len(stanzas) > 1 and any(s.args[0] == "scrypt" for s in stanzas):
        raise AgeFormatError("an scrypt stanza must be the only one in the header")
    file_key = None
    for ident in ids:
        file_key = ident.unwrap(stanzas)
        if file_key is not None:
            break
    if file_key is None:
        kinds = ", ".join(sorted({s.args[0] for s in stanzas}))
        raise NoIdentityMatched(f"no identity or passphrase matched the file's recipients ({kinds})")
    h = _hmac.HMAC(_hkdf(file_key, b"", b"header"), hashes.SHA256())
    h.update(data[:mac_end])
    try:
        h.verify(mac)
    except InvalidSignature:
        raise AgeMacMismatch("age header MAC mismatch: the header was modified") from None
    return _open_payload(file_key, memoryview(data)[payload_start:])
