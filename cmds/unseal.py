"""mem unseal."""

import click

from ._common import emit_json, json_option, plural, with_store
from ._vault import passphrase_file_option, read_passphrase


@click.command("unseal")
@click.argument("key")
@passphrase_file_option
@click.option("--keep-credentials", is_flag=True,
              help="Restore versions holding a credential as they are, in the clear.")
@click.option("--redact-credentials", is_flag=True,
              help="Restore versions holding a credential with each one replaced by [REDACTED:<rule>].")
@json_option
@with_store()
def command(key, passphrase_file, keep_credentials, redact_credentials, as_json, store):
    """Make sealed KEY plain again: restore its versions as private facts.

    Asks for the vault passphrase (or reads --passphrase-file), decrypts
    every version, writes them back as plain 'private' facts with their
    version numbers, valid_from and recorded_at, indexes the current one,
    and deletes the sealed versions.  A wrong passphrase changes nothing.
    A version mem fsck --repair kept as a 'lost' placeholder stays one, in
    its place (mem get then says the current value was lost).

    \b
    Examples:
      mem unseal user/bank/pin
      mem unseal user/bank/pin --passphrase-file ~/.config/mem/pass

    Putting a secret back in the clear (readable and injected like any
    fact) is the person's decision: run by an agent (CLAUDECODE, Codex's
    variables or MEM_AGENT set) it is refused with exit 6 before any
    passphrase is read.

    A version holding a credential (what every plain write would redact:
    a token, a labelled password, the whole value of a key named for a
    credential) is not put back in the clear unasked: unseal then says how
    many versions hold one and by which rules (never the value), changes
    nothing and exits 6.  --redact-credentials restores them with each
    credential replaced by [REDACTED:<rule>] (the sealed copy is deleted:
    the credential is then gone from the store); --keep-credentials
    restores them as they are.

    Exit status: 0 unsealed; 2 both --keep-credentials and
    --redact-credentials; 4 not a sealed key or no vault; 6 the key is both
    plain and sealed with different versions, a version holds a credential
    and neither flag was given, or run by an agent; 12 wrong passphrase or a
    version not encrypted to the vault; 11 store locked;
    13 the key's ref was set back to an older version (mem fsck --repair
    sets it forward).
    """
    import os

    from objstore import open_identity, require_person, sealed_versions, unseal_key
    if keep_credentials and redact_credentials:
        raise click.UsageError("--keep-credentials and --redact-credentials do not go together")
    require_person(os.environ, "mem unseal", instead="ask the user to unseal it")
    sealed_versions(store, key)  # NotFound before asking for a passphrase
    identities = open_identity(store, read_passphrase(passphrase_file))
    r = unseal_key(store, key, identities, credentials="keep" if keep_credentials
                   else "redact" if redact_credentials else "refuse")
    if r.index_error:
        click.echo(f"warning: unsealed, but the search index was not updated: {r.index_error}\n"
                   "hint: run 'mem reindex'", err=True)
    if r.credential_in:
        held = f"{plural(len(r.credential_in), 'restored version')} ({', '.join(f'v{n}' for n in r.credential_in)}) " \
               f"held a credential ({r.rules_said})"
        click.echo(f"warning: {held}: each was replaced by [REDACTED:<rule>]; the sealed copy is deleted"
                   if r.redacted else f"warning: {held}: stored in the clear, as --keep-credentials asked", err=True)
    if as_json:
        emit_json({"key": r.key, "restored": [{"id": i, "version": n} for i, n in r.restored],
                   "sealed_deleted": r.dropped,
                   "credentials": {"versions": r.credential_in, "rules": r.credentials,
                                   "redacted": r.redacted}})
        return
    click.echo(f"unsealed {r.key}: {plural(len(r.restored), 'version')} restored as plain private facts")
