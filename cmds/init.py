"""mem init."""

import click

from ._common import home_path


@click.command("init")
@click.pass_context
def command(ctx):
    """Create a store (a write creates it on first use too).

    The store is $MEM_HOME (default ~/.mem) unless --home is given.
    Running it on an existing store changes nothing.  Only the store's own
    folder is created, never a missing folder above it.

    \b
    Examples:
      mem init
      mem --home /tmp/scratch init

    Exit status: 0 created or already there; 2 the path cannot hold a store
    (a file, a link to nothing, a missing parent folder, a folder of other
    files: docs/exit-codes.md, "The store path"); 14 unsupported store
    version.
    """
    from objstore import is_store, open_store
    root = home_path(ctx)
    existed = is_store(root)
    open_store(root, create=True).close()
    click.echo(f"{'store already exists' if existed else 'initialized empty store'} at {root}")
