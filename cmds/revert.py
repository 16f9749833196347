"""mem revert."""

import os

import click

from ._common import complete_key, confirm_or_exit, emit_json, json_option, with_store
from ._out import safe, short


@click.command("revert")
@click.argument("what", metavar="KEY[@vN]|ID", required=False, shell_complete=complete_key)
@click.option("--derive-run", "run_id", metavar="ID", help="Undo every fact a derive run wrote (mem derive report).")
@click.option("--yes", is_flag=True, help="With --derive-run: forget the keys the run created without asking.")
@json_option
@with_store()
def command(what, run_id, yes, as_json, store):
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

    --derive-run ID undoes a whole run: each version it wrote over an
    earlier value is reverted; each key (or episode) it created, unchanged
    since, has no earlier value and is forgotten as by 'mem forget KEY',
    after a preview and a prompt (--yes: no prompt); a key changed since is
    named and left alone.

    Exit status: 0 reverted (or nothing to change); 1 the prompt was not
    answered yes; 2 bad input; 4 no such key, version, id or run; 5 a
    created key changed while the prompt waited; 6 refused (forgotten,
    first version, changed since, sub-agents disagree, a sealed key, a derive run of
    which nothing could be undone, run by an agent);
    10 no store; 11 store locked; 13 the key's ref was set back to an older
    version (mem fsck --repair restores the newest).
    """
    from objstore import refuse_if_sealed, require_person, revert
    if (what is None) == (run_id is None):
        raise click.UsageError("give KEY[@vN] or ID, or --derive-run ID")
    require_person(os.environ, "mem revert",
                   instead="propose the value it should hold: mem remember KEY VALUE (queued for review)")
    if run_id is not None:
        return _revert_run(store, run_id, as_json, yes)
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
        refuse_if_sealed(store, what.rpartition("@")[0] or what, "revert")
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


def _revert_run(store, run_id, as_json, yes):
    """Undo a derive run: revert each version it wrote over an earlier one,
    forget (previewed, confirmed) each key it created that nothing changed
    since (test37 T12); a key changed since is reported, not touched.  Exit
    6 when it undoes nothing of what the run wrote."""
    from objstore import (MemError, NotFound, Refused, check_previewed, derive_reports, forget, plan_forget,
                          revert, versions)
    reps = [r for r in derive_reports(store) if str(r.get("id", "")).startswith(run_id)]
    if len(reps) != 1:
        raise NotFound(f"no derive run {run_id}" if not reps else f"{run_id} names {len(reps)} derive runs",
                       hint="list them with: mem derive report")
    rid = reps[0]["id"]
    wrote = {(d.get("key"), d["written"]) for d in reps[0].get("decisions", []) if d.get("written")}
    wrote |= {(e.get("key"), e["written"]) for e in reps[0].get("episodes_written", []) if e.get("written")}
    created, over = {}, []
    for key, oid in sorted(wrote):
        try:
            vs = versions(store, key)
        except (MemError, ValueError):
            vs = []
        if [v.id for v in vs] == [oid]:   # the run created the key and nothing changed it since
            created[key] = vs[0]
        else:
            over.append((key, oid))
    if not wrote:
        note = "" if reps[0].get("episodes_written") is not None or not reps[0].get("episodes") else \
            " (its report, older than session 37, does not name its episodes: forget them with mem forget KEY)"
        click.echo(f"derive run {rid[:12]} wrote no fact version: nothing to undo{note}", err=as_json)
        if as_json:
            emit_json({"run": rid, "reverted": [], "forgotten": [], "refused": []})
        return
    previews = {key: plan_forget(store, what=key) for key in created}
    shown = {key: p.object_ids() | set(p.queue_items) for key, p in previews.items()}
    if created:
        click.echo(f"will forget {len(created)} key(s) the run created (no earlier value to go back to):",
                   err=as_json)
        for key, v in created.items():
            q = len(previews[key].queue_items)
            click.echo(safe(f"  key {key}  v{v.fact.version}  {v.id[:12]}  {short(v.fact.body, 50)}"
                            + (f"  (and {q} review-queue proposal(s) for it)" if q else "")), err=as_json)
        if not yes:
            confirm_or_exit("forget these for good?")
    done, gone, refused = [], [], []
    with store.lock("forget"):   # planned again: only what the preview showed goes, or nothing (test18 U8)
        plans = {}
        for key in created:
            try:
                plans[key] = plan_forget(store, what=key)
            except NotFound as e:   # (forgotten meanwhile)
                refused.append({"key": key, "why": e.message})
        for key, plan in plans.items():
            check_previewed(shown[key], plan)   # ChangedSincePreview: exit 5, nothing changed
        for key, plan in plans.items():
            forget(store, what=key, reason=f"revert derive-run {rid[:12]}", plan=plan)
            gone.append({"key": key, "version": created[key].id})
    for key, oid in over:
        try:
            r = revert(store, oid, command=f"revert derive-run {rid[:12]}")
            done.append({"key": r.key, "version": r.version.id if r.version else None})
        except MemError as e:
            refused.append({"key": key, "why": e.message})
    if as_json:
        emit_json({"run": rid, "reverted": done, "forgotten": gone, "refused": refused})
    else:
        click.echo(f"derive run {rid[:12]}: reverted {len(done)} fact(s), forgot {len(gone)} key(s) it created")
        for x in refused:
            click.echo(f"  not undone {x['key']}: {x['why']}", err=True)
    if refused and not (done or gone):
        raise Refused(f"derive run {rid[:12]}: nothing undone ({len(refused)} refused)",
                      hint="each key changed since the run: revert or forget it yourself")
