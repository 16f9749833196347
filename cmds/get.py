"""mem get."""

import sys

import click

from ._common import TimeType, complete_key, fmt_time, json_option, safe, with_store
from .log import version_json


@click.command("get")
@click.argument("key", shell_complete=complete_key)
@click.option("--as-of", type=TimeType(), help="The value that was current at TIME (recorded by then and valid then).")
@json_option
@with_store()
def command(key, as_of, as_json, store):
    """Print the current value of KEY.

    The current value is decided by the refs and the supersession rule
    (the newest valid_from wins), never by a score.  With --as-of, the
    value that was current at TIME: among the versions recorded by TIME
    and valid by TIME, the newest valid_from (as mem log --as-of marks it).

    \b
    Examples:
      mem get project/api/db
      mem get project/api/db --as-of 2026-03-01
      mem get project/api/db --json

    Exit status: 0 found; 4 no such key (or no value current at --as-of);
    6 the key is sealed (its value is shown only by mem sealed show); 10 no store.
    """
    from objstore import NotFound, current, current_of, refuse_if_sealed, versions
    refuse_if_sealed(store, key)
    if as_of is None:
        v = current(store, key)
    else:
        v = current_of(versions(store, key), as_of)
        if v is None:
            raise NotFound(f"{key} had no current value at {fmt_time(as_of)}",
                           hint=f"see its versions with: mem log {key}")
    if as_json:
        from ._common import emit_json
        emit_json(version_json(v, current=True))
    elif sys.stdout.isatty():
        click.echo(safe(v.fact.body))
    else:  # exactly the stored value (click.echo would strip escape sequences)
        sys.stdout.write(v.fact.body + "\n")
        sys.stdout.flush()
