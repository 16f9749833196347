"""Sealed version chains: walking them and picking their versions, from
metadata only (no passphrase, no decryption; split from
``objstore.vault.sealed``, which writes them).

The versions of a sealed key chain by ``parent`` under ``refs/sealed/<key>``
(``objects.Sealed``); the current one follows the supersession rule of
``facts`` and is never an older value when the current one was lost to
damage (``lost.lost_current``).
"""

from __future__ import annotations

from dataclasses import dataclass

from objstore.core.errors import IntegrityError, NotFound
from objstore.core.objects import Sealed, forgotten_stub_time, is_lost_stub
from objstore.core.refs import sealed_ref, validate_key
from objstore.core.store import Store, now_ms
from objstore.memory.lost import lost_current, lost_message
from objstore.memory.validity import ranked_due, schedule_marks, why_no_current


@dataclass(frozen=True, slots=True)
class SealedVersion:
    """A sealed version with its id."""

    id: str
    sealed: Sealed


@dataclass(frozen=True, slots=True)
class SealedKey:
    """One sealed key for listings: ``head`` id, number of ``versions`` and
    the ``current`` version (supersession rule of ``facts``; None when it
    was lost to damage, :func:`current_sealed`)."""

    key: str
    head: str
    versions: int
    current: SealedVersion | None


def walk_sealed(store: Store, oid: str | None, key: str | None = None) -> list[SealedVersion]:
    """Sealed versions from ``oid`` back along ``parent`` links, newest first.
    Raises IntegrityError when a linked object is missing, and when ``key``
    is given and ``oid`` is a version of another key (``refs/sealed/<key>``
    naming another key's version: never read or written on as ``key``'s,
    test31b V8, as ``facts.own_chain`` for plain keys)."""
    chain = [SealedVersion(sid, s) for sid, s in store.walk_chain(oid, Sealed, "sealed version")]
    other = next((v.sealed.key for v in chain if v.sealed.key != key), None) if key is not None else None
    if other is not None:   # (or a history reaching one: a write an older mem made on top of such a ref)
        raise IntegrityError(f"refs/sealed/{key} names a version of another key ({other})"
                             if chain[0].sealed.key != key
                             else f"refs/sealed/{key}: its history reaches a version of another key ({other})",
                             hint="run: mem fsck --repair")
    return chain


def sealed_versions(store: Store, key: str) -> list[SealedVersion]:
    """Every sealed version of ``key``, newest first.  Raises NotFound
    (``key`` is not sealed), InvalidInput."""
    key = validate_key(key)
    head = store.refs.read(sealed_ref(key))
    if head is None:
        raise NotFound(f"no sealed key {key}", hint="list them with: mem sealed list")
    return walk_sealed(store, head, key)


def current_sealed(chain: list[SealedVersion], as_of: int | None = None) -> SealedVersion | None:
    """The current version of a sealed chain by the rule of plain facts
    (``supersede.current_of``, ``validity.ranked_due``): among the versions
    due at ``as_of`` (ms; None: now), the greatest ``valid_from`` (ties: the
    higher version; a fast clock's version read as
    ``validity.clamped_valid_from`` reads it); with ``as_of``, among the
    versions recorded by then.  A version scheduled ahead is not current
    before its time (test32 X2 for sealed keys): the earlier one stays
    current until then.  None when no version qualifies (every one
    scheduled ahead: :func:`why_no_sealed`) or the current value was lost to
    damage (a lost stub of ``mem fsck --repair`` numbered above that
    version, ``lost.lost_current``: the older value is never served as
    current)."""
    live = [v for v in chain if not is_empty_place(v.sealed) and (as_of is None or v.sealed.recorded_at <= as_of)]
    order = ranked_due([(v.sealed.version, v.sealed.valid_from, v.sealed.recorded_at, v.sealed.trust)
                        for v in live], now_ms() if as_of is None else as_of)
    best = live[order[-1]] if order else None
    if best is None or lost_current(chain, best, as_of) is not None:
        return None
    return best


