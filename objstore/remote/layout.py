"""The remote layout (format 1), byte by byte in ``docs/format.md`` "Remotes".

::

    <remote>/mem-remote       descriptor, canonical CBOR, never encrypted, written once
    <remote>/manifest         the refs, packs and snapshots (sealed), replaced by compare-and-swap
    <remote>/packs/<64 hex>   a pack bundle (sealed); the name is blake3 of the stored bytes

*Sealed* means: the age v1 file of the plaintext, encrypted to the remote's
X25519 recipient (``objstore/vault/age.py``), or the plaintext itself for a
remote created with ``--no-encrypt``.  The provider sees the sizes and the
number of packs and manifest writes, never ids, keys, values or text.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import blake3

from objstore.core.cborext import cbor2
from objstore.core.errors import CorruptObject, InvalidInput, UnsupportedVersion, WrongKey

REMOTE_FORMAT = 1
DESCRIPTOR = "mem-remote"
MANIFEST = "manifest"
BUNDLE_MAGIC = b"MRPK"


#: what to do about damage on a remote (not in this store: ``mem fsck`` cannot mend it)
REMOTE_DAMAGE_HINT = ("the damage is on the remote, not in this store: check the remote's URL, run 'mem push "
                      "--repair' on a machine that has the data, restore its folder or bucket from a copy, or "
                      "push to a new empty remote")


@dataclass
class Descriptor:
    """The ``mem-remote`` file: ``format``, ``encryption`` (``age-x25519``
    or ``none``) and ``recipient`` (``age1…``, "" when not encrypted)."""

    format: int
    encryption: str
    recipient: str

    def encode(self) -> bytes:
        """Canonical CBOR of the map ``{"format", "encryption", "recipient"}``."""
        return cbor2.dumps({"format": self.format, "encryption": self.encryption,
                            "recipient": self.recipient}, canonical=True)

    @classmethod
    def decode(cls, data: bytes) -> Descriptor:
        """Raises UnsupportedVersion (a newer format), CorruptObject."""
        try:
            m = cbor2.loads(data)
            fmt = m["format"]
        except Exception:
            raise CorruptObject("the remote's mem-remote file is not a mem remote descriptor", hint=REMOTE_DAMAGE_HINT) from None
        if type(fmt) is not int or fmt != REMOTE_FORMAT:
            raise UnsupportedVersion(f"the remote has format {fmt!r}; this mem knows remote format {REMOTE_FORMAT}",
                                     hint="upgrade mem on this machine")
        enc, rcp = m.get("encryption"), m.get("recipient", "")
        if enc not in ("age-x25519", "none") or not isinstance(rcp, str):
            raise CorruptObject("the remote's mem-remote file has an unknown encryption", hint=REMOTE_DAMAGE_HINT)
        return cls(fmt, enc, rcp)


@dataclass
class Snapshot:
    """A dated copy of the refs (``mem backup``); ``sealed``: the sealed
    keys the store held then, none of them in the copy (None: a snapshot
    from before session 39, which did not record it)."""

    name: str
    time: int
    refs: dict[str, str]
    sealed: int | None = None


def _count(v: object) -> int | None:
    """A snapshot's ``sealed`` (absent: None); raises ValueError unless a uint."""
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise ValueError("sealed")
    return v


@dataclass
class Manifest:
    """The remote's state (``manifest``).

    Attributes:
        seq: incremented by every write (a manifest is never older than one
            it replaced).
        time: ms of the write.
        refs: ref name (``facts/…``, ``sessions/…``, ``tombstones/…``,
            ``queue/…``) -> id (64 hex).
        packs: names of the pack bundles that hold every object the refs
            and snapshots reach.
        done: queue item ids decided (accepted or rejected) somewhere.
        garbage: pack names replaced by a rewrite, deleted after the
            manifest that drops them is written (a crash in between leaves
            them here for the next push).
        snapshots: the backups.
    """

    seq: int = 0
    time: int = 0
    refs: dict[str, str] = field(default_factory=dict)
    packs: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    garbage: list[str] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)

    def encode(self) -> bytes:
        """Canonical CBOR (see docs/format.md); ids as 32-byte strings."""
        return cbor2.dumps({
            "format": REMOTE_FORMAT, "seq": self.seq, "time": self.time,
            "refs": {k: bytes.fromhex(v) for k, v in self.refs.items()},
            "packs": sorted(self.packs), "done": sorted(self.done), "garbage": sorted(self.garbage),
            "snapshots": [{"name": s.name, "time": s.time,
                           "refs": {k: bytes.fromhex(v) for k, v in s.refs.items()},
                           **({} if s.sealed is None else {"sealed": s.sealed})}
                          for s in sorted(self.snapshots, key=lambda s: s.name)],
        }, canonical=True)

    @classmethod
    def decode(cls, data: bytes) -> Manifest:
        """Raises UnsupportedVersion, CorruptObject."""
        try:
            m = cbor2.loads(data)
            fmt = m["format"]
        except Exception:
            raise CorruptObject("the remote manifest cannot be decoded", hint=REMOTE_DAMAGE_HINT) from None
        if fmt != REMOTE_FORMAT:
            raise UnsupportedVersion(f"the remote manifest has format {fmt!r}", hint="upgrade mem on this machine")
        try:
            return cls(seq=int(m["seq"]), time=int(m["time"]),
                       refs={k: v.hex() for k, v in m["refs"].items()},
                       packs=list(m["packs"]), done=list(m["done"]), garbage=list(m["garbage"]),
                       snapshots=[Snapshot(s["name"], int(s["time"]), {k: v.hex() for k, v in s["refs"].items()},
                                           _count(s.get("sealed")))
                                  for s in m["snapshots"]])
        except Exception:
            raise CorruptObject("the remote manifest is malformed", hint=REMOTE_DAMAGE_HINT) from None


