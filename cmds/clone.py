"""mem clone."""

import click

from ._common import ExistingPath, emit_json, home_path, json_option, lock_timeout


@click.command("clone")
@click.argument("url")
@click.option("--key", "key_file", type=ExistingPath(dir_okay=False), default=None,
              help="The sync key file from 'mem remote key export' (needed for an encrypted remote).")
@click.option("--endpoint", metavar="URL", default=None, help="S3 service URL; default AWS_ENDPOINT_URL.")
@click.option("--name", default="origin", show_default=True, help="Name of the remote in the new store.")
@json_option
@click.pass_context
def command(ctx, url, key_file, endpoint, name, as_json):
    """Create this machine's store (mem --home DIR clone URL) from the remote at URL.

    The store must not exist yet (or be an empty directory).  Every object
    is fetched and verified, the refs are set and the search index built;
    the remote is recorded as NAME (origin).  On failure nothing is left.

    \b
    Examples:
      mem clone s3://my-bucket/mem --key mem-sync.key
      mem --home ~/.mem clone /media/usb/mem --key mem-sync.key

    Exit status: 0 ok; 2 the store exists and is not empty; 4 no mem remote
    at URL; 12 wrong or missing key; 13 damaged remote data; 14 newer remote
    format; 15 remote unreachable.
    """
    from objstore import InvalidInput, clone
    from ._remote import given_key, progress, s3_env, summary
    home = home_path(ctx)
    if (home / "config").exists():
        raise InvalidInput(f"a store exists at {home}; clone makes a new one",
                           hint="use 'mem remote add' and 'mem pull' in an existing store")
    key = None
    if key_file:
        from ._remote import read_key_file
        key = read_key_file(key_file)
    with given_key(key_file):
        store, res = clone(home, url, name=name, endpoint=endpoint, key=key, env=s3_env(), progress=progress(),
                           lock_timeout=lock_timeout(ctx))
    store.close()
    if as_json:
        emit_json(res.as_dict())
    else:
        click.echo(f"cloned {url} into {home}: {summary(res)}")
