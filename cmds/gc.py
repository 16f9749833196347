"""mem gc."""

import click

from ._common import emit_json, json_option, progress_bar, with_store


@click.command("gc")
@click.option("--prune", "prune", metavar="now|AGE", default=None,
              help="Delete unreachable objects older than AGE (30m, 12h, 14d, 2w); 'now' deletes all. Default 2w.")
@click.option("--dry-run", is_flag=True, help="Print the plan and change nothing.")
@json_option
@with_store()
def command(prune, dry_run, as_json, store):
    """Delete unreachable objects and leftover temp files.

    Reachable means: named by a ref or a reflog entry, or an ancestor of
    one.  Unreachable objects younger than the grace period survive, so a
    writer that has stored an object but not yet moved its ref is never
    robbed.  The plan is computed first and executed once.

    \b
    Examples:
      mem gc --dry-run
      mem gc --prune=now

    Exit status: 0 ok; 2 bad --prune; 11 store locked.
    """
    from objstore.gc import gc, parse_prune
    grace = parse_prune(prune)
    with progress_bar("deleting") as update:
        plan = gc(store, grace_s=grace, dry_run=dry_run, progress=update)
    if as_json:
        emit_json({"dry_run": dry_run, "live": plan.live, "unreachable": len(plan.unreachable),
                   "to_delete": len(plan.to_delete), "kept_young": plan.kept_young,
                   "temp_files": len(plan.temp_files), "bytes_freed": plan.bytes_freed,
                   "deleted": plan.deleted})
        return
    verb = "would delete" if dry_run else "deleted"
    click.echo(f"{plan.live} reachable objects; {len(plan.unreachable)} unreachable")
    click.echo(f"{verb} {len(plan.to_delete)} objects and {len(plan.temp_files)} temp files "
               f"({plan.bytes_freed} bytes)")
    if plan.kept_young:
        click.echo(f"kept {plan.kept_young} unreachable objects younger than the grace period (--prune=now removes them)")
