"""mem get."""

import click

from ._common import complete_key, exit_with, json_option, with_store


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
    from . import lean
    exit_with(lean.get(store, key, as_json))
