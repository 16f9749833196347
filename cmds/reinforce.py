"""mem reinforce."""

import click

from ._common import complete_key, emit_json, json_option, with_store
from .pin import state_json


@click.command("reinforce")
@click.argument("key", shell_complete=complete_key)
@json_option
@with_store()
def command(key, as_json, store):
    """Reinforce KEY: restart its decay clock; wake it if dormant.

    A dormant fact gets a new version with the same value, awake again (it
    shows in mem log).  For an awake fact the use is recorded in the key's
    reflog (ids and a time only), which restarts the decay.days clock.
    An agent may reinforce (as the session block suggests): it is a use
    signal, and the value, its trust and its pin are unchanged.

    \b
    Examples:
      mem reinforce project/api/db

    Exit status: 0 ok; 2 invalid key; 4 no such key; 6 a sealed key
    (it never goes dormant); 11 store locked;
    13 the key's ref was set back to an older version (mem fsck --repair
    sets it forward).
    """
    from objstore import reinforce
    r = reinforce(store, key)
    if as_json:
        emit_json(state_json(r))
    elif r.changed:
        click.echo(f"woke {r.key}: wrote v{r.version.fact.version} {r.version.id[:12]} (same value)")
    else:
        click.echo(f"reinforced {r.key} (v{r.version.fact.version})")
