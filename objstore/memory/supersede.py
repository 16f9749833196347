"""The supersession rule: which version of a key is current (split from
``objstore.memory.facts``, which writes and walks the versions).

The current version is the one with the greatest ``valid_from`` (ties: the
higher version) among those due (``validity.ranked_due``), so a backfill (a
write whose ``valid_from`` is older than an existing version's) enters the
history without displacing the newer value and a version scheduled ahead
waits for its time.  No score or model ever decides it (``docs/design.md``).
"""

from __future__ import annotations

from objstore.core.objects import Fact
from objstore.core.record import Frozen, set_fields
from objstore.core.store import now_ms
from objstore.memory.lost import lost_current
from objstore.memory.validity import clamped_valid_from, ranked_due, schedule_marks


class Version(Frozen):
    """A fact version with its id."""

    __slots__ = ("id", "fact")

    def __init__(self, id: str, fact: Fact) -> None:
        set_fields(self, id, fact)


def weighed(chain: list[Version], reader: str | None) -> list[Version]:
    """The versions of ``chain`` the supersession rule weighs for ``reader``:
    not forgotten, and of the least namespace rank among those it may read."""
    live = [v for v in chain if not v.fact.forgotten]
    if any(v.fact.namespace for v in live):
        from objstore.memory.scope import namespace_rank   # deferred: namespaced versions only
        ranked = [(r, v) for v in live if (r := namespace_rank(reader, v.fact.namespace)) is not None]
        best = min((r for r, _v in ranked), default=0)
        live = [v for r, v in ranked if r == best]
    return live


def _due(chain: list[Version], as_of: int | None, reader: str | None) -> list[Version]:
    """The versions ``current_of`` weighs that are due, oldest first (its rule's order)."""
    live = weighed(chain, reader)
    if as_of is not None:   # what was recorded by then, read as it was read then
        live = [v for v in live if v.fact.recorded_at <= as_of]
    # a version valid only from a future time is not current yet (a fast clock's write and those
    # chained on it are: validity.due_ids); none due: none current (test32 X2)
    at = now_ms() if as_of is None else as_of
    return [live[i] for i in ranked_due([(v.fact.version, v.fact.valid_from, v.fact.recorded_at, v.fact.trust)
                                         for v in live], at)]


def sibling_disagreement(chain: list[Version], reader: str | None = None) -> list[Version]:
    """The sibling sub-agents' latest versions (``facts.Version``, sorted by
    namespace) that leave ``chain`` (newest first) with no current value for
    ``reader`` (None: the person's view) now, because they disagree
    (:func:`current_of`'s sibling rule, ``scope.sibling_rivals``); [] when
    the key has a current value or has none for another reason (every
    version forgotten, scheduled ahead, or its value lost).  What a command
    that would otherwise pick one of them names instead (test35 T12).
    Pure but for the clock; never raises."""
    cands = _due(chain, None, reader)
    best = cands[-1] if cands else None
    if best is None or not best.fact.namespace:
        return []
    from objstore.memory.scope import namespace_root, sibling_rivals   # deferred, as in weighed
    rivals = set(sibling_rivals(best, cands))
    if not rivals:
        return []
    latest = {v.fact.namespace: v for v in cands if namespace_root(v.fact.namespace or "") ==
              namespace_root(best.fact.namespace)}
    return [latest[ns] for ns in sorted(rivals | {best.fact.namespace})]


def current_of(chain: list[Version], as_of: int | None = None, reader: str | None = None) -> Version | None:
    """The current version of a chain (the rule in the module doc).

    With ``as_of`` (ms): only versions recorded and valid at that time count.
    A forgotten version (body removed by ``mem forget``) is never current.
    Namespaces (``objstore.memory.scope.namespace_rank``): only versions the
    namespace ``reader`` may read count (None: the person's view, every
    namespace), and among them those of the least rank, so that a newer
    value a descendant (a sub-agent) wrote never displaces the reader's own
    or its ancestors'; sibling sub-agents that disagree give none
    (``scope.sibling_rivals``).  Returns None when no version qualifies.
    """
    cands = _due(chain, as_of, reader)
    if not cands:
        return None
    best = cands[-1]
    if best.fact.namespace:   # disagreeing siblings: none (test32 X5)
        from objstore.memory.scope import sibling_rivals   # deferred, as in weighed
        if sibling_rivals(best, cands):
            return None
    if lost_current(chain, best, as_of) is not None:
        return None   # the current value was lost to damage: an older one is not served in its place
    return best


def successor_of(chain: list[Version], oid: str) -> Version | None:
    """The version that superseded version ``oid`` of ``chain`` (newest
    first, as :func:`versions` gives it): the next one in the order of
    :func:`current_of`'s rule (``valid_from``, then version number) among the
    versions that rule weighs for the person's view (not forgotten, least
    namespace rank), that is already valid.  ``v1 -> v2 -> v3`` gives v2
    for v1 (v3 is current); a backfill (an older ``valid_from`` written
    later) is superseded by the version valid after it.  None when nothing
    superseded ``oid`` (it is current, forgotten, not valid yet, or not in
    ``chain``)."""
    live = weighed(chain, None)
    me = next((v for v in live if v.id == oid), None)
    if me is None:
        return None
    now = now_ms()
    vf = _valid_from(live)
    order = (vf[me.id], me.fact.version)
    later = [v for v in live if (vf[v.id], v.fact.version) > order and vf[v.id] <= now]
    return min(later, key=lambda v: (vf[v.id], v.fact.version), default=None)


def _valid_from(live: list[Version]) -> dict[str, int]:
    """Version id -> the ``valid_from`` the rule reads
    (``validity.clamped_valid_from``: a fast clock's version never takes
    over from a later write)."""
    return dict(zip((v.id for v in live), clamped_valid_from(
        [(v.fact.version, v.fact.valid_from, v.fact.recorded_at, v.fact.trust) for v in live])))


def log_marks(chain: list[Version], at: int) -> dict[str, tuple[bool, int | None]]:
    """Version id -> ``(due, overruled_by)`` for every version of ``chain``
    at ``at`` (ms), what ``mem log`` marks (``validity.schedule_marks``):
    for the versions the rule weighs in the person's view
    (:func:`weighed`), as :func:`current_of` reads them; for the others (a
    forgotten version, a sub-agent's below its parent's) ``due`` is whether
    its own ``valid_from`` has come and ``overruled_by`` None.  Never
    raises."""
    live = weighed(chain, None)
    marks = schedule_marks([(v.fact.version, v.fact.valid_from, v.fact.recorded_at, v.fact.trust) for v in live], at)
    out = {v.id: (v.fact.valid_from <= at, None) for v in chain}
    out.update(zip((v.id for v in live), marks))
    return out
