"""Plain versions of a key sealed here that another machine wrote before the
seal reached it (test27 V3): the pull seals them here and withdraws them
everywhere (``docs/vault.md``, "Other machines").

Why seal and not queue: sealing needs only the vault's public recipient
(no passphrase, no person), the queue would show the value in the clear,
and a withdrawal record (``tombstones.withdrawal_tombstone``) is the rule
every machine already applies to a plain copy of a sealed version: the
writing machine's next pull empties its plain copy, its push never sends it
again, and no plain copy reaches the remote after this store's next push.
The value is kept, sealed, with the metadata it was written with, so the
usual rule (greatest ``valid_from``, ``chains.current_sealed``) picks the
current one.  A version below ``user_stated`` over a ``user_stated`` current
sealed value is not sealed, as ``sealed.remember_sealed`` refuses it here:
it is withdrawn and counted (:attr:`IncomingSeal.refused`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from objstore.core.objects import Fact, Sealed
from objstore.core.refs import sealed_ref
from objstore.core.store import Store, now_ms
from objstore.memory.lost import lost_current
from objstore.memory.tombstones import withdraw_plain
from objstore.vault.chains import SealedVersion, current_sealed, walk_sealed
from objstore.vault.identity import sealing_recipient
from objstore.vault.sealed import encrypt_value


@dataclass
class IncomingSeal:
    """What :func:`seal_incoming` did: ``sealed`` ``(sealed id, version
    number)`` of each version written; ``refused`` how many versions below
    ``user_stated`` were withdrawn without being sealed (a ``user_stated``
    sealed value was current); ``withdrawn`` how many withdrawal records
    were written (both)."""

    key: str
    sealed: list[tuple[str, int]] = field(default_factory=list)
    refused: int = 0
    withdrawn: int = 0


def seal_incoming(store: Store, key: str, facts: list[Fact], command: str = "pull") -> IncomingSeal:
    """Seal the live plain versions ``facts`` of ``key`` (sealed here) that
    came from another machine, then write their withdrawal records.

    Each is encrypted in memory to the vault recipient and appended to
    ``refs/sealed/<key>`` in ``(valid_from, recorded_at, owner, version)``
    order, keeping its kind, times, trust and owner; no plaintext reaches a
    file.  The caller holds the lock and has left out versions a tombstone
    forgets or a seal withdrew (``merge.ForgetIndex.fact_time``), so a rerun
    seals nothing twice.

    Raises:
        NotFound: the store has no vault (nothing written).
    """
    recipient = sealing_recipient(store)
    ref = sealed_ref(key)
    first = head = store.refs.read(ref)
    chain = walk_sealed(store, head, key) if head else []
    out = IncomingSeal(key)
    for f in sorted(facts, key=lambda f: (f.valid_from, f.recorded_at, f.owner, f.version)):
        cur = current_sealed(chain) or lost_current(chain)
        if f.trust != "user_stated" and cur is not None and cur.sealed.trust == "user_stated":
            out.refused += 1
            continue
        s = Sealed(key=key, kind=f.kind, version=(chain[0].sealed.version + 1) if chain else 1, parent=head,
                   valid_from=f.valid_from, recorded_at=f.recorded_at, trust=f.trust, owner=f.owner,
                   age=encrypt_value(recipient, f.body))
        head = store.put(s)
        chain.insert(0, SealedVersion(head, s))
        out.sealed.append((head, s.version))
    if head != first:
        store.update_ref(ref, first, head, f"{command}: sealed a plain value written elsewhere", time_ms=now_ms())
    out.withdrawn = withdraw_plain(store, key, facts)
    return out