def bundle(pack: bytes, idx: bytes) -> bytes:
    """A pack bundle: ``MRPK``, u32 version 1, u64 pack length, the pack, its index."""
    return BUNDLE_MAGIC + struct.pack(">IQ", 1, len(pack)) + pack + idx


def unbundle(data: bytes) -> tuple[bytes, bytes]:
    """``(pack, idx)`` of a bundle.  Raises CorruptObject, UnsupportedVersion."""
    if len(data) < 16 or data[:4] != BUNDLE_MAGIC:
        raise CorruptObject("a remote pack is not a pack bundle", hint=REMOTE_DAMAGE_HINT)
    ver, n = struct.unpack(">IQ", data[4:16])
    if ver != 1:
        raise UnsupportedVersion(f"remote pack bundle version {ver}", hint="upgrade mem on this machine")
    if 16 + n > len(data):
        raise CorruptObject("a remote pack bundle is truncated", hint=REMOTE_DAMAGE_HINT)
    return data[16:16 + n], data[16 + n:]


def content_name(stored: bytes) -> str:
    """The name of a stored pack: blake3 hex of its stored bytes."""
    return blake3.blake3(stored).hexdigest()


class Sealer:
    """Seals and opens what goes to a remote.

    Args:
        recipient: ``age1…`` to encrypt to, or None (``--no-encrypt``).
        identity: ``AGE-SECRET-KEY-1…`` to decrypt with (None: cannot read an
            encrypted remote).
    """

    def __init__(self, recipient: str | None, identity: str | None) -> None:
        self.recipient, self.identity = recipient, identity

    def seal(self, data: bytes) -> bytes:
        """The stored form of ``data``."""
        if self.recipient is None:
            return data
        from objstore.vault import age  # deferred: imports cryptography
        return age.encrypt(data, [self.recipient])

    def open(self, stored: bytes, what: str) -> bytes:
        """The plaintext of a stored blob.  Raises WrongKey (the sync key
        is not the one :attr:`recipient` names), CorruptObject (damaged: it
        does not open with the key :attr:`recipient` names, or its header
        MAC or a payload chunk fails)."""
        if self.recipient is None:
            return stored
        from objstore.vault import age  # deferred: imports cryptography
        if not self.identity:
            raise WrongKey("the remote is encrypted and this store has no sync key",
                           hint="mem remote add NAME URL --key FILE (the key from 'mem remote key export')")
        try:
            return age.decrypt(stored, [self.identity])
        except age.NoIdentityMatched:
            if age.recipient_of(self.identity) == self.recipient:
                # the key check: the descriptor names the public key of the key this store holds, and the
                # remote seals everything to that recipient alone, so the key is right and the stanza that
                # wraps the file key (its share or its wrapped key) was damaged (test16b B2)
                raise CorruptObject(f"the remote's {what} is damaged: it does not open with the sync key "
                                    "whose public key the remote's descriptor names",
                                    hint=REMOTE_DAMAGE_HINT) from None
            raise WrongKey(f"the sync key does not open the remote's {what}",
                           hint="use the key of the store that created the remote (mem remote key export)") from None
        except age.AgeError as e:
            raise CorruptObject(f"the remote's {what} is damaged: {e}", hint=REMOTE_DAMAGE_HINT) from None


def check_identity(identity: str | bytes) -> str:
    """Validate a sync key (an ``AGE-SECRET-KEY-1…`` line or an age-keygen
    file's text, or its bytes) and return the identity.  Raises InvalidInput
    (its message never holds the key: e.g. "not a sync key: identity file
    is not UTF-8 text")."""
    from objstore.vault import age  # deferred: imports cryptography
    try:
        ids = age.parse_identity_file(identity)
    except age.AgeError as e:
        raise InvalidInput(f"not a sync key: {e}") from None
    if not ids[0].startswith("AGE-SECRET-KEY-1"):
        raise InvalidInput("the sync key must be an X25519 age identity (AGE-SECRET-KEY-1…)")
    return ids[0]
