"""mem revert."""

import click

from ._common import complete_key, emit_json, json_option, with_store


@click.command("revert")
@click.argument("what", metavar="KEY[@vN]|ID", shell_complete=complete_key)
@json_option
@with_store()
def command(what, as_json, store):
    """Undo a change by writing a new version; history is never rewritten.

    KEY undoes its latest change; KEY@vN or a version ID undoes the change
    that produced that version: a superseding value, an accepted queue
    proposal, a decay (dormant), a pin or unpin.  The value, kind, pin and
    dormancy of the version before it come back as a new version, so the
    revert itself shows in 'mem log' and can be reverted.  A forgotten value
    cannot be reverted back, and a version the key has changed since must
    wait until the later versions are reverted.

    \b
    Examples:
      mem revert project/api/db
      mem revert project/api/db@v3
      mem revert 1a2b3c4d

    Exit status: 0 reverted (or nothing to change); 2 bad input; 4 no such
    key, version or id; 6 refused (forgotten, first version, changed since);
    10 no store; 11 store locked.
    """
    from objstore import refuse_if_sealed, revert
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
