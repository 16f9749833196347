"""Decay, pins and reinforcement: which facts go dormant.

A fact that has not been written, injected or reinforced for ``decay_days``
(store config, default 60) and is not pinned becomes **dormant**: still
searchable (``mem search``, the review shell), never injected into an
agent's context (``objstore.retrieval.context`` asks :func:`is_dormant`, or reads
``Version.fact.dormant``).

Every state change is recorded like any other change, as a new version
(:func:`restate`): the current version's body, kind, trust, owner, sources
and ``valid_from`` are copied; ``pinned`` / ``dormant`` change; ``parent``
is the head and ``version`` the head's + 1.  Copying ``valid_from`` makes
the new version current by the supersession rule's tie-break (equal
``valid_from``: the higher version wins) without claiming that the value
changed.  So pins, dormancy and waking show in ``mem log`` and are undone by
the opposite change (``reinforce`` or ``pin`` wakes a dormant fact; any new
value written by ``remember`` is awake).

Activity that is not a change (an injection, a reinforcement of an awake
fact) is a reflog entry on the key's ref whose old and new ids are the head
(:func:`touch`): ids and a time only, like every reflog line.  The last
activity of a key is the newest of its head's ``recorded_at`` and its
newest reflog entry.

Idle time is counted in **active days of the fact's scope**, not in wall
time (``docs/design.md``, "Decay"): a day counts for ``project/<p>/…``
facts when a session ran in project ``p`` that day, and for ``user/…`` and
``global/…`` facts when any session ran.  So a project you leave for three
months does not come back empty, and one project's sessions never age
another's facts.  Active days are recorded by :func:`record_activity` (the
session-start hook) in ``cache/activity.json``: per scope, the UTC day
numbers (ms // 86,400,000) with a session, newest :data:`KEEP_DAYS` kept;
ids of days only, never text.  Deleting the file only delays decay.
"""

from __future__ import annotations

from collections.abc import Iterable

from objstore.core.errors import IntegrityError, InvalidInput, NotFound
from objstore.core.record import Frozen, Record, set_fields
from objstore.core.refs import fact_ref, refuse_if_credential, validate_key
from objstore.core.store import Store, now_ms
from objstore.memory.served import SEALED_INSTEAD, refuse_if_sealed
from objstore.memory.facts import Version, commit_version, current_of, key_chains, list_keys, own_chain, walk
from objstore.memory.validity import why_no_current
from objstore.core.atomic import atomic_write

DAY_MS = 86_400_000
#: ``mem decay --if-due`` runs at most once per this many ms (the session-start hook uses it)
DUE_EVERY_MS = DAY_MS
STAMP_FILE = "cache/decay-stamp"
ACTIVITY_FILE = "cache/activity.json"
#: active days kept per scope (more than any sensible decay_days)
KEEP_DAYS = 1000
#: the scope key of "any session" (user and global facts)
ANY_SCOPE = "*"


def _load_activity(store: Store) -> dict[str, list[int]]:
    import json
    try:
        doc = json.loads((store.root / ACTIVITY_FILE).read_bytes())
        days = doc.get("days") if isinstance(doc, dict) else None
        if not isinstance(days, dict):
            return {}
        return {k: sorted({int(d) for d in v if isinstance(d, int)}) for k, v in days.items()
                if isinstance(k, str) and isinstance(v, list)}
    except (OSError, ValueError):
        return {}


def record_activity(store: Store, projects: Iterable[str] = (), *, time_ms: int | None = None) -> None:
    """Record that a session ran at ``time_ms`` (default now) in the project
    known by ``projects`` (its aliases; the first is its name; none: a
    session outside any project): that UTC day becomes an active day of the
    project and of :data:`ANY_SCOPE`.  Cheap (one small file, rewritten
    atomically only when the day is new).  Takes the store lock."""
    import json

    day = (now_ms() if time_ms is None else time_ms) // DAY_MS
    scopes = [ANY_SCOPE, *(f"project/{p}" for p in list(projects)[:1] if p)]
    with store.lock("activity"):
        days = _load_activity(store)
        if all(day in days.get(sc, ()) for sc in scopes):
            return
        for sc in scopes:
            ds = days.setdefault(sc, [])
            if day not in ds:
                ds.append(day)
                ds.sort()
                del ds[:-KEEP_DAYS]
        atomic_write(store.root / ACTIVITY_FILE, json.dumps({"v": 1, "days": days}, sort_keys=True).encode(),
                     durable=False)


def _scope_of(key: str) -> str:
    parts = key.split("/", 2)
    return f"project/{parts[1]}" if parts[0] == "project" and len(parts) > 1 else ANY_SCOPE


def active_days_since(activity: dict[str, list[int]], key: str, since_ms: int, now: int) -> int:
    """Active days of ``key``'s scope from the day of ``since_ms`` to the
    day of ``now``, both included (UTC days)."""
    lo, hi = since_ms // DAY_MS, now // DAY_MS
    return sum(1 for d in activity.get(_scope_of(key), ()) if lo <= d <= hi)


