"""mem backup."""

import click

from . import _out
from ._common import emit_json, fmt_time, json_option, plural, with_store


@click.command("backup")
@click.argument("name", required=False)
@click.option("--list", "list_", is_flag=True, help="List the remote's snapshots instead.")
@json_option
@with_store()
def command(name, list_, as_json, store):
    """Push to remote NAME and record a dated snapshot of every ref.

    Snapshots are kept in tiers: the newest, and the oldest one younger
    than 1, 3, 7 and 14 days; older ones are pruned.  A forget reaches the
    snapshots too: the next push or backup empties the value in every
    snapshot that holds it.  'mem restore' rebuilds a store from one.
    Sealed values never leave this machine, so no backup holds them: the
    command says how many sealed keys it left out (keep a copy of the
    vault folder and of each key's age files, 'mem sealed export').

    \b
    Examples:
      mem backup
      mem backup origin --list

    Exit status: as mem push.
    """
    from objstore import backup, get_remote, list_sealed, list_snapshots
    from ._remote import progress, s3_env, summary
    spec = get_remote(store, name)
    if list_:
        snaps = list_snapshots(store, spec, s3_env())
        if as_json:
            emit_json(snaps)
        for s in [] if as_json else snaps:
            click.echo(f"{s['name']}\t{fmt_time(s['time'])}\t{s['refs']} refs")
        if not snaps and not as_json and not _out.PLAIN:   # (fresh37 F13: an empty list printed nothing)
            click.echo(f"no snapshots yet on {spec.name} (make one with: mem backup {spec.name})", err=True)
        return
    res = backup(store, spec, env=s3_env(), progress=progress())
    sealed = list_sealed(store)
    if as_json:
        emit_json({**res.as_dict(), "sealed_not_included": len(sealed)})
    else:
        click.echo(f"{res.remote}: snapshot {res.snapshot}; {summary(res)}"
                   + (f"; pruned {plural(len(res.snapshots_pruned), 'old snapshot')}" if res.snapshots_pruned else ""))
    if sealed:   # (test37 T8: a restore after a lost disk lost every sealed value, and nothing had said so)
        click.echo(f"note: {len(sealed)} sealed key{'s are' if len(sealed) != 1 else ' is'} not in the backup "
                   "(sealed values never leave this machine): keep a copy of the vault folder and of each "
                   "key's age files ('mem sealed export KEY -o FILE'; 'mem sealed list' names them)", err=True)
