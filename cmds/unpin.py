"""mem unpin."""

import os

import click

from ._common import complete_key, json_option, with_store
from .pin import report


@click.command("unpin")
@click.argument("key", shell_complete=complete_key)
@json_option
@with_store()
def command(key, as_json, store):
    """Unpin KEY: it may go dormant again when unused.

    Writes a new version with the same value and pinned cleared.

    \b
    Examples:
      mem unpin user/editor

    Exit status: 0 unpinned (or was not pinned); 2 invalid key; 4 no such key;
    6 run by an agent
    (CLAUDECODE, Codex's variables or MEM_AGENT set: what is always injected
    is the person's choice), or a sealed key (never pinned); 11 store locked;
    13 the key's ref was set back to an older version (mem fsck --repair sets it forward).
    """
    from objstore import unpin, require_person
    require_person(os.environ, "mem unpin", instead="ask the user to unpin it")
    report(unpin(store, key), "unpinned", as_json)