def decay_days(store: Store) -> int:
    """The setting ``decay.days`` (``mem config decay.days N``: ``[decay]
    days`` in ``<store>/config.toml``; an older mem's ``decay_days`` in the
    CBOR ``<store>/config`` is still read when the file does not set it),
    default 60 (the settings table, ``objstore.core.settings``).  Raises
    InvalidInput for a value that is not a whole number of days in
    1..36500."""
    from objstore.core.settings import value  # defer: the prompt hook imports this module, never reads decay.days
    return int(value(store.root, "decay.days"))


class StateChange(Frozen):
    """Outcome of :func:`restate`, :func:`pin`, :func:`unpin`, :func:`reinforce`.

    Attributes:
        key: the key.  changed: a new version was written.
        version: the key's current version afterwards.
        previous: the head before (None if unchanged).
        touched: an activity entry was recorded (reinforce of an awake fact).
        index_error: the search index could not be updated (the change stands).
    """

    __slots__ = ("key", "changed", "version", "previous", "touched", "index_error")

    def __init__(self, key: str, changed: bool, version: Version, previous: str | None = None, touched: bool = False,
                 index_error: str | None = None) -> None:
        set_fields(self, key, changed, version, previous, touched, index_error)


def _chain(store: Store, key: str, command: str | None = None) -> tuple[str, list[Version], Version]:
    key = validate_key(key)
    head = store.refs.read(fact_ref(key))
    if head is None:
        refuse_if_credential(key, "key")
        if command in SEALED_INSTEAD:   # a sealed key is one, not "no key" (fresh38 F20)
            refuse_if_sealed(store, key, command)
        raise NotFound(f"no key {key}", hint="list keys with: mem keys")
    if command is not None:   # a writer: its change, or "unchanged", decided on a set-back head loses one (test40 T16)
        store.refuse_set_back(fact_ref(key), head)
    chain = own_chain(key, list(walk(store, head)))
    cur = current_of(chain)
    if cur is None:
        raise NotFound(f"{key} has no current value ({why_no_current([v.fact for v in chain], now_ms())})")
    return head, chain, cur


def is_dormant(store: Store, key: str) -> bool:
    """True when the current version of ``key`` is dormant (never inject it).

    Raises NotFound (no such key), InvalidInput (bad key)."""
    return _chain(store, key)[2].fact.dormant


def restate(store: Store, key: str, *, pinned: bool | None = None, dormant: bool | None = None,
            curated: int | None = None, command: str = "restate") -> StateChange:
    """Write a new version of ``key`` with the current value and a changed
    ``pinned``/``dormant`` state (see the module doc); nothing when the state
    is already so.  Pinning wakes a dormant fact.

    Committed as every fact version (``facts.commit_version``): object,
    journal, ref (compare-and-swap) with its reflog entry, search index.
    Raises NotFound, InvalidInput, StoreLocked, Refused (a sealed key, for
    a ``command`` of ``served.SEALED_INSTEAD``: pin, unpin, promote ...).
    """
    with store.lock(command):
        head, chain, cur = _chain(store, key, command)
        f = cur.fact
        new_pinned = f.pinned if pinned is None else bool(pinned)
        new_dormant = False if new_pinned else (f.dormant if dormant is None else bool(dormant))
        new_curated = f.curated if curated is None else int(curated)
        if (new_pinned, new_dormant, new_curated) == (f.pinned, f.dormant, f.curated):
            return StateChange(f.key, False, cur)
        now = now_ms()
        nf = f.replace(version=chain[0].fact.version + 1, parent=head, recorded_at=now,
                                 pinned=new_pinned, dormant=new_dormant, curated=new_curated)
        oid = store.put(nf)
        new = Version(oid, nf)
        index_error = commit_version(store, f.key, head, oid, old_chain=chain, new_chain=[new, *chain],
                                     command=command, time_ms=now)
        return StateChange(f.key, True, new, head, index_error=index_error)


def pin(store: Store, key: str) -> StateChange:
    """Pin ``key``: always injected, never decays (wakes it if dormant)."""
    return restate(store, key, pinned=True, command="pin")


def unpin(store: Store, key: str) -> StateChange:
    """Unpin ``key`` (it may decay again)."""
    return restate(store, key, pinned=False, command="unpin")


def touch(store: Store, keys: Iterable[str], *, command: str = "inject", time_ms: int | None = None) -> int:
    """Record use of ``keys`` (e.g. they were injected) without a new
    version: one reflog entry per key, old = new = its head.  Unknown keys
    are skipped.  Returns how many were recorded.  Takes the store lock."""
    t = now_ms() if time_ms is None else time_ms
    n = 0
    with store.lock(command):
        for key in keys:
            ref = fact_ref(validate_key(key))
            head = store.refs.read(ref)
            if head is None:
                continue
            try:
                store.touch_ref(ref, head, command, time_ms=t)
            except IntegrityError:   # a set-back ref (or a cut reflog line): not touched (test40 T16)
                if command == "reinforce":
                    raise
                continue
            n += 1
    return n


