"""mem keys."""

import click

from ._common import emit_json, json_option, safe, short, shown_key, with_store


@click.command("keys")
@click.argument("prefix", required=False, default="")
@json_option
@with_store()
def command(prefix, as_json, store):
    """List keys with their current version.

    \b
    Examples:
      mem keys
      mem keys project/api/

    A key whose ref is damaged (its file holds no id, or it names a
    missing or damaged object) is skipped with a warning on stderr.

    Exit status: 0 ok (damaged refs skipped included); 10 no store.
    """
    from objstore import current_of, key_chains
    rows = []
    for key, chain in key_chains(store, prefix):
        cur = current_of(chain)
        rows.append((key, cur, len(chain)))
    if as_json:
        emit_json([{"key": k, "id": c.id, "version": c.fact.version, "versions": n, "body": c.fact.body}
                   for k, c, n in rows])
        return
    for k, c, n in rows:
        click.echo(safe(f"{shown_key(k)}  v{c.fact.version}/{n}  {short(c.fact.body, 60)}"))
