"""mem pin."""

import os

import click

from ._common import complete_key, emit_json, json_option, with_store


def state_json(r) -> dict:
    """The stable JSON shape of a pin/unpin/reinforce result."""
    f = r.version.fact
    return {"key": r.key, "changed": r.changed, "id": r.version.id, "version": f.version,
            "previous": r.previous, "pinned": f.pinned, "dormant": f.dormant, "touched": r.touched}


def report(r, verb: str, as_json: bool) -> None:
    """Print a state change: JSON, or one line of text."""
    if as_json:
        emit_json(state_json(r))
    elif r.changed:
        click.echo(f"{verb} {r.key}: wrote v{r.version.fact.version} {r.version.id[:12]} (same value)")
    else:
        click.echo(f"{r.key} is already {verb} (v{r.version.fact.version})")
    if r.index_error:
        click.echo(f"warning: the search index was not updated: {r.index_error}\nhint: run 'mem reindex'", err=True)


@click.command("pin")
@click.argument("key", shell_complete=complete_key)
@json_option
@with_store()
def command(key, as_json, store):
    """Pin KEY: always injected, never dormant.

    Writes a new version with the same value and pinned set (it shows in
    mem log; mem unpin undoes it).  A dormant fact wakes up.

    \b
    Examples:
      mem pin user/editor
      mem pin project/api/db --json

    Exit status: 0 pinned (or already pinned); 2 invalid key; 4 no such key;
    6 run by an agent
    (CLAUDECODE, Codex's variables or MEM_AGENT set: what is always injected
    is the person's choice), or a sealed key (never put in a session); 11
    store locked;
    13 the key's ref was set back to an older version (mem fsck --repair
    sets it forward).
    """
    from objstore import pin, require_person
    require_person(os.environ, "mem pin", instead="ask the user to pin it")
    report(pin(store, key), "pinned", as_json)
