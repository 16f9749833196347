"""Finish a ``mem seal`` that was stopped between its sealed ref and the
removal of the plain copy (tester finding test24 T1; ``objstore.core.sealstate``).

``seal_key`` notes the seal in ``forget-unfinished`` (kind ``what``, the
key, command ``seal``: ``objstore.core.unfinished``) before it moves
``refs/sealed/<key>``, and its forget deletes the note once the plain copy
is gone.  :func:`finish_stopped_seals` runs at every store opening
(``objstore.memory.opening.open_store``) when that directory holds a note,
so the next command of any kind, a reader included, removes the plain copy
before it reads anything: no reader, export or push serves the plaintext of
a key that is sealed.  A seal stopped before its sealed ref moved changed
nothing a reader sees; its note stays (``mem fsck`` and ``mem doctor`` say
to run ``mem seal KEY`` again, push, backup and export refuse until then).
"""

from __future__ import annotations

from objstore.core.errors import MemError
from objstore.core.objects import Fact, Sealed
from objstore.core.refs import fact_ref, sealed_ref
from objstore.core.sealstate import plain_and_sealed
from objstore.core.store import Store
from objstore.memory import forget
from objstore.memory.sealsources import withhold_source_turns
from objstore.memory.tombstones import withdraw_plain

#: seconds an opening waits for the store lock to finish a stopped seal; given
#: up (a busy writer, a server that opened the store before the seal), readers
#: still leave the key out (``objstore.memory.served.sealed_plain``, test24b U1)
LOCK_WAIT_S = 0.5


def stopped_seals(store: Store) -> list[str]:
    """The keys of the seals noted in ``forget-unfinished`` (one ``listdir``
    when there is none).  Raises OSError."""
    return [s.selector for s in store.unfinished.list() if s.command == "seal" and s.kind == "what"]


def finish_seal(store: Store, key: str) -> bool:
    """Remove the plain copy of ``key`` when its sealed chain holds every
    plain version (same version number and recorded_at): what a stopped
    ``seal_key`` had left to do (its withdrawal records,
    ``memory.sealsources.withhold_source_turns``,
    ``tombstones.withdraw_plain``, then ``forget.forget_key``, reason
    ``seal``, no value tombstone), its note deleted.  Nothing changes when the key has no
    sealed ref (the seal stopped before it; only ``mem seal KEY`` can
    encrypt) or the two chains differ (``mem seal`` refuses that too: the
    person reads both).  Caller holds the store lock.  Returns True when
    the key is no longer plain.  Raises MemError, OSError."""
    shead = store.refs.read(sealed_ref(key))
    if shead is None:
        return False
    head = store.refs.read(fact_ref(key))
    if head is not None:
        sealed = {(s.version, s.recorded_at) for _id, s in store.walk_chain(shead, Sealed, "sealed version")}
        plain = [f for _id, f in store.walk_chain(head, Fact, "fact version") if not f.forgotten]
        if any((f.version, f.recorded_at) not in sealed for f in plain):
            return False
        withhold_source_turns(store, plain)   # the cited prompts holding the value, as seal_key
        withdraw_plain(store, key, plain)   # the records seal_key writes before its forget
        forget.forget_key(store, key, reason="seal", tombstones=False)
    store.unfinished.done("what", key)
    return True


def finish_stopped_seals(store: Store, *, wait: float = LOCK_WAIT_S) -> list[str]:
    """Finish every seal noted as stopped (:func:`finish_seal`), under the
    store lock waited for up to ``wait`` seconds; the keys finished.  Never
    raises: an opening must not fail for it (a read-only store, a busy
    lock: the note stays and the next opening tries again)."""
    try:
        if not stopped_seals(store):
            return []
        with store.lock("seal (finishing a stopped one)", timeout=wait):
            return [k for k in stopped_seals(store) if finish_seal(store, k)]
    except (MemError, OSError):
        return []


def finish_plain_and_sealed(store: Store) -> list[str]:
    """``mem fsck --repair``: finish every key that is both sealed and
    plain (``objstore.core.sealstate.plain_and_sealed``, a seal stopped in
    an older ``mem``, which left no note) and every seal noted as stopped,
    under the store lock (:func:`finish_seal`); the keys finished.  A key
    whose two chains differ is left (``mem fsck`` keeps naming it).
    Raises StoreLocked, MemError, OSError."""
    with store.lock("fsck --repair"):
        keys = sorted({*plain_and_sealed(store), *stopped_seals(store)})
        return [k for k in keys if finish_seal(store, k)]
