"""mem gc."""

from pathlib import Path

import click

from ._common import emit_json, json_option, plural, progress_bar, safe, with_store


@click.command("gc")
@click.option("--prune", "prune", metavar="now|AGE", default=None,
              help="Delete unreachable objects older than AGE (30s, 30m = minutes, 12h, 14d, 2w); "
                   "'now' deletes all. Default 2w.")
@click.option("--dry-run", is_flag=True, help="Print the plan and change nothing.")
@json_option
@with_store()
def command(prune, dry_run, as_json, store):
    """Pack loose objects; delete unreachable objects and temp files.

    Reachable means: named by a ref or a reflog entry, or an ancestor of
    one.  Reachable loose objects are packed; packs holding unreachable
    objects are rewritten without them.  Unreachable objects younger than
    the grace period survive, so a writer that has stored an object but not
    yet moved its ref is never robbed.  The plan is computed first and
    executed once; --dry-run prints it and stops (also which turn shards'
    small search index segments it would merge, and how many).  Then each shard's small
    search index segments are merged into one (recall reads fewer files),
    and the cache of the turns' working directories and project names
    (cache/turn-meta, what 'mem forget --match' reads instead of every turn)
    is written for the sessions it lacks or has out of date (--json:
    turn_meta_sessions_read).

    \b
    Examples:
      mem gc --dry-run
      mem gc --prune=now

    A store with damaged objects is still packed, but while 'mem fsck'
    finds damage gc deletes nothing unreachable (what the damage hid cannot
    be told apart from garbage); 'mem fsck --repair' first.  An
    unreachable version or turn whose value a tombstone forgets (a forget
    that met damage) is deleted at once by every gc.  A damaged ref (a ref
    file that does not hold an id, a damaged line of refs/packed-sessions
    or refs/packed-facts) makes gc refuse with exit 13 and change nothing:
    the objects only it reached would look unreachable and be deleted
    before 'mem fsck --repair' could rebuild it from them.

    The quarantine folders 'mem fsck --repair' filled are deleted once
    older than the grace period, and every one with --prune=now (which
    says so), except a folder whose repair removed refs that lost-refs
    still names: it may hold the only copy of their data, so gc keeps it,
    whatever its age, and names them.  'mem forget KEY' of one of them
    deletes the folder (a forgotten value leaves no byte behind); gc
    deletes it once none is lost (set again by a pull, forgotten, or the
    loss accepted by deleting lost-refs).

    A forget stopped before it wrote all its tombstones (its note in
    forget-unfinished/) is not finished by gc: only the same forget run
    again knows all it removes (a --match's text is not stored).  gc does
    its work, names the forget to run again on stderr and exits 6, so
    'mem forget …; mem gc --prune=now' never reads as clean while the text
    is still stored (--json: unfinished_forgets).  A forget killed after
    its tombstones is finished by gc, which takes the store lock.

    Exit status: 0 ok; 2 bad --prune; 6 a stopped forget is still to run
    again; 11 store locked; 13 a damaged ref.
    """
    from objstore import gc, parse_prune
    grace = parse_prune(prune)
    with progress_bar("packing") as update:
        plan = gc(store, grace_s=grace, dry_run=dry_run, progress=update)
    stopped = [s for s in store.unfinished.list() if s.command == "forget"]
    _report(plan, grace, dry_run, as_json, store, stopped)
    if stopped:   # (test34b T13) the README's step after every forget must not read as clean while one stands
        _unfinished(stopped, as_json)


def _unfinished(stopped: list, as_json: bool) -> None:
    """Forgets gc cannot finish (``objstore.core.unfinished.StoppedForget``):
    each named on stderr with the command to run again; exit 6."""
    if not as_json:
        for s in stopped:
            click.echo(f"warning: {s.describe()} {s.stopped()}; gc kept what it removes; run it again: "
                       f"{s.rerun()}, then gc again", err=True)
    from objstore import ForgetUnfinished
    raise click.exceptions.Exit(ForgetUnfinished.exit_code)


