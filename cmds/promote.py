"""mem promote."""

import os

import click

from ._common import complete_key, emit_json, json_option, with_store


@click.command("promote")
@click.argument("key", shell_complete=complete_key)
@click.option("--standing", is_flag=True, help="Also load it into every session block, ahead of other facts.")
@click.option("--demote", is_flag=True, help="Take it out of the curated tier.")
@json_option
@with_store()
def command(key, standing, demote, as_json, store):
    """Promote KEY to the curated tier; --standing loads it into every session.

    The owner's call: curated facts are the ones you vouch for.  A standing
    fact is loaded into every session block (after the memory files, before
    pinned and other facts) whatever the project.  Facts of untrusted
    origin (derived by a model, or written by an agent or an import rather
    than by you) are never promoted: state the value yourself first.  The
    promotion is a new version, so 'mem revert' undoes it.  Run by an agent
    (CLAUDECODE, Codex's variables or MEM_AGENT set) it is refused with
    exit 6: vouching for a fact is the person's (an agent remembers at
    agent trust instead).

    \b
    Examples:
      mem promote user/review-style --standing
      mem promote project/api/db
      mem promote project/api/db --demote

    Exit status: 0 ok; 4 no such key; 6 refused (an agent caller, untrusted
    origin, a memory file, a sealed key); 10 no store;
    13 the key's ref was set back to an older version (mem fsck --repair
    sets it forward).
    """
    from objstore import promote, require_person
    require_person(os.environ, "mem promote --demote" if demote else "mem promote",
                   instead="tell the user the command to run")
    if standing and demote:
        raise click.UsageError("--standing and --demote exclude each other")
    r = promote(store, key, standing=standing, demote=demote)
    level = {0: "not curated", 1: "curated", 2: "curated, standing"}[r.version.fact.curated]
    if as_json:
        emit_json({"key": r.key, "changed": r.changed, "curated": r.version.fact.curated, "id": r.version.id})
    else:
        click.echo(f"{r.key}: {level}" + ("" if r.changed else " (already)"))
