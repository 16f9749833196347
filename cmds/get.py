"""mem get."""

import sys

import click

from ._common import complete_key, json_option, safe, with_store
from .log import version_json


@click.command("get")
@click.argument("key", shell_complete=complete_key)
@json_option
@with_store()
def command(key, as_json, store):
    """Print the current value of KEY.

    The current value is decided by the refs and the supersession rule
    (the newest valid_from wins), never by a score.

    \b
    Examples:
      mem get project/api/db
      mem get project/api/db --json

    Exit status: 0 found; 4 no such key; 6 the key is sealed (its value is
    shown only by mem sealed show); 10 no store.
    """
    from objstore import current
    from objstore import refuse_if_sealed
    refuse_if_sealed(store, key)
    v = current(store, key)
    if as_json:
        from ._common import emit_json
        emit_json(version_json(v, current=True))
    elif sys.stdout.isatty():
        click.echo(safe(v.fact.body))
    else:  # exactly the stored value (click.echo would strip escape sequences)
        sys.stdout.write(v.fact.body + "\n")
        sys.stdout.flush()
