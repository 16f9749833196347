"""mem forget."""

import click

from ._common import complete_key, emit_json, fmt_time, json_option, plural, safe, short, with_store


@click.command("forget")
@click.argument("key", shell_complete=complete_key)
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation (for scripts).")
@click.option("--dry-run", is_flag=True, help="Show what would be forgotten and stop.")
@json_option
@with_store()
def command(key, yes, dry_run, as_json, store):
    """Forget KEY: every version, from refs, reflog, index and objects.

    First shows every version that will go and asks to confirm.  Then it
    writes tombstones (the key and a SHA-256 of each value, never the value),
    deletes the ref and its reflog, purges the search index physically and
    deletes the version objects.  Run 'mem gc --prune=now' afterwards to
    sweep anything else unreachable.  A forgotten value is refused if an
    agent writes it again.

    \b
    Examples:
      mem forget project/api/password --dry-run
      mem forget project/api/password --yes && mem gc --prune=now

    Exit status: 0 forgotten (or dry run); 4 no such key; 11 store locked;
    1 not confirmed; 130 interrupted.
    """
    from objstore.forget import forget_key, preview
    chain = preview(store, key)
    if not as_json or dry_run:
        if not as_json:
            click.echo(f"{'would forget' if dry_run else 'will forget'} {chain[0].fact.key}: "
                       f"{len(chain)} version{'s' if len(chain) != 1 else ''}")
            for v in chain:
                click.echo(safe(f"  v{v.fact.version}  {v.id[:12]}  {fmt_time(v.fact.valid_from)}  {short(v.fact.body, 50)}"))
    if dry_run:
        if as_json:
            emit_json({"key": chain[0].fact.key, "dry_run": True,
                       "versions": [{"id": v.id, "version": v.fact.version} for v in chain]})
        return
    if not yes:
        try:
            ok = click.confirm("forget these versions for good?", err=True)
        except click.Abort:  # end of input: nothing was confirmed
            ok = False
        if not ok:
            click.echo("nothing forgotten", err=True)
            raise click.exceptions.Exit(1)
    r = forget_key(store, key)
    if as_json:
        emit_json({"key": r.key, "dry_run": False, "versions": [{"id": i, "version": n} for i, n in r.versions],
                   "tombstones": r.tombstones, "objects_deleted": r.objects_deleted,
                   "index_clean": not r.index_problems})
        return
    click.echo(f"forgot {r.key}: {plural(len(r.versions), 'version')}, {plural(len(r.tombstones), 'tombstone')} "
               f"written, {plural(r.objects_deleted, 'object')} deleted, search index purged")
    for p in r.index_problems:
        click.echo(f"warning: index: {p}", err=True)
