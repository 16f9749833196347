"""What ``mem forget`` says of its plan and its result: the plan as JSON
(``--dry-run --json`` and the result's ``--json``) and the count of the
tombstones a run wrote."""

from ._common import plural


def plan_json(plan) -> dict:
    """A forget plan (``objstore.memory.forgetplan.ForgetPlan``) as the JSON
    fields ``mem forget --json`` documents: ids, counts, never a value."""
    return {"keys": {k: [v.id for v in vs] for k, vs in plan.keys.items()},
            "versions": [{"key": k, "id": v.id, "version": v.fact.version}
                         for k, vs in plan.versions.items() for v in vs],
            "sessions": {s: len(t) for s, t in plan.sessions.items()},
            "turns": [{"session": s, "id": tv.id, "seq": tv.turn.seq} for s, tvs in plan.turns.items() for tv in tvs],
            "metadata": [{"session": s, "id": tv.id, "seq": tv.turn.seq} for s, tvs in plan.meta.items() for tv in tvs],
            "unreadable": {s: ids for s, ids in plan.unreadable.items()}, "unchecked": list(plan.unchecked),
            "tombstones_renamed": list(plan.retomb), "queue_items": list(plan.queue_items),
            "already_forgotten": ({"name": plan.already_forgotten[0], "time_ms": plan.already_forgotten[1]}
                                  if plan.already_forgotten else None),
            **plan.counts()}


def tombstones_written(r) -> str:
    """"N tombstones written" for a forget result: every tombstone ref the
    run wrote, a forgotten version's record (``r.records``) included, as
    ``mem audit`` and the next push count them (fresh41 F1: "2 written"
    where the audit showed 3)."""
    return f"{plural(len(r.tombstones) + len(getattr(r, 'records', ())), 'tombstone')} written"
