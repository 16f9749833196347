"""A key whose current value was lost to damage (``docs/design.md``,
"Damage and repair"): ``mem fsck --repair`` keeps the place of a lost
version as a *lost stub* (``objects.is_lost_stub``); a stub numbered above
the version the supersession rule picks means the current value is
unknown, and no reader serves the older one as current
(``facts.current_of`` answers None, ``facts.current`` raises)."""

from __future__ import annotations

from objstore.core.objects import is_lost_stub


def _obj(v):
    """The object of a chain entry: a ``facts.Version``'s fact, a
    ``chains.SealedVersion``'s sealed version."""
    return v.fact if hasattr(v, "fact") else v.sealed


def lost_current(chain: list, best=None, as_of: int | None = None):
    """The lost stub of ``chain`` (``facts.Version`` or
    ``chains.SealedVersion`` objects, newest first) that may have held the
    key's current value (an entry of ``chain``), or None.

    A lost stub (``objects.is_lost_stub``) is the place ``mem fsck
    --repair`` kept for a version it could not recover; its ``valid_from``
    is unknown, so a stub numbered above ``best`` (the version the
    supersession rule picks among the readable ones; None: any stub) may
    have been current, and ``best`` may be a superseded value.  Then
    ``facts.current_of`` and ``chains.current_sealed`` answer None (so
    ``keys``, ``context``, ``recall``, the index and the hooks serve nothing
    for the key) and ``facts.current`` and ``chains.pick_version`` raise
    IntegrityError (``mem get``, ``mem sealed show`` exit 13) until a newer
    version is written (``mem remember``, ``mem revert``).  With ``as_of``
    (ms), only a stub recorded by then counts (the repair wrote it after the
    lost version; what was current before the repair is not known).  Returns
    the newest such stub."""
    floor = _obj(best).version if best is not None else 0
    return next((v for v in chain if (o := _obj(v)).version > floor and is_lost_stub(o)
                 and (as_of is None or o.recorded_at <= as_of)), None)


def lost_message(key: str, lost: int, older: int | None) -> str:
    """What every reader says of a key whose current value was lost: the
    lost version's number ``lost`` and the newest readable one's ``older``
    (None: none is left)."""
    return (f"the current value of {key} was lost to damage (v{lost}, kept as a 'lost' placeholder "
            "by mem fsck --repair)" + (f"; v{older} is the newest readable value, not necessarily "
                                       "the current one" if older is not None else ""))


def lost_keys(damaged) -> list[str]:
    """The keys a reader skipped because their current value was lost,
    from ``store.damaged`` (its ``lost facts/<key>`` entries), in the order
    noted."""
    return [k[len("lost facts/"):] for k in damaged if k.startswith("lost facts/")]


def lost_keys_warning(keys: list[str]) -> str | None:
    """The one warning every front end gives for ``keys`` (:func:`lost_keys`)
    that a read skipped: the CLI on stderr (``keys``, ``search``,
    ``recall``, ``context``), the prompt hook in the context it injects, the
    MCP ``recall`` tool in its result (``warning``).  None for no key."""
    if not keys:
        return None
    n = len(keys)
    return (f"{n} key{'' if n == 1 else 's'} whose current value was lost to damage skipped "
            f"({keys[0]}{', …' if n > 1 else ''}); 'mem get KEY' says which versions are left")
