"""mem seal."""

import click

from ._common import complete_key, emit_json, holding_remotes, json_option, note_remotes_holding, plural, with_store


@click.command("seal")
@click.argument("key", shell_complete=complete_key)
@json_option
@with_store()
def command(key, as_json, store):
    """Seal KEY: encrypt every version to the vault, then remove the plaintext.

    Every version, oldest first, becomes a sealed version (an age file
    encrypted to the vault's recipient) with the same version number,
    valid_from, recorded_at, kind, trust and owner; no passphrase is needed.
    Then the plain versions are removed as by 'mem forget' (ref, reflog,
    search index, objects, derived files), so that after 'mem gc' no file of
    the store holds the plaintext.  A captured turn a version cites as its
    source (the "remember that" prompt it came from) that holds the value is
    rewritten in its place with the value withheld (--json:
    turns_withheld), and so is every other captured turn quoting it (an
    agent's reply; --json: turns_quoting) when the value is a statement of
    three or more words or one word shaped as a value (a digit, a symbol or
    a hyphen); 'mem unseal' does not give those turns back.  The agent's own transcript files
    are not: 'mem scan TEXT' finds them, 'mem forget --match TEXT
    --scrub-sources' removes them.  Read it back with 'mem sealed show KEY';
    'mem unseal KEY' makes it plain again.  A version whose value was lost
    to damage ('mem fsck --repair' kept its place as a 'lost' placeholder)
    keeps its place as a sealed placeholder, so the older value does not
    become current by sealing: 'mem sealed show KEY' exits 13 naming both
    until a newer value is written.  A pending review-queue proposal for the
    key holds its value in the clear: it is withdrawn, and the command says
    how many on stderr and 'mem audit' records each (--json: queue_dropped;
    'mem unseal' does not bring it back).

    \b
    Examples:
      mem seal user/bank/pin
      mem seal project/api/db-password --json

    Sealing removes the plain versions (as a forget does), so it is the
    person's decision, as the MCP admin tool 'seal' is: run by an agent
    (CLAUDECODE, Codex's variables or MEM_AGENT set) it is refused with
    exit 6 and nothing changes.

    A remote a push from here sent the plain value to still holds it: the
    command names each such remote and the push that purges it there (as
    after a forget; --json: remotes_holding).  The seal travels as a
    withdrawal record (never a hash of the value): every other machine
    syncing with a remote drops its plain copy at its next pull or push and
    never sends it back, and a new clone never gets it.  Until then that
    machine still holds the plaintext; a copy made outside mem (a disk
    backup of it, an export) keeps it.  With a remote configured the
    command says so (--json: other_machines, the remotes it travels by).

    Exit status: 0 sealed (or sealed already); 4 no such key or no vault;
    6 the key is both plain and sealed with different versions, or run by
    an agent; 11 store locked;
    13 the key's ref was set back to an older version (mem fsck --repair
    sets it forward).
    """
    import os

    from objstore import require_person, seal_key
    require_person(os.environ, "mem seal", instead="ask the user to seal it")
    r = seal_key(store, key)
    remotes = holding_remotes(store, {i for i, _n in r.removed})   # a push from here sent the plain value
    from objstore import IntegrityError, list_remotes
    try:
        synced = [s.name for s in list_remotes(store)] if r.removed else []   # other machines may hold a copy
    except IntegrityError:   # (damaged remotes.json: holding_remotes said so; the seal is done)
        synced = []
    if as_json:
        emit_json({"key": r.key, "already": r.already, "sealed": [{"id": i, "version": n} for i, n in r.sealed],
                   "removed": [{"id": i, "version": n} for i, n in r.removed], "lost": r.lost,
                   "forgotten": r.forgotten, "turns_withheld": r.turns_withheld, "turns_quoting": r.turns_quoting,
                   "objects_deleted": r.objects_deleted, "index_clean": not r.index_problems,
                   "remotes_holding": remotes, "other_machines": synced, "queue_dropped": r.queue_dropped})
        return
    if r.queue_dropped:   # (fresh40 F14: a pending decision went without a word)
        click.echo(f"withdrew {plural(len(r.queue_dropped), 'pending review-queue proposal')} for {r.key}: a "
                   "proposal holds its value in the clear ('mem audit' records it)", err=True)
    if r.already:
        click.echo(f"{r.key} is sealed already")
        return
    kept = (f" (the place of {', '.join(f'v{n}' for n in r.lost)}, lost to damage, kept as a 'lost' placeholder: "
            "no older value becomes current)") if r.lost else ""
    if r.forgotten is not None:
        kept += f" (the place of the forgotten v{r.forgotten} kept, so it stays forgotten)"
    encrypted = len(r.sealed) - len(r.lost) - (r.forgotten is not None)
    turns = (f", the value withheld in {plural(r.turns_withheld, 'captured turn')} it was remembered from"
             if r.turns_withheld else "")
    if r.turns_quoting:
        turns += f"{' and' if turns else ', the value withheld in'} {plural(r.turns_quoting, 'other turn')} quoting it"
    click.echo(f"sealed {r.key}: {plural(encrypted, 'version')} encrypted to the vault{kept}, "
               f"{plural(len(r.removed), 'plain version')} removed{turns}")
    for p in r.index_problems:
        click.echo(f"warning: index: {p}", err=True)
    note_remotes_holding(remotes, "the plain value")
    if synced:
        click.echo("note: every other machine syncing with this store still holds the plain value until the seal "
                   "reaches it ('mem push' here, then its next 'mem pull' or 'mem push' drops it; the seal travels as a withdrawal record, never "
                   "a hash of the value); a copy made outside mem (a disk backup, an export) keeps it", err=True)
    click.echo("run 'mem gc --prune=now' to delete the removed objects at once; the agent's own transcript files "
               "keep the value, and a turn quoting it in other words: 'mem scan TEXT' finds them, "
               "'mem forget --match TEXT --scrub-sources' removes them", err=True)
