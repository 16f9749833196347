"""When a new version of a key becomes valid: the ``valid_from`` of a plain
write (one with no explicit time), shared by plain facts
(``objstore.memory.facts.remember``) and sealed ones
(``objstore.vault.sealed``).

The supersession rule (``docs/design.md``) makes the version with the
greatest ``valid_from`` current.  A plain write is "valid from now", but
"now" is the writing machine's clock: a version written on a machine whose
clock runs minutes ahead (or before this one's clock stepped back) would
outrank a newer write made on top of it until its time came due, and then
undo it.  So a plain write is valid from now or 1 ms after the latest
version it supersedes, whichever is later.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timezone

from objstore.core.objects import TRUST_LEVELS

_TRUST_RANK = {t: r for r, t in enumerate(TRUST_LEVELS)}   # 0: user_stated, the highest

#: A version recorded more than this (ms) after a later version of its key
#: was recorded came from a clock that ran ahead by more than clocks drift
#: (a VM after suspend, a dead CMOS battery: test28 Y12): the later write
#: does not wait for it (:func:`plain_valid_from`) and it never takes over
#: from that write (:func:`clamped_valid_from`).  One hour, as turns stamped
#: in the future (``objstore.retrieval.timeitems.FUTURE_SLACK_MS``).
SKEW_SLACK_MS = 3_600_000


def clamped_valid_from(items: Sequence[tuple[int, int, int, str]]) -> list[int]:
    """The ``valid_from`` the supersession rule reads for each version of one
    key: ``items`` are ``(version, valid_from, recorded_at, trust)`` (ms;
    ``trust`` one of ``objects.TRUST_LEVELS``), in any order; returns one
    time per item, in that order.  A version scheduled ahead
    (``valid_from`` after its ``recorded_at``) is overruled by a
    higher-numbered version of higher trust (the person's write after an
    agent's scheduled one, test32 X15): it is read as valid from no later
    than that version's ``valid_from``, so it never takes over from it (the
    tie goes to the higher version).  A version recorded
    more than :data:`SKEW_SLACK_MS` after a higher-numbered version of the
    key was recorded (that write came after it, so its clock was ahead) is
    read as valid from no later than that earliest such recording; every
    other version keeps its own ``valid_from``.  A version scheduled for a
    later time on a right clock (``--valid-from`` ahead, ``recorded_at``
    now) is untouched.  Pure, the same on every machine (object fields
    only); O(n log n)."""
    return _clamp(items)[0]


def schedule_marks(items: Sequence[tuple[int, int, int, str]], at: int) -> list[tuple[bool, int | None]]:
    """What ``mem log`` marks of each version of one key at ``at`` (ms):
    ``items`` as for :func:`clamped_valid_from`; one ``(due,
    overruled_by)`` per item, in that order.  ``due``: the rule counts it at
    ``at`` (:func:`due_ids` on the clamped times; False: scheduled ahead, not
    valid yet).  ``overruled_by``: the version number of the higher-numbered,
    higher-trust version that overrules it (scheduled ahead, it never takes
    over from that later write, test32 X15), or None.  Pure; O(n log n)."""
    vf, by = _clamp(items)
    due = due_ids([(i, vf[i], items[i][2]) for i in range(len(items))], at)
    return [(i in due, by[i]) for i in range(len(items))]


def _clamp(items: Sequence[tuple[int, int, int, str]]) -> tuple[list[int], list[int | None]]:
    """:func:`clamped_valid_from` and the ``overruled_by`` of
    :func:`schedule_marks` in one pass."""
    order = sorted(range(len(items)), key=lambda i: -items[i][0])
    out = [0] * len(items)
    by: list[int | None] = [None] * len(items)
    later: int | None = None   # the earliest recorded_at of the versions numbered above the group at hand
    cap: dict[int, tuple[int, int]] = {}   # trust rank -> (least valid_from, its version) of the versions above
    k = 0
    while k < len(order):
        group = [order[k]]
        while k + len(group) < len(order) and items[order[k + len(group)]][0] == items[order[k]][0]:
            group.append(order[k + len(group)])
        for i in group:
            _n, vf, rec, trust = items[i]
            over = min((c for r, c in cap.items() if r < _TRUST_RANK.get(trust, len(_TRUST_RANK))), default=None)
            if vf > rec and over is not None and over[0] <= vf:   # scheduled ahead, overruled by a higher trust
                vf, by[i] = over
            out[i] = min(vf, later) if later is not None and rec > later + SKEW_SLACK_MS else vf
        for i in group:
            r = _TRUST_RANK.get(items[i][3], len(_TRUST_RANK))
            cap[r] = min(cap.get(r, (items[i][1], items[i][0])), (items[i][1], items[i][0]))
        low = min(items[i][2] for i in group)
        later = low if later is None else min(later, low)
        k += len(group)
    return out, by


def due_ids(items: Sequence[tuple[str, int, int]], at: int) -> set[str]:
    """Which versions of one key are due at ``at`` (ms): ``items`` are
    ``(id, valid_from as read, recorded_at)``.  Due: valid by ``at``; a
    plain write whose own clock said its time had come (``valid_from <=
    recorded_at``, recorded after ``at``: a machine's clock ahead of this
    one's, by less than :data:`SKEW_SLACK_MS`, which the clamp leaves as it
    is); and a write chained 1 ms after a due one (:func:`plain_valid_from`
    on top of such a version), itself or in a row.  A version scheduled
    ahead on purpose (``--valid-from`` after its recording, not 1 ms after
    another) waits for its time.  So a write on top of a fast clock's
    version is current at once, and the oldest value never comes back
    meanwhile (test29 P10: a clock 40 minutes fast made v1 current while
    v2 and v3 waited).  Pure; O(n log n)."""
    due = {i for i, vf, rec in items if vf <= at or (vf <= rec and rec > at)}
    waiting = sorted((vf, i) for i, vf, _rec in items if i not in due)
    if waiting:
        times = {vf for i, vf, _rec in items if i in due}
        for vf, i in waiting:   # by valid_from: a chain of +1 ms writes is taken in one pass
            if vf - 1 in times:
                due.add(i)
                times.add(vf)
    return due


def ranked_due(items: Sequence[tuple[int, int, int, str]], at: int) -> list[int]:
    """The versions of one key that may be current at ``at`` (ms), in the
    supersession rule's order: ``items`` are ``(version, valid_from,
    recorded_at, trust)`` as for :func:`clamped_valid_from`; returns the
    indices into ``items`` of the versions due at ``at`` (:func:`due_ids`
    on the clamped times), sorted by (clamped ``valid_from``, version)
    ascending: the last one is current (empty: none is, every version is
    scheduled ahead).  The one rule of plain facts
    (``supersede.current_of``) and sealed ones (``chains.current_sealed``).
    Pure; O(n log n)."""
    vf = clamped_valid_from(items)
    due = due_ids([(i, vf[i], items[i][2]) for i in range(len(items))], at)
    return sorted(due, key=lambda i: (vf[i], items[i][0]))


def plain_valid_from(times: Iterable[tuple[int, int]], now: int) -> int:
    """The ``valid_from`` (ms since epoch) of a plain write made at ``now``
    (ms) on top of versions whose ``(valid_from, recorded_at)`` are
    ``times``: ``now``, or 1 ms after the greatest ``valid_from`` among the
    versions that are valid by ``now`` or were written valid from their own
    recording time (plain writes and backfills, ``valid_from <=
    recorded_at``, whatever the clocks of the machines that wrote them), if
    that is later.  A version scheduled with an explicit later
    ``valid_from`` (after its ``recorded_at`` and after ``now``) is not
    counted: it still takes over when it comes due.  Nor is a version
    recorded more than :data:`SKEW_SLACK_MS` after ``now`` (its clock ran
    ahead by hours: the write made now is current at once, and
    :func:`clamped_valid_from` keeps that version from taking over later;
    test28 Y12).  Never raises."""
    top = max((vf for vf, rec in times if (vf <= now or vf <= rec) and rec <= now + SKEW_SLACK_MS),
              default=now - 1)
    return max(now, top + 1)


def why_no_current(facts: Sequence, now: int) -> str:
    """Why a key whose versions are ``facts`` (``Fact`` objects:
    ``version``, ``valid_from`` ms, ``forgotten``, ``namespace``) has no
    current value at ``now`` (ms), for a reader's message: every version was
    forgotten; sibling sub-agents' values disagree (test32 X5: some live
    version is valid); or its live versions are all scheduled ahead (the
    earliest one named with its UTC time, test32 X2).  Never raises."""
    live = [f for f in facts if not getattr(f, "forgotten", 0)]
    if not live:
        return "every version was forgotten"
    if any(f.valid_from <= now for f in live):
        names = sorted({f.namespace for f in live if getattr(f, "namespace", "")})
        return f"sub-agents disagree: {', '.join(names)}; none is their session's value"
    first = min(live, key=lambda f: (f.valid_from, f.version))
    when = datetime.fromtimestamp(first.valid_from / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"not valid yet: v{first.version} is scheduled, valid from {when}"
