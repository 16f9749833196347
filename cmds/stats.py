"""mem stats."""

import click

from ._common import emit_json, fmt_time, json_option, progress_bar, with_store
from ._out import size


def _table(title, counter):
    click.echo(f"{title}:")
    if not counter:
        click.echo("  (none)")
    for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])):
        click.echo(f"  {v:>8}  {k}")


@click.command("stats")
@json_option
@with_store()
def command(as_json, store):
    """Count what the store holds: objects, facts, sessions, growth.

    Objects and bytes by type (loose and packed), facts by scope, kind,
    trust and state (current, dormant, pinned, sealed, queued; forgotten for
    a key whose every version was forgotten but whose history remains),
    sessions and turns by project and harness, the search index's size, and
    what was written on each of the last 30 days.  Values never appear.

    \b
    Examples:
      mem stats
      mem stats --json

    Exit status: 0 ok; 10 no store.
    """
    from objstore import store_stats
    with progress_bar("counting objects") as update:
        s = store_stats(store, progress=update)
    if as_json:
        emit_json({"objects": dict(s.objects), "loose_objects": s.loose_objects, "loose_bytes": s.loose_bytes,
                   "packs": s.packs, "pack_bytes": s.pack_bytes, "index_bytes": s.index_bytes,
                   "store_bytes": s.store_bytes, "versions": s.versions,
                   "facts_by_scope": dict(s.facts_by_scope), "facts_by_kind": dict(s.facts_by_kind),
                   "facts_by_trust": dict(s.facts_by_trust), "facts_by_state": dict(s.facts_by_state),
                   "sessions_by_project": dict(s.sessions_by_project),
                   "turns_by_project": dict(s.turns_by_project), "turns_by_harness": dict(s.turns_by_harness),
                   "growth": [{"day": d, "facts": f, "turns": t} for d, f, t in s.growth]})
        return
    click.echo(f"store      {size(s.store_bytes)}: objects {size(s.loose_bytes + s.pack_bytes)} "
               f"({s.loose_objects} loose, {s.packs} packs), index {size(s.index_bytes)}")
    _table("objects by type", s.objects)
    click.echo(f"fact versions: {s.versions}")
    _table("facts by scope", s.facts_by_scope)
    _table("facts by kind", s.facts_by_kind)
    _table("facts by trust", s.facts_by_trust)
    _table("facts by state", +s.facts_by_state)
    _table("sessions by project", s.sessions_by_project)
    _table("turns by project", s.turns_by_project)
    _table("turns by harness", s.turns_by_harness)
    click.echo("last 30 days (facts, turns):")
    active = [(d, f, t) for d, f, t in s.growth if f or t]
    if not active:
        click.echo("  (nothing written)")
    for d, f, t in active:
        click.echo(f"  {fmt_time(d)[:10]}  {f:>6}  {t:>7}")
