"""mem search."""

import click

from ._common import exit_with, json_option, with_store


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("-n", "--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help="Most hits to show.")
@click.option("--what", type=click.Choice(["all", "facts", "turns"]), default="all", show_default=True,
              help="Search facts, turns or both.")
@click.option("--exit-code", is_flag=True, help="Exit 1 when nothing matches (like grep).")
@click.option("--include-directives", is_flag=True,
              help="Also find directive facts (questions, instructions, goals), held out by default.")
@json_option
@with_store()
def command(query, limit, what, exit_code, include_directives, as_json, store):
    """BM25 search over current facts and captured turns.

    The query is plain words: quotes, colons, parentheses, AND/OR/NOT and *
    are searched as text, never parsed as query syntax; a word joined by
    ':' or '=' (port:5432) that no text holds as written is searched as
    its parts.  A hit on an old
    version of a key shows the key's current value, says so, and counts
    half its score; a hit on a sub-agent's own value of a key shows the
    key's value outside it and names the sub-agent; a fact whose key the query names (project/api/db for
    "db host" or "database host") comes first (facts are ordered as mem
    recall orders them).  Facts of
    kind directive are held out unless --include-directives.

    \b
    Examples:
      mem search postgres port
      mem search "auth.py" --what turns --json
      mem search "should we migrate" --include-directives

    A query with no letter or digit ('!!!', '"', an emoji alone such as
    '🚀') is refused with exit 2, as recall refuses it: emoji and
    punctuation are not indexed, so it could match nothing (search a word
    beside them).

    Exit status: 0 ok (also with no hits, unless --exit-code); 1 no hits
    with --exit-code; 2 no searchable word; 10 no store.
    """
    from . import lean
    exit_with(lean.search(store, query, limit, what, exit_code, as_json, include_directives=include_directives))
