"""Versions scheduled ahead (``--valid-from`` later than their recording):
which one will take over from a value just written, so that the writer is
told (test32 X15).  Whether it takes over is the supersession rule's
(``facts.current_of``, ``validity.clamped_valid_from``: a lower-trust
version scheduled before a higher-trust write never does); this module
only asks that rule at each scheduled time.
"""

from __future__ import annotations

import time

from objstore.core.store import Store, now_ms
from objstore.memory.facts import Version, current_of, versions


def pending_takeover(store: Store, key: str, oid: str, now: int | None = None) -> Version | None:
    """The version of ``key`` that is scheduled ahead (valid from after
    ``now``, ms; default the clock) and will be current, in the person's
    view, at its time although version ``oid`` is current until then: the
    earliest such one, or None (nothing scheduled takes over from ``oid``).
    Raises NotFound (no such key), InvalidInput (a bad key),
    IntegrityError (a broken history)."""
    now = now_ms() if now is None else now
    chain = versions(store, key)
    for v in sorted((v for v in chain if v.fact.valid_from > now and v.id != oid and not v.fact.forgotten),
                    key=lambda v: (v.fact.valid_from, v.fact.version)):
        cur = current_of(chain, as_of=v.fact.valid_from)
        if cur is not None and cur.id == v.id:
            return v
    return None


def takeover_note(store: Store, key: str, oid: str) -> str | None:
    """What a writer is told when the value it just wrote (version ``oid``
    of ``key``) will lose to a version scheduled ahead
    (:func:`pending_takeover`): that version, its trust and UTC time, or
    None.  Never raises for a key just written (the errors of
    :func:`pending_takeover` otherwise)."""
    v = pending_takeover(store, key, oid)
    if v is None:
        return None
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(v.fact.valid_from / 1000))
    return (f"note: v{v.fact.version} ({v.fact.trust}, {v.id[:12]}) is scheduled from {when} and takes over "
            f"from this value then; see mem log {key}")
