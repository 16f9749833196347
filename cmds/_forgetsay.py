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


def settle_match(store, match: str, as_json: bool) -> None:
    """After a ``forget --match``, whatever it found: the notes of stopped
    KEY forgets it finishes (``objstore.settle_key_notes``), and the
    tombstones of sessions forgotten before whose ids hold the text, named
    by their hidden ids now (``objstore.hide_forgotten_ids``: test43 T8),
    said unless ``as_json``.  Raises StoreLocked, OSError."""
    import click

    from objstore import hide_forgotten_ids, settle_key_notes
    settle_key_notes(store, match)
    if (n := hide_forgotten_ids(store)) and not as_json:
        click.echo(f"named {plural(n, 'tombstone')} of forgotten sessions by their hidden ids (their ids held it)")