def why_no_sealed(chain: list[SealedVersion], now: int) -> str:
    """Why a sealed chain has no current value at ``now`` (ms) when it was
    not lost to damage: ``validity.why_no_current`` of its versions that
    hold a value (every one forgotten, or all scheduled ahead, the earliest
    named with its UTC time), as ``mem get`` says of a plain key.  Never
    raises."""
    return why_no_current([v.sealed for v in chain if not is_empty_place(v.sealed)], now)


def sealed_marks(chain: list[SealedVersion], at: int) -> dict[str, tuple[bool, int | None]]:
    """Version id -> ``(due, overruled_by)`` at ``at`` (ms) for every
    version of a sealed chain, as ``supersede.log_marks`` for a plain one
    (``validity.schedule_marks`` over the versions that hold a value; a
    lost or forgotten place: due when its ``valid_from`` has come, never
    overruled).  Never raises."""
    live = [v for v in chain if not is_empty_place(v.sealed)]
    marks = schedule_marks([(v.sealed.version, v.sealed.valid_from, v.sealed.recorded_at, v.sealed.trust)
                            for v in live], at)
    out = {v.id: (v.sealed.valid_from <= at, None) for v in chain}
    out.update(zip((v.id for v in live), marks))
    return out


def lost_sealed_message(key: str, chain: list[SealedVersion], as_of: int | None = None) -> str | None:
    """What a reader says when ``key``'s current sealed value (at ``as_of``,
    ms) was lost (``lost.lost_message``: the lost version and the newest
    readable one), or None when it was not."""
    lost = lost_current(chain, None, as_of) if current_sealed(chain, as_of) is None else None
    if lost is None:
        return None
    older = current_sealed([v for v in chain if v.sealed.version < lost.sealed.version])
    return lost_message(key, lost.sealed.version, older.sealed.version if older is not None else None)


def pick_version(chain: list[SealedVersion], version: int | None) -> SealedVersion:
    """Version number ``version`` of a chain, or the current one (None).
    Raises NotFound (no such version; no current one: every version
    scheduled ahead or forgotten, :func:`why_no_sealed`; exit 4);
    IntegrityError when the current value was lost to damage
    (:func:`lost_sealed_message`; exit 13)."""
    if version is None:
        cur = current_sealed(chain)
        if cur is None:
            key = chain[0].sealed.key
            lost = lost_sealed_message(key, chain)
            if lost is None:   # not lost: none due yet (or all forgotten), as facts.current says of a plain key
                raise NotFound(f"{key} has no current value ({why_no_sealed(chain, now_ms())})",
                               hint=f"see its versions with: mem log {key}")
            raise IntegrityError(lost,
                                 hint=f"'mem sealed show {key} --version N' reads an older version; 'mem remember "
                                      f"{key} VALUE --sensitivity secret' (or 'mem sealed import') sets a new one")
        return cur
    for sv in chain:
        if sv.sealed.version == version:
            return sv
    raise NotFound(f"{chain[0].sealed.key} has no sealed version {version}")


def list_sealed(store: Store, prefix: str = "") -> list[SealedKey]:
    """Every sealed key (sorted), optionally under ``prefix`` (as
    ``facts.list_keys``).  Reads metadata only: no passphrase."""
    want = prefix if (not prefix or prefix.endswith("/")) else prefix + "/"
    out = []
    for name, head in store.refs.iter("sealed"):
        key = name[len("sealed/"):]
        if prefix and key != prefix and not key.startswith(want):
            continue
        try:
            chain = walk_sealed(store, head, key)
        except IntegrityError as e:   # a damaged ref: skipped and noted, as a listing of plain keys does
            store.damaged.setdefault(f"ref {name}", str(e))
            continue
        out.append(SealedKey(key, head, len(chain), current_sealed(chain)))  # type: ignore[arg-type]
    return out


def is_empty_place(s: Sealed) -> bool:
    """True for a sealed version that holds no value: a lost stub
    (``objects.is_lost_stub``) or a forgotten stub
    (``objects.forgotten_sealed_age``)."""
    return is_lost_stub(s) or forgotten_stub_time(s) is not None
