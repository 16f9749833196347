"""mem log."""

import click

from ._common import TimeType, complete_key, emit_json, fmt_time, json_option, safe, with_store


def version_json(v, *, current: bool) -> dict:
    """The stable JSON shape of one fact version."""
    f = v.fact
    return {"id": v.id, "key": f.key, "version": f.version, "body": f.body, "kind": f.kind,
            "valid_from": f.valid_from, "recorded_at": f.recorded_at, "trust": f.trust,
            "sensitivity": f.sensitivity, "owner": f.owner, "sources": list(f.sources),
            "pinned": f.pinned, "parent": f.parent, "current": current}


@click.command("log")
@click.argument("key", shell_complete=complete_key)
@click.option("--as-of", type=TimeType(), help="Show only what was recorded by TIME and mark what was current then.")
@json_option
@with_store()
def command(key, as_of, as_json, store):
    """Show every version of KEY, newest first.

    Walks the parent links from the head: nothing is hidden.  The current
    version is marked.  With --as-of, versions recorded after TIME are left
    out and the version current at TIME is marked.

    \b
    Examples:
      mem log project/api/db
      mem log project/api/db --as-of 2026-03-01
      mem log project/api/db --json

    Exit status: 0 ok; 4 no such key (or nothing recorded by --as-of); 10 no store.
    """
    from objstore.errors import NotFound
    from objstore.facts import current_of, versions
    chain = versions(store, key)
    if as_of is not None:
        chain = [v for v in chain if v.fact.recorded_at <= as_of]
        if not chain:
            raise NotFound(f"{key} had no version recorded by {fmt_time(as_of)}")
    cur = current_of(chain, as_of)
    if as_json:
        emit_json([version_json(v, current=cur is not None and v.id == cur.id) for v in chain])
        return
    for v in chain:
        f = v.fact
        mark = "  (current)" if cur is not None and v.id == cur.id else ""
        pin = "  pinned" if f.pinned else ""
        click.echo(click.style(f"v{f.version}  {v.id[:12]}", fg="yellow")
                   + f"  valid {fmt_time(f.valid_from)}  {f.trust}  {f.kind}{pin}{mark}")
        for line in safe(f.body).splitlines() or [""]:
            click.echo(f"    {line}")