def _report(plan, grace, dry_run, as_json, store, stopped: list) -> None:
    """gc's plan and what it did, on stdout (``--json``: one document)."""
    from objstore import PackFileMissing
    if as_json:
        emit_json({"dry_run": dry_run, "live": plan.live, "loose_to_pack": len(plan.loose_to_pack),
                   "unreachable": len(plan.unreachable), "to_delete": len(plan.to_delete),
                   "unreachable_ids": plan.unreachable if dry_run else [],
                   "packs": [{"name": p.name, "action": p.action, "objects": p.objects,
                              "unreachable": p.unreachable, "size": p.size} for p in plan.packs],
                   "kept_young": plan.kept_young, "temp_files": len(plan.temp_files),
                   "quarantine": [str(q) for q in plan.quarantine], "quarantine_kept": plan.quarantine_kept,
                   "bytes_freed": plan.bytes_freed, "deleted": plan.deleted, "packed": plan.packed,
                   "damaged": plan.damaged, "unnamed": plan.unnamed,
                   "segments_merged": plan.segments_merged,
                   "turn_meta_sessions_read": plan.turn_meta_read, "rerecorded": plan.rerecorded,
                   "segment_merges": [{"generation": g, "segments": n, "documents": d}
                                      for g, n, d in plan.segment_merges],
                   "unfinished_forgets": [f"{s.describe()} {s.stopped()}; run it again: {s.rerun()}"
                                          for s in stopped]})
        return
    would = "would " if dry_run else ""
    click.echo(f"{plural(plan.live, 'reachable object')}; {len(plan.unreachable)} unreachable")
    if dry_run:
        for oid in plan.unreachable[:50]:
            click.echo(f"  unreachable {oid}")
        if len(plan.unreachable) > 50:
            click.echo(f"  … and {len(plan.unreachable) - 50} more")
    click.echo(f"{would}pack {plural(len(plan.loose_to_pack), 'loose object')}")
    for p in plan.packs:
        click.echo(f"{would}{p.action} pack {p.name[:16]} ({plural(p.objects, 'object')}, {p.unreachable} unreachable)")
    click.echo(f"{would}delete {plural(len(plan.to_delete), 'loose object')} and "
               f"{plural(len(plan.temp_files), 'temp file')} (about {plan.bytes_freed} bytes freed)")
    if plan.quarantine:
        click.echo(f"{would}delete {plural(len(plan.quarantine), 'quarantine folder')} "
                   + ("(--prune=now: whatever their age)" if grace <= 0 else "older than the grace period"))
    for q, names in plan.quarantine_kept.items():
        click.echo(f"kept quarantine folder {safe(Path(q).name)}: it may hold the only copy of the data of "
                   f"{plural(len(names), 'ref')} 'mem fsck --repair' removed and lost-refs still names "
                   f"({safe(', '.join(names))}); 'mem forget KEY' of one deletes it, and so does gc once none is "
                   "lost (set again by a pull, forgotten, or lost-refs deleted to accept the loss)")
    if plan.rerecorded:
        click.echo(f"wrote back {plural(len(plan.rerecorded), 'pack')} into objects/info/packs (the record was "
                   "deleted, emptied or incomplete)")
    if plan.segments_merged:
        click.echo(f"merged small search index segments: {plural(plan.segments_merged, 'segment')} fewer")
    for g, n, d in plan.segment_merges:
        click.echo(f"would merge {plural(n, 'small search index segment')} of turns generation {g} "
                   f"({plural(d, 'document')} in all) into one segment: {plural(n - 1, 'segment')} fewer")
    pulled = {}
    if plan.unnamed:
        from objstore import stopped_pull_refs
        pulled = stopped_pull_refs(store.root)
    if plan.unnamed and all(name in pulled for name in plan.unnamed):   # a stopped pull's: only it sets them (T7)
        remote = next((r for _h, r in pulled.values() if r), None)
        click.echo(f"kept every unreachable object: a pull was stopped before it set {plural(len(plan.unnamed), 'ref')} "
                   f"whose objects are stored; run 'mem pull {remote or '<remote>'}' again, then gc again")
    elif plan.unnamed:
        n = len(plan.unnamed)
        click.echo(f"kept every unreachable object: {plural(n, 'session')} or key{'s' if n != 1 else ''} "
                   f"({plan.unnamed[0]}{', …' if len(plan.unnamed) > 1 else ''}) {'has' if len(plan.unnamed) == 1 else 'have'} "
                   "stored turns or versions but no ref; run 'mem fsck --repair' (it sets the refs again), then gc again")
    elif store.packs.broken and all(isinstance(e, PackFileMissing) for _i, e in store.packs.broken):
        click.echo(f"kept every unreachable object: pack file {store.packs.broken[0][1].pack_path.name} is missing "
                   f"(its index is intact: {plural(len(plan.damaged), 'object')} cannot be read), so what lies behind "
                   "it is unknown; put it back, then gc again ('mem fsck --repair' changes nothing while it is "
                   "missing)")   # (test34b T26)
    elif plan.damaged or store.packs.broken:
        click.echo(f"kept every unreachable object: the store has damage ({plural(len(plan.damaged), 'object')}"
                   f", {plural(len(store.packs.broken), 'unreadable pack')}), so what lies behind it is unknown; "
                   "run 'mem fsck --repair', then gc again")
    elif plan.kept_young:
        click.echo(f"kept {plural(plan.kept_young, 'unreachable object')} younger than the grace period "
                   "(--prune=now removes them)")
