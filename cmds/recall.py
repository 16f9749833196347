"""mem recall."""

import click

from ._common import emit_json, fmt_time, json_option, rebuild_missing_index, safe, with_store


def project_scope(project: str | None, all_projects: bool):
    """The project aliases of this invocation (``--project``, else
    ``$MEM_PROJECT``, else the working directory), or None for every project."""
    import os

    from objstore import project_aliases
    if all_projects:
        return None
    override = project or os.environ.get("MEM_PROJECT") or None
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = None
    return project_aliases(cwd, override=override) or None


@click.command("recall")
@click.argument("queries", nargs=-1, required=True, metavar="QUERY [QUERY]...")
@click.option("--what", type=click.Choice(["all", "facts", "turns"]), default="all", show_default=True,
              help="Recall facts, turn passages or both.")
@click.option("-n", "--limit", type=click.IntRange(1, 200), default=10, show_default=True, help="Most hits to show.")
@click.option("--project", metavar="NAME", help="Project scope (default: $MEM_PROJECT, else from the working directory).")
@click.option("--all-projects", is_flag=True, help="Search every project, not only the current one.")
@json_option
@with_store()
def command(queries, what, limit, project, all_projects, as_json, store):
    """Recall current facts and past turns for one or more phrasings.

    Each QUERY is one phrasing (quote it); several phrasings of the same
    question are fused by reciprocal rank.  A fact always shows its key's
    current value, even when an older version matched; turn passages show
    where they came from (session, time, role, project).  Results are
    scoped to the current project (from --project, $MEM_PROJECT, or the
    working directory's git remote or folder name) plus user and global
    facts; --all-projects widens that.  Secret facts are never shown.

    \b
    Examples:
      mem recall "which port does the database use"
      mem recall "deploy steps" "how do we release" --what facts
      mem recall "flaky auth test" --all-projects --json

    Exit status: 0 ok (also with no hits); 2 no searchable word; 10 no store;
    13 unreadable search index (run mem reindex).
    """
    from objstore import recall
    projects = project_scope(project, all_projects)
    rebuild_missing_index(store)
    res = recall(store, list(queries), what=what, projects=projects, limit=limit)
    if as_json:
        emit_json({"queries": res.queries, "project": projects[0] if projects else None,
                   "projects": list(projects) if projects else None, "resolved": res.resolved,
                   "hits": [h.to_json() for h in res.hits]})
        return
    if not res.hits:
        scope = f" in project {projects[0]}" if projects else ""
        click.echo(f"nothing recalled{scope}" + (" (try --all-projects)" if projects else ""), err=True)
        return
    for h in res.hits:
        if h.kind == "fact":
            flags = "".join([" pinned" if h.pinned else "", " dormant" if h.dormant else ""])
            click.echo(click.style(safe(f"fact  {h.key}"), fg="yellow")
                       + safe(f"  v{h.version}  {fmt_time(h.valid_from or 0)}  {h.trust}{flags}  {h.id[:12]}"))
            body = h.text if len(h.text) <= 800 else h.text[:799] + f"… (mem get {h.key})"
            click.echo("    " + safe(body).replace("\n", "\n    "))
            if h.resolved_from:
                click.echo(click.style(f"    (matched an older version {h.resolved_from[:12]}; "
                                       "this is the current value)", dim=True))
        else:
            where = f"{h.session}#{h.seq}"
            click.echo(click.style(safe(f"turn  {where}"), fg="cyan")
                       + safe(f"  {h.role}  {fmt_time(h.time)}  {h.project or '-'}  {h.trust}  {h.id[:12]}"))
            click.echo("    " + safe(h.text))
        if h.duplicates:
            click.echo(click.style(f"    (+{h.duplicates} identical)", dim=True))
