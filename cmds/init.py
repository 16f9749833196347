"""mem init."""

import click

from ._common import home_path


@click.command("init")
@click.pass_context
def command(ctx):
    """Create a store (a write creates it on first use too).

    The store is $MEM_HOME (default ~/.mem) unless --home is given.
    Running it on an existing store changes nothing.

    \b
    Examples:
      mem init
      mem --home /tmp/scratch init

    Exit status: 0 created or already there; 14 unsupported store version.
    """
    from objstore import is_store, open_store
    root = home_path(ctx)
    existed = is_store(root)
    open_store(root, create=True).close()
    click.echo(f"{'store already exists' if existed else 'initialized empty store'} at {root}")
