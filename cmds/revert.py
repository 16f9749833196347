"""mem revert."""

import os

import click

from ._common import complete_key, emit_json, json_option, with_store


@click.command("revert")
@click.argument("what", metavar="KEY[@vN]|ID", required=False, shell_complete=complete_key)
@click.option("--derive-run", "run_id", metavar="ID", help="Undo every fact a derive run wrote (mem derive report).")
@json_option
@with_store()
def command(what, run_id, as_json, store):
    """Undo a change by writing a new version; history is never rewritten.

    KEY undoes its latest change; KEY@vN or a version ID undoes the change
    that produced that version: a superseding value, an accepted queue
    proposal, a decay (dormant), a pin or unpin.  The ID of a rejected queue
    item queues it again and lifts the rejection.  The value, kind, pin and
    dormancy of the version in force before it come back as a new version
    (the value you had then: not a version scheduled for later with
    --valid-from, nor a sub-agent's; a reverted change scheduled for later
    is undone at its date too: the revert takes effect then), so the
    revert itself shows in 'mem log' and can be reverted.  A forgotten value
    cannot be reverted back, and a version the key has changed since must
    wait until the later versions are reverted.  A revert is written as the
    person's (user_stated): run by an agent (CLAUDECODE, Codex's variables
    or MEM_AGENT set) it is refused with exit 6.

    \b
    Examples:
      mem revert project/api/db
      mem revert project/api/db@v3
      mem revert 1a2b3c4d
      mem revert --derive-run 3f9c

    A key with no current value because sub-agents disagree is refused (the
    message names each one's value): choose it with mem remember KEY VALUE.

    Exit status: 0 reverted (or nothing to change); 2 bad input; 4 no such
    key, version or id; 6 refused (forgotten, first version, changed since,
    sub-agents disagree, run by an agent);
    10 no store; 11 store locked.
    """
    from objstore import refuse_if_sealed, require_person, revert
    if (what is None) == (run_id is None):
        raise click.UsageError("give KEY[@vN] or ID, or --derive-run ID")
    require_person(os.environ, "mem revert",
                   instead="propose the value it should hold: mem remember KEY VALUE (queued for review)")
    if run_id is not None:
        return _revert_run(store, run_id, as_json)
    if "/" not in what and "@" not in what:  # an id: a fact version, or a rejected queue item
        from objstore import NotFound, unreject
        try:
            u = unreject(store, what)
        except NotFound:
            pass
        else:
            if as_json:
                emit_json({"item": u.item, "key": u.key, "requeued": True, "tombstone_dropped": u.tombstone})
            else:
                click.echo(f"queued {u.item[:12]} for {u.key} again (its rejection is undone)")
            return
    if "@" in what or "/" in what:
        refuse_if_sealed(store, what.rpartition("@")[0] or what)
    r = revert(store, what)
    if as_json:
        emit_json({"key": r.key, "reverted": {"version": r.reverted.fact.version, "id": r.reverted.id},
                   "restored": {"version": r.restored.fact.version, "id": r.restored.id},
                   "what": r.what, "written": r.version is not None,
                   "version": ({"version": r.version.fact.version, "id": r.version.id} if r.version else None)})
        return
    if r.version is None:
        click.echo(f"{r.key} already holds v{r.restored.fact.version}'s {r.what}; nothing written")
    else:
        click.echo(f"reverted {r.key} v{r.reverted.fact.version}: wrote v{r.version.fact.version} "
                   f"{r.version.id[:12]} with v{r.restored.fact.version}'s {r.what}")


def _revert_run(store, run_id, as_json):
    """Revert every version a derive run wrote; a key changed since is reported, not touched."""
    from objstore import MemError, NotFound, derive_reports, revert
    reps = [r for r in derive_reports(store) if str(r.get("id", "")).startswith(run_id)]
    if len(reps) != 1:
        raise NotFound(f"no derive run {run_id}" if not reps else f"{run_id} names {len(reps)} derive runs",
                       hint="list them with: mem derive report")
    done, refused = [], []
    for d in reps[0].get("decisions", []):
        if not d.get("written"):
            continue
        try:
            r = revert(store, d["written"], command=f"revert derive-run {reps[0]['id'][:12]}")
            done.append({"key": r.key, "version": r.version.id if r.version else None})
        except MemError as e:
            refused.append({"key": d.get("key"), "why": e.message})
    if as_json:
        emit_json({"run": reps[0]["id"], "reverted": done, "refused": refused})
        return
    click.echo(f"derive run {reps[0]['id'][:12]}: reverted {len(done)} fact(s)")
    for x in refused:
        click.echo(f"  not reverted {x['key']}: {x['why']}", err=True)
