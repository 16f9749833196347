"""mem blame."""

import click

from ._common import complete_key, emit_json, fmt_time, json_option, safe, with_store


@click.command("blame")
@click.argument("key", shell_complete=complete_key)
@json_option
@with_store()
def command(key, as_json, store):
    """Show who and what produced the current value of KEY.

    KEY@vN: that version instead (as show, diff and revert take it).

    The version, its trust and author (owner: the person, an agent or a
    key name), the command that wrote it (from the reflog), the review
    decision when it came out of the queue, and the sessions and turns it
    cites.  After a history rewrite (a forget of one of the key's versions,
    which re-stores the later ones; a seal; a pull of a remote's rewrite) it
    says when the history was rewritten ('rewritten', --json
    history_rewritten_at, ms; null when never).  A forget keeps the reflog's
    entries (on the rewritten ids), so the command that wrote an earlier
    version is still named; after a seal or a pull (or a forget by an older
    mem) the reflog starts at the rewrite and it is not known.  The
    rewrite is never shown as the command.

    \b
    Examples:
      mem blame project/api/db
      mem blame project/api/db --json
      mem blame project/api/db@v2

    Exit status: 0 ok; 2 a bad key or KEY@vN; 4 no such key, no such
    version, or no current value; 6 the key is sealed; 10 no store.
    """
    from objstore import blame, refuse_if_sealed
    refuse_if_sealed(store, key.split("@", 1)[0], "blame")
    b = blame(store, key)
    f = b.version.fact
    from objstore import set_back_of
    if back := set_back_of(store, b.key):   # (test41 T6: blame named the older version as the key's, no word)
        click.echo(f"warning: {safe(back['warning'])}", err=True)
    if as_json:
        emit_json({"key": b.key, "id": b.version.id, "version": f.version, "versions": b.versions,
                   "trust": f.trust, "owner": f.owner, "kind": f.kind, "recorded_at": f.recorded_at,
                   "valid_from": f.valid_from, "command": b.command, "moved_at": b.time, "review": b.review,
                   "history_rewritten_at": b.rewritten_at,
                   "sources": [{"source": s.source, "session": s.session, "seq": s.seq, "role": s.role,
                                "harness": s.harness, "timestamp": s.timestamp} for s in b.sources],
                   **({"set_back": back} if back else {})})
        return
    click.echo(f"{b.key}  v{f.version} of {b.versions}  {b.version.id[:12]}")
    click.echo(f"  trust     {f.trust}")
    click.echo(f"  author    {f.owner}")
    click.echo(f"  recorded  {fmt_time(f.recorded_at)}  (valid from {fmt_time(f.valid_from)})")
    if b.command:
        click.echo(f"  command   {b.command}")
    else:
        click.echo("  command   (not in the reflog" + (": written before the history was rewritten)"
                                                       if b.rewritten_at is not None else ")"))
    if b.rewritten_at is not None:
        click.echo(f"  rewritten {fmt_time(b.rewritten_at)}  (the key's history was rewritten then, by a forget, "
                   "seal or pull)")
    if b.review:
        click.echo(f"  review    {b.review}")
    if not b.sources:
        click.echo("  sources   (none cited)")
    for s in b.sources:
        if s.session is not None:
            click.echo(f"  source    turn {s.source[:12]}: session {s.session} #{s.seq} {s.role}"
                       f" ({s.harness}, {fmt_time(s.timestamp or 0)})")
        else:
            click.echo(f"  source    {s.source}")
