"""mem reindex."""

import click

from ._common import progress_bar, with_store


@click.command("reindex")
@with_store()
def command(store):
    """Rebuild the search index from the objects.

    The index is derived data: it is written as a new generation and
    switched in atomically, so searches keep working meanwhile.

    \b
    Examples:
      mem reindex

    Exit status: 0 ok; 10 no store; 11 store locked.
    """
    from objstore import reindex
    with progress_bar("indexing") as update:
        n = reindex(store, progress=lambda done: update(done))
    click.echo(f"indexed {n} documents")
