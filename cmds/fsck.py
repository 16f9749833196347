"""mem fsck."""

import click

from ._common import emit_json, json_option, progress_bar, with_store


@click.command("fsck")
@json_option
@with_store()
def command(as_json, store):
    """Verify every object, ref and parent link.

    Re-hashes and decodes every object (rejecting non-canonical bytes),
    checks that every ref names an object of the right type, and that every
    parent link exists and is numbered in sequence.  Unreachable objects are
    counted, not errors (gc removes them).

    \b
    Examples:
      mem fsck
      mem fsck --json

    Exit status: 0 clean; 13 corruption found; 10 no store.
    """
    from objstore import IntegrityError
    from objstore import fsck
    with progress_bar("checking") as update:
        rep = fsck(store, progress=update)
    if as_json:
        emit_json({"ok": rep.ok, "objects": rep.objects, "refs": rep.refs,
                   "unreachable": rep.unreachable, "problems": rep.problems,
                   "warnings": rep.warnings})
    else:
        for p in rep.problems:
            click.echo(f"error: {p}")
        for w in rep.warnings:
            click.echo(f"warning: {w}")
        click.echo(f"{'ok' if rep.ok else 'CORRUPT'}: {rep.objects} objects, {rep.refs} refs, "
                   f"{rep.unreachable} unreachable, {len(rep.problems)} problems")
    if not rep.ok:
        raise click.exceptions.Exit(IntegrityError.exit_code)
