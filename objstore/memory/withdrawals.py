"""A seal's withdrawal records: which plain versions ``mem seal`` withdrew
(split from :mod:`objstore.memory.tombstones`, whose filter reads them).

A withdrawal record is a tombstone of a fact key whose ``value_sha256`` is
a hash of the plain version's metadata (never its value) and whose reason
is :data:`SEAL_WITHDRAW`: docs/format.md, "Seal withdrawal records".
``tombstones.withdraw_plain`` writes them.
"""

from __future__ import annotations

from objstore.core.cborext import cbor2
from objstore.core.ids import hash_bytes
from objstore.core.objects import Fact, Tombstone


#: the ``reason`` of a seal's withdrawal record (:func:`withdrawal_tombstone`)
SEAL_WITHDRAW = "seal-withdraw"
#: the reasons of tombstones that name a version by its metadata, not a digest of a value
#: (``tombdigests.put_tombstone`` writes them as they are: every machine computes them alike)
VERSION_RECORDS = (SEAL_WITHDRAW, "forget-version")
#: the ``reason`` of a forget's version record (:func:`forget_version_tombstone`)
FORGET_VERSION = VERSION_RECORDS[1]
#: the ``sources`` entry of a version ``mem unseal`` restored: ``unsealed:<ms>`` (the unseal's time)
UNSEALED_SOURCE = "unsealed:"


def withdrawal_digest(f: Fact) -> bytes:
    """The 32 bytes a seal's withdrawal record holds for the plain version
    ``f``: BLAKE3 of the canonical CBOR array ``["mem seal-withdraw v1",
    key, version, kind, valid_from, recorded_at, trust, owner,
    sensitivity]`` (docs/format.md, "Tombstone").  Only metadata, never
    the value or anything hashed from it (not the object id, not
    ``parent``, not ``sources``): with the metadata in the clear (a sealed
    version shows it) an id is a hash a four-digit PIN can be guessed from
    in 10,000 tries, this is not."""
    return bytes.fromhex(hash_bytes(cbor2.dumps(["mem seal-withdraw v1", f.key, f.version, f.kind, f.valid_from,
                                                 f.recorded_at, f.trust, f.owner, f.sensitivity], canonical=True)))


def withdrawal_tombstone(f: Fact, time: int) -> Tombstone:
    """The withdrawal record of the plain version ``f`` sealed at ``time``
    (``vault.sealed.seal_key``): a tombstone of ``f.key`` whose
    ``value_sha256`` is :func:`withdrawal_digest` and whose reason is
    :data:`SEAL_WITHDRAW`.  It travels with the other tombstones, so every
    machine's next pull or push empties its plain copy of that version
    (:class:`Withdrawals`).  An older mem reads it as a forget tombstone of
    a value no text hashes to, and ignores it."""
    return Tombstone(key=f.key, value_sha256=withdrawal_digest(f), time=time, reason=SEAL_WITHDRAW)


def forget_version_tombstone(f: Fact, time: int) -> Tombstone:
    """The version record ``mem forget`` writes, beside its keyed value
    tombstone, for the version ``f`` it forgets at ``time``: as a seal's
    withdrawal record (:func:`withdrawal_digest`: metadata only, never the
    value), reason :data:`FORGET_VERSION`.  The value tombstone is keyed
    with a key that never leaves the store (``tombdigests``), so another
    machine cannot match it; this record lets every machine's next pull
    empty its copy of exactly that version (:class:`Withdrawals`), as
    before session 35.  An older mem ignores it (a value no text hashes
    to)."""
    return Tombstone(key=f.key, value_sha256=withdrawal_digest(f), time=time, reason=FORGET_VERSION)


def unsealed_at(f: Fact) -> int:
    """The time (ms) ``mem unseal`` restored ``f`` (its ``unsealed:<ms>``
    source), or 0."""
    best = 0
    for s in f.sources:
        if s.startswith(UNSEALED_SOURCE) and s[len(UNSEALED_SOURCE):].isdigit():
            best = max(best, int(s[len(UNSEALED_SOURCE):]))
    return best


class Withdrawals:
    """Which plain versions a seal withdrew (or a forget forgot: a
    :data:`FORGET_VERSION` record reads alike): **the one rule**, used by
    push/pull (``objstore.remote.merge.ForgetIndex``) and gc
    (:func:`forgotten_check`).  A live version is withdrawn when a
    :data:`VERSION_RECORDS` tombstone of its key holds its
    :func:`withdrawal_digest` and it was not restored by a ``mem unseal``
    made after that seal (:func:`unsealed_at`).  Time: the latest such
    seal, the same on every machine holding the same tombstones."""

    __slots__ = ("seals",)

    def __init__(self) -> None:
        self.seals: dict[tuple[str, bytes], int] = {}

    def add(self, t: Tombstone) -> bool:
        """Record ``t`` when it is a withdrawal record; True if it was."""
        if t.reason not in VERSION_RECORDS:
            return False
        k = (t.key, t.value_sha256)
        self.seals[k] = max(self.seals.get(k, 0), t.time)
        return True

    def when(self, f: Fact) -> int | None:
        """The seal's time when it withdrew the live version ``f``, else None."""
        if not self.seals or f.forgotten or not f.body:
            return None
        t = self.seals.get((f.key, withdrawal_digest(f)))
        return t if t is not None and unsealed_at(f) < t else None

    def __bool__(self) -> bool:
        return bool(self.seals)
