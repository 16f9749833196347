"""mem restore."""

import click

from ._common import ExistingPath, emit_json, home_path, json_option, plural


@click.command("restore")
@click.argument("source")
@click.option("--latest", is_flag=True, help="The newest snapshot (the default).")
@click.option("--snapshot", "snap", metavar="ID", default=None, help="A snapshot name or its unique prefix.")
@click.option("--key", "key_file", type=ExistingPath(dir_okay=False), default=None,
              help="The sync key file (for an encrypted remote).")
@click.option("--endpoint", metavar="URL", default=None, help="S3 service URL; default AWS_ENDPOINT_URL.")
@json_option
@click.pass_context
def command(ctx, source, latest, snap, key_file, endpoint, as_json):
    """Rebuild an empty store (mem --home DIR restore SOURCE) from a snapshot at SOURCE.

    SOURCE is a remote URL, or the name of a remote of the (empty) store at
    --home.  Objects, refs and the search index are rebuilt.  Every
    tombstone the remote holds is installed too, also one written after the
    snapshot: what was forgotten since stays forgotten.  No snapshot holds
    a sealed value (they never leave the machine that sealed them): bring
    them back with 'mem vault' and 'mem sealed import' from your copies.

    \b
    Examples:
      mem --home ~/.mem-restored restore s3://my-bucket/mem --latest --key mem-sync.key
      mem restore /media/usb/mem --snapshot 1765000000000

    Exit status: 0 ok; 2 the store is not empty; 4 no snapshot; 12 wrong
    key; 13 damaged remote data; 14 newer remote format; 15 unreachable.
    """
    from objstore import InvalidInput, is_store, list_remotes, open_store, restore
    from ._remote import given_key, progress, s3_env, summary
    if latest and snap:
        raise InvalidInput("give --latest or --snapshot, not both")
    home = home_path(ctx)
    url, name = source, "origin"
    if is_store(home):
        with open_store(home) as st:
            for r in list_remotes(st):
                if r.name == source:
                    url, name, endpoint = r.url, r.name, endpoint or r.endpoint
    key = None
    if key_file:
        from ._remote import read_key_file
        key = read_key_file(key_file)
    with given_key(key_file):
        store, res = restore(home, url, snapshot=snap, name=name, endpoint=endpoint, key=key, env=s3_env(),
                             progress=progress())
    store.close()
    if as_json:
        emit_json(res.as_dict())
    else:
        click.echo(f"restored snapshot {res.snapshot} into {home}: {summary(res)}")
    if res.snapshot_sealed == 0:   # (test37b T19.9: the vault note for a store that never had a vault)
        return
    had = ("if the store had sealed keys" if res.snapshot_sealed is None else
           f"the store had {plural(res.snapshot_sealed, 'sealed key')} then")
    click.echo("note: a backup holds no sealed value (they never leave the machine that sealed them); "
               f"{had}: put back your copy of its vault folder, then 'mem sealed "
               "import KEY FILE' each saved age file and run 'mem sealed rebuild-rules' (later turns quoting them "
               "are withheld again)", err=True)
