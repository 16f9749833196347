"""mem search."""

import click

from ._common import emit_json, fmt_time, json_option, rebuild_missing_index, safe, with_store


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("-n", "--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help="Most hits to show.")
@click.option("--what", type=click.Choice(["all", "facts", "turns"]), default="all", show_default=True,
              help="Search facts, turns or both.")
@click.option("--exit-code", is_flag=True, help="Exit 1 when nothing matches (like grep).")
@json_option
@with_store()
def command(query, limit, what, exit_code, as_json, store):
    """BM25 search over current facts and captured turns.

    The query is plain words: quotes, colons, parentheses, AND/OR/NOT and *
    are searched as text, never parsed as query syntax.  A hit on an old
    version of a key shows the key's current value.

    \b
    Examples:
      mem search postgres port
      mem search "auth.py" --what turns --json

    Exit status: 0 ok (also with no hits, unless --exit-code); 10 no store.
    """
    from objstore import InvalidInput
    from objstore import search
    text = " ".join(query)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("the query is not valid UTF-8 text") from None
    kinds = {"all": ("fact", "turn"), "facts": ("fact",), "turns": ("turn",)}[what]
    rebuild_missing_index(store)
    hits = search(store, text, limit=limit, kinds=kinds)
    if as_json:
        emit_json([{"kind": h.kind, "id": h.id, "key" if h.kind == "fact" else "session": h.ref,
                    "time": h.time, "role": h.role, "project": h.project, "score": round(h.score, 4),
                    "snippet": h.snippet, "resolved_from": h.resolved_from} for h in hits])
    else:
        for h in hits:
            label = "fact" if h.kind == "fact" else f"turn/{h.role}"
            click.echo(click.style(safe(f"{label}  {h.ref}"), fg="yellow")
                       + f"  {fmt_time(h.time)}  {h.id[:12]}  score {h.score:.2f}")
            click.echo(f"    {safe(h.snippet)}")
    if exit_code and not hits:
        raise click.exceptions.Exit(1)
