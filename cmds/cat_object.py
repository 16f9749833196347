"""mem cat-object (plumbing)."""

import sys

import click

from ._common import emit_json, with_store


@click.command("cat-object")
@click.argument("oid", metavar="ID")
@click.option("-t", "--type", "show_type", is_flag=True, help="Print only the object's type.")
@click.option("--raw", is_flag=True, help="Write the exact framed bytes (whose blake3 is the id) to stdout.")
@with_store()
def command(oid, show_type, raw, store):
    """Print a raw object (plumbing).

    Default output is the decoded payload as JSON (ids and byte strings in
    hex).  The output format is a stable contract for scripts.

    \b
    Examples:
      mem cat-object 8c1f2a3b
      mem cat-object -t 8c1f2a3b
      mem cat-object --raw 8c1f2a3b | b3sum

    Exit status: 0 ok; 2 not an id; 4 no such object or ambiguous; 13 corrupt.
    """
    from objstore import decode
    from .show import object_json
    full = store.resolve(oid)
    frame = store.read_frame(full)
    if raw:
        sys.stdout.buffer.write(frame)
        sys.stdout.buffer.flush()
        return
    obj = decode(frame)
    if show_type:
        click.echo(obj.TYPE_NAME)
        return
    emit_json(object_json(full, obj))
