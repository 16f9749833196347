"""mem remote: add, list, remove, show; the sync key."""

import os

import click

from ._common import ExistingPath, emit_json, json_option, safe, with_store
from ._out import refuse_existing_file, refuse_output_in_store


@click.group("remote", invoke_without_command=True)
@click.option("-v", "--verbose", is_flag=True,
              help="Accepted as git remote -v is: the list always shows each URL.")
@click.pass_context
def command(ctx, verbose):
    """Manage remotes: folders or S3 buckets that push, pull and clone use.
    With no subcommand, list them (as git remote does).

    A remote is a folder (a USB disk, a synced folder: a path or
    file:///abs/path; it must exist, mem does not create it) or an
    S3-compatible bucket (s3://bucket/prefix).
    S3 settings come from the environment: AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL,
    AWS_PROFILE; nothing secret is written to the store.  What leaves the
    machine is encrypted (age, X25519) to the store's sync key unless the
    remote was added with --no-encrypt.

    \b
    Examples:
      mem remote add origin s3://my-bucket/mem
      mem remote add usb /media/usb/mem
      mem remote list
      mem remote key export -o mem-sync.key

    Exit status: 0 ok; 2 bad name or URL; 4 no such remote; 12 wrong key;
    13 a damaged remotes.json or sync-key (mem fsck names it); 15 remote
    unreachable.
    """
    if ctx.invoked_subcommand is None:   # (fresh39 F3: the whole help, exit 2; test40 T13: -v refused)
        ctx.invoke(list_)


@command.command("add")
@click.argument("name")
@click.argument("url")
@click.option("--endpoint", metavar="URL", default=None,
              help="S3 service URL (MinIO, R2, …); default AWS_ENDPOINT_URL or AWS.")
@click.option("--no-encrypt", is_flag=True,
              help="Store packs and manifest in the clear: the provider can read every value. "
                   "Only for a remote you control.")
@click.option("--key", "key_file", type=ExistingPath(dir_okay=False), default=None,
              help="Use this sync key (from 'mem remote key export') for an existing encrypted remote.")
@json_option
@with_store(create=True)
def add(name, url, endpoint, no_encrypt, key_file, as_json, store):
    """Record remote NAME at URL (nothing is contacted).

    \b
    Examples:
      mem remote add origin s3://bucket/prefix --endpoint http://127.0.0.1:9000
      mem remote add usb /media/usb/mem --key mem-sync.key

    A folder must exist (mem never creates it: a disk that is not mounted
    is not filled in on the system disk); an S3 bucket is not contacted.
    Nothing is written when the add is refused, not even the --key.

    Exit status: 0 ok; 2 bad name, URL or key; 6 run by an agent (a
    remote decides where memory goes and what a pull brings in: the
    person's choice); 15 the folder does not exist or is a file.
    """
    from objstore import require_person
    require_person(os.environ, "mem remote add",
                   instead="ask the user to add it (where memory is sent and what a pull brings in are theirs)")
    from objstore import add_remote
    from ._remote import read_key_file
    r = add_remote(store, name, url, endpoint=endpoint, encrypt=not no_encrypt,
                   key=read_key_file(key_file) if key_file else None)
    if as_json:
        emit_json(r.as_dict())
    else:
        click.echo(f"remote {r.name}: {r.url}" + ("" if r.encrypt else " (not encrypted)"))


@command.command("list")
@json_option
@with_store()
def list_(as_json, store):
    """List the remotes.

    \b
    Examples:
      mem remote list --json

    Exit status: 0 ok; 13 a damaged remotes.json.
    """
    from objstore import list_remotes
    rs = list_remotes(store)
    if as_json:
        emit_json([r.as_dict() for r in rs])
        return
    if not rs:   # (test40 T13: nothing at all was printed)
        click.echo("no remotes: add one with mem remote add NAME URL", err=True)
    for r in rs:
        extra = (f" (endpoint {r.endpoint})" if r.endpoint else "") + ("" if r.encrypt else " (not encrypted)")
        url = safe(r.url).replace("\n", "\\n").replace("\t", "\\t")   # (test41 T15: a hand-edited URL's newline)
        click.echo(f"{r.name}\t{url}{extra}")


@command.command("remove")
@click.argument("name")
@json_option
@with_store()
def remove(name, as_json, store):
    """Forget remote NAME here (nothing on the remote is deleted).

    \b
    Examples:
      mem remote remove usb

    Exit status: 0 ok; 4 no such remote; 6 run by an agent.
    """
    from objstore import require_person
    require_person(os.environ, "mem remote remove", instead="ask the user to remove it")
    from objstore import remove_remote
    r = remove_remote(store, name)
    if as_json:
        emit_json(r.as_dict())
    else:
        click.echo(f"removed remote {r.name} ({r.url}); its data stays where it is")


@command.command("show")
@click.argument("name", required=False)
@json_option
@with_store()
def show(name, as_json, store):
    """Contact remote NAME and describe what it holds.

    \b
    Examples:
      mem remote show origin

    Exit status: 0 ok; 4 no such remote; 12 wrong key; 14 newer format; 15 unreachable.
    """
    from objstore import get_remote, remote_info
    from ._remote import s3_env
    info = remote_info(store, get_remote(store, name), s3_env())
    if as_json:
        emit_json(info)
        return
    if not info["exists"]:
        click.echo(f"{info['name']}: {info['url']}: empty (the first push creates it)")
        return
    click.echo(f"{info['name']}: {info['url']}: {info['encryption']}, {info['refs']} refs, "
               f"{info['packs']} packs, {len(info['snapshots'])} snapshots")


@command.group("key")
def key():
    """Export or import the sync key that encrypts this store's remotes.

    \b
    Examples:
      mem remote key export -o mem-sync.key
      mem remote key import mem-sync.key

    Exit status: 0 ok; 2 not a key; 4 no key yet; 13 a damaged sync-key
    (never replaced: move it away first).
    """


@key.command("export")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="File to write (created with mode 0600; '-' for stdout).")
@click.option("--force", is_flag=True, help="Replace an existing FILE (refused without it).")
@with_store()
def key_export(output, force, store):
    """Write the sync key to a file, for a second machine's clone --key.

    \b
    Examples:
      mem remote key export -o mem-sync.key

    Exit status: 0 ok; 2 an -o inside the store or a folder remote, or
    one that exists (without --force); 4 no sync key yet (push
    first); 6 run by an agent (whoever holds the key reads every remote);
    13 the sync-key file is damaged.
    """
    from objstore import require_person
    require_person(os.environ, "mem remote key export", instead="ask the user to export it")
    refuse_output_in_store(store, output)
    refuse_existing_file(output, force)   # (fresh42 F16)
    from objstore import export_sync_key
    text = export_sync_key(store)
    if output == "-":
        click.echo(text, nl=False)
        return
    fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    click.echo(f"wrote the sync key to {output}; whoever holds it can read your remotes", err=True)


@key.command("import")
@click.argument("file", type=ExistingPath(dir_okay=False))
@with_store(create=True)
def key_import(file, store):
    """Use the sync key in FILE for this store's remotes.

    \b
    Examples:
      mem remote key import mem-sync.key

    Exit status: 0 ok; 2 not a sync key; 6 run by an agent; 13 this
    store's sync-key file is damaged (move it away first: it is never
    replaced).
    """
    from objstore import require_person
    require_person(os.environ, "mem remote key import", instead="ask the user to import the key")
    from objstore import import_sync_key
    from ._remote import read_key_file
    import_sync_key(store, read_key_file(file))
    click.echo("sync key imported")
