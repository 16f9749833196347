"""mem pull."""

import click

from ._common import emit_json, json_option, with_store


@click.command("pull")
@click.argument("name", required=False)
@json_option
@with_store()
def command(name, as_json, store):
    """Fetch remote NAME's objects and merge its refs here.

    Tombstones come first: a value forgotten on another machine is purged
    from this store's objects, packs and index.  A key written on both
    machines keeps both versions; the supersession rule picks the same
    current value on every machine; a lower-trust value that challenges a
    user_stated one goes to the review queue.  "received N objects" counts
    the objects this store did not hold (a bundle 'mem push --repair'
    rewrote elsewhere is read again, and adds nothing new).

    \b
    Examples:
      mem pull
      mem pull origin --json

    Exit status: 0 ok; 4 no such remote; 12 wrong sync key; 13 damaged
    remote data, or a damaged remotes.json or sync-key here, or a key here set
    back to an older version that the pull would move (no ref moved: mem fsck
    --repair first); 14 newer remote format; 15 remote unreachable.
    """
    from objstore import get_remote, pull
    from ._remote import held_ids_note, progress, s3_env, summary
    res = pull(store, get_remote(store, name), env=s3_env(), progress=progress())
    if as_json:
        emit_json(res.as_dict())
    else:
        click.echo(f"{res.remote}: {summary(res)}")
        if note := held_ids_note(store, res):
            click.echo(note, err=True)
