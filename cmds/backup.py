"""mem backup."""

import click

from . import _out
from ._common import ExistingPath, emit_json, fmt_time, json_option, open_store, plural


@click.command("backup")
@click.argument("name", required=False)
@click.option("--list", "list_", is_flag=True, help="List the remote's snapshots instead.")
@click.option("--key", "key_file", type=ExistingPath(dir_okay=False), default=None,
              help="With --list URL: the sync key file of an encrypted remote.")
@click.option("--endpoint", metavar="URL", default=None, help="With --list URL: S3 service URL; default "
              "AWS_ENDPOINT_URL.")
@json_option
@click.pass_context
def command(ctx, name, list_, key_file, endpoint, as_json):
    """Push to remote NAME and record a dated snapshot of every ref.

    Snapshots are kept in tiers: the newest, and the oldest one younger
    than 1, 3, 7 and 14 days; older ones are pruned.  A forget reaches the
    snapshots too: the next push or backup empties the value in every
    snapshot that holds it.  'mem restore' rebuilds a store from one.
    Sealed values never leave this machine, so no backup holds them: the
    command says how many sealed keys it left out (keep a copy of the
    vault folder and of each key's age files, 'mem sealed export').

    --list URL (a folder or s3:// URL in NAME's place) lists the snapshots
    of the remote there with no store, as on a new machine before 'mem
    restore': --key FILE for an encrypted one.

    \b
    Examples:
      mem backup
      mem backup origin --list
      mem backup --list s3://my-bucket/mem --key mem-sync.key

    Exit status: as mem push; --list URL: 0 ok; 4 no mem remote there; 12
    encrypted and no key or another key; 13 damaged remote data; 15
    unreachable.
    """
    from objstore import InvalidInput, backup, get_remote, list_sealed, list_snapshots
    from ._remote import progress, s3_env, summary
    if (key_file or endpoint) and not (list_ and name and _is_url(name)):
        raise InvalidInput("--key and --endpoint go with --list URL", hint="a remote of this store has its own: "
                           "mem backup --list NAME")
    if list_ and name and _is_url(name):   # (fresh38 F25: no store yet, as before a restore)
        _list(_at(name, key_file, endpoint, s3_env()), name, as_json)
        return
    store = open_store(ctx)
    spec = get_remote(store, name)
    if list_:
        _list(list_snapshots(store, spec, s3_env()), spec.name, as_json)
        return
    res = backup(store, spec, env=s3_env(), progress=progress())
    sealed = list_sealed(store)
    if as_json:
        emit_json({**res.as_dict(), "sealed_not_included": len(sealed)})
    else:
        click.echo(f"{res.remote}: snapshot {res.snapshot}; {summary(res, sends=True)}"
                   + (f"; pruned {plural(len(res.snapshots_pruned), 'old snapshot')}" if res.snapshots_pruned else ""))
    if sealed:   # (test37 T8: a restore after a lost disk lost every sealed value, and nothing had said so)
        click.echo(f"note: {len(sealed)} sealed key{'s are' if len(sealed) != 1 else ' is'} not in the backup "
                   "(sealed values never leave this machine): keep a copy of the vault folder and of each "
                   "key's age files ('mem sealed export KEY -o FILE'; 'mem sealed list' names them)", err=True)


def _is_url(name: str) -> bool:
    """A folder path or URL, never a remote name (letters, digits, '.', '_', '-')."""
    return "/" in name or ":" in name or name.startswith("~")


def _at(url: str, key_file: str | None, endpoint: str | None, env: dict) -> list[dict]:
    from objstore import list_snapshots_at
    from ._remote import given_key, read_key_file
    if not url.startswith("s3:"):
        import os
        url = os.path.expanduser(url)
    key = read_key_file(key_file) if key_file else None
    with given_key(key_file):
        return list_snapshots_at(url, endpoint=endpoint, key=key, env=env)


def _list(snaps: list[dict], where: str, as_json: bool) -> None:
    if as_json:
        emit_json(snaps)
        return
    for s in snaps:
        click.echo(f"{s['name']}\t{fmt_time(s['time'])}\t{s['refs']} refs")
    if not snaps and not _out.PLAIN:   # (fresh37 F13: an empty list printed nothing)
        how = (f"mem remote add NAME {where}, then mem backup NAME" if _is_url(where) else f"mem backup {where}")
        click.echo(f"no snapshots yet on {where} (make one with: {how})", err=True)   # (test39b B16: a URL)
