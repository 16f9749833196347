"""mem recall."""

import click

from ._common import exit_with, json_option, with_store


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
    from . import lean
    exit_with(lean.recall(store, queries, what, limit, project, all_projects, as_json))
