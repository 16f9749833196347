"""A key whose current value was lost to damage (``docs/design.md``,
"Damage and repair"): ``mem fsck --repair`` keeps the place of a lost
version as a *lost stub* (``objects.is_lost_stub``); a stub numbered above
the version the supersession rule picks means the current value is
unknown, and no reader serves the older one as current
(``facts.current_of`` answers None, ``facts.current`` raises)."""

from __future__ import annotations

from objstore.core.objects import is_lost_stub


def lost_current(chain: list, best=None, as_of: int | None = None):
    """The lost stub of ``chain`` (``facts.Version`` objects, newest first)
    that may have held the key's current value (a Version), or None.

    A lost stub (``objects.is_lost_stub``) is the place ``mem fsck
    --repair`` kept for a version it could not recover; its ``valid_from``
    is unknown, so a stub numbered above ``best`` (the version the
    supersession rule picks among the readable ones; None: any stub) may
    have been current, and ``best`` may be a superseded value.  Then
    ``facts.current_of`` answers None (so ``keys``, ``context``, ``recall``,
    the index and the hooks serve nothing for the key) and ``facts.current``
    raises IntegrityError (``mem get`` exits 13) until a newer version is
    written (``mem remember``, ``mem revert``).  With ``as_of`` (ms), only
    a stub recorded by then counts (the repair wrote it after the lost
    version; what was current before the repair is not known).  Returns
    the newest such stub."""
    floor = best.fact.version if best is not None else 0
    return next((v for v in chain if v.fact.version > floor and is_lost_stub(v.fact)
                 and (as_of is None or v.fact.recorded_at <= as_of)), None)