def reinforce(store: Store, key: str) -> StateChange:
    """Reinforce ``key``: a dormant fact wakes (a new version); an awake one
    records the activity (a reflog entry, :func:`touch`), restarting its
    decay clock."""
    with store.lock("reinforce"):
        _head, _chain_, cur = _chain(store, key, "reinforce")
        if cur.fact.dormant:
            return restate(store, key, dormant=False, command="reinforce")
        touch(store, [cur.fact.key], command="reinforce")
        return StateChange(cur.fact.key, False, cur, touched=True)


def last_active(store: Store, key: str, chain: list[Version] | None = None) -> int:
    """ms since epoch of the last write, injection or reinforcement of ``key``."""
    key = validate_key(key)
    if chain is None:
        chain = list(walk(store, store.refs.read(fact_ref(key))))
    times = [chain[0].fact.recorded_at] if chain else [0]
    log = store.reflog.read(fact_ref(key))
    if log:
        times.append(max(e.time for e in log))
    return max(times)


class DecayCandidate(Frozen):
    """A fact that decay makes dormant: its key, current version, last
    activity (ms) and idle time (active days of its scope since then)."""

    __slots__ = ("key", "version", "last_active", "idle_days")

    def __init__(self, key: str, version: Version, last_active: int, idle_days: int) -> None:
        set_fields(self, key, version, last_active, idle_days)


class DecayReport(Record):
    """What :func:`decay` did (or would do).

    Attributes:
        days: the threshold used.  now: the time it ran as (ms).
        checked: keys looked at.  dormant: the facts made dormant.
        dry_run: nothing was written.  skipped: ``if_due`` and it ran
            less than a day ago (nothing checked).
        index_errors: search index failures (the changes stand).
    """

    __slots__ = ("days", "now", "checked", "dormant", "dry_run", "skipped", "index_errors")

    def __init__(self, days: int, now: int, checked: int = 0, dormant: list[DecayCandidate] | None = None,
                 dry_run: bool = False, skipped: bool = False, index_errors: list[str] | None = None) -> None:
        set_fields(self, days, now, checked, [] if dormant is None else dormant, dry_run, skipped,
                   [] if index_errors is None else index_errors)


def plan_decay(store: Store, *, days: int | None = None, now: int | None = None) -> tuple[int, list[DecayCandidate]]:
    """``(keys checked, candidates)``: current versions that are neither
    pinned nor dormant and whose scope had more than ``days`` active days
    (:func:`record_activity`) after their last activity, up to ``now``.
    Reads only."""
    days = decay_days(store) if days is None else days
    if days < 0:
        raise InvalidInput("days must be >= 0")
    now = now_ms() if now is None else now
    out: list[DecayCandidate] = []
    checked = 0
    activity = _load_activity(store)
    for key, chain in key_chains(store):
        cur = current_of(chain)
        if cur is None:
            continue
        checked += 1
        if cur.fact.pinned or cur.fact.dormant:
            continue
        last = last_active(store, key, chain)
        idle = active_days_since(activity, key, last, now)
        if idle > days:
            out.append(DecayCandidate(key, cur, last, idle))
    return checked, out


def _stamp(store: Store) -> int:
    try:
        return int((store.root / STAMP_FILE).read_text("ascii").strip())
    except (FileNotFoundError, ValueError, UnicodeDecodeError):
        return 0


def decay(store: Store, *, days: int | None = None, now: int | None = None, dry_run: bool = False,
          if_due: bool = False) -> DecayReport:
    """Make idle facts dormant (:func:`plan_decay`, then :func:`restate`).

    Args:
        days: threshold (default: :func:`decay_days`).
        now: evaluate as of this time (ms; default now; tests use it).
        dry_run: report only.
        if_due: do nothing when the last (non-dry) run was less than a day
            before ``now``; the session-start hook runs ``mem decay --if-due``.
    Raises InvalidInput (bad config), StoreLocked.
    """
    days = decay_days(store) if days is None else days
    now = now_ms() if now is None else now
    rep = DecayReport(days, now, dry_run=dry_run)
    if if_due and 0 <= now - _stamp(store) < DUE_EVERY_MS:
        rep.skipped = True
        return rep
    with store.lock("decay"):
        rep.checked, cands = plan_decay(store, days=days, now=now)
        rep.dormant = cands
        if dry_run:
            return rep
        for c in cands:
            r = restate(store, c.key, dormant=True, command="decay")
            if r.index_error:
                rep.index_errors.append(r.index_error)
        atomic_write(store.root / STAMP_FILE, f"{now}\n".encode("ascii"))
    return rep


def dormant(store: Store) -> list[Version]:
    """Current versions that are dormant, by key."""
    out = []
    for _key, chain in key_chains(store):
        cur = current_of(chain)
        if cur is not None and cur.fact.dormant:
            out.append(cur)
    return out
