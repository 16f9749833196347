"""mem vault (init, info, recipient)."""

import click

from ._common import emit_json, first_use_store, json_option, with_store
from ._vault import passphrase_file_option, read_passphrase


@click.group("vault")
def command():
    """Create and inspect the vault that seals secret values.

    Sealing (mem remember --sensitivity secret, mem seal) needs only the
    vault's public recipient; reading (mem sealed show, mem unseal) needs
    its passphrase.  Sealed values are standard age v1 files: the stock
    'age' tool reads them with the vault's identity file.  See docs/vault.md.

    \b
    Examples:
      mem vault init
      mem vault recipient
      mem vault info --json

    Exit status: 0 ok; 2 a passphrase too short or usage; 4 no vault; 12 wrong
    passphrase; 6 a vault exists already, or init run by an agent; 10 no
    store.
    """


@command.command("init")
@click.option("--pq", is_flag=True,
              help="Create a post-quantum hybrid (ML-KEM-768 + X25519) key instead of X25519.")
@passphrase_file_option
@json_option
@click.pass_context
def init(ctx, pq, passphrase_file, as_json):
    """Create the vault: a new age key, its private half encrypted to a passphrase.

    The passphrase (at least 12 characters) is asked twice on the terminal,
    or read from --passphrase-file; it is never a command-line argument.
    Without a terminal on standard input (a script, a pipe, an agent's
    shell) --passphrase-file is required: init exits 2 without it.  It
    is stretched with scrypt at age's default work factor (2^18: about a
    second).  Losing the passphrase loses every sealed value: no one,
    including mem, can recover them.

    \b
    Examples:
      mem vault init
      mem vault init --pq
      mem vault init --passphrase-file ~/.config/mem/pass

    The passphrase is the person's: whoever chooses it reads every value
    sealed afterwards.  Run by an agent (CLAUDECODE, Codex's variables or
    MEM_AGENT set) init is refused with exit 6 before anything is created.

    Exit status: 0 created; 1 --pq not supported by this installation;
    2 passphrase too short or not confirmed, or no terminal and no
    --passphrase-file; 6 the store has a vault
    already, or run by an agent; 11 store locked.
    """
    import os

    import objstore
    objstore.require_person(os.environ, "mem vault init (choosing the passphrase that opens every sealed value)")
    with first_use_store(ctx) as store:   # a refused init leaves no empty store behind (fresh40 F11)
        if objstore.has_vault(store):  # before asking for a passphrase; init_vault checks again under the lock
            from objstore import Refused
            raise Refused(f"this store already has a vault ({objstore.vault_paths(store)[0].parent})",
                          hint="a new vault would make every sealed value unreadable; keep the one you have")
        pw = read_passphrase(passphrase_file, confirm=True, check=objstore.check_passphrase)
        info = objstore.init_vault(store, pw, pq=pq)
    if as_json:
        emit_json({"recipient": info.recipient, "postquantum": info.postquantum,
                   "recipient_file": str(info.recipient_path), "identity_file": str(info.identity_path),
                   "work_factor": objstore.VAULT_WORK_FACTOR})
        return
    kind = "ML-KEM-768 + X25519 (post-quantum hybrid)" if info.postquantum else "X25519"
    click.echo(f"created the vault ({kind})")
    click.echo(f"  recipient:      {info.recipient}")
    click.echo(f"  identity file:  {info.identity_path}  (encrypted to your passphrase)")
    click.echo("")
    click.echo("Keep the passphrase safe: if it is lost, every sealed value is lost with it.")
    click.echo("Nothing, not even mem, can recover a sealed value without it.")
    click.echo(f"Read a sealed value without mem: age -d -i {info.identity_path} FILE")


@command.command("info")
@json_option
@with_store()
def info(as_json, store):
    """Show the vault's recipient, key type, files and sealed key count.

    \b
    Examples:
      mem vault info
      mem vault info --json

    Exit status: 0 ok; 4 no vault; 10 no store.
    """
    import objstore
    v = objstore.vault_info(store)
    n = len(list(store.refs.iter("sealed")))
    if as_json:
        emit_json({"recipient": v.recipient, "postquantum": v.postquantum, "recipient_file": str(v.recipient_path),
                   "identity_file": str(v.identity_path), "sealed_keys": n})
        return
    click.echo(f"recipient:      {v.recipient}")
    click.echo(f"key type:       {'ML-KEM-768 + X25519 (post-quantum hybrid)' if v.postquantum else 'X25519'}")
    click.echo(f"identity file:  {v.identity_path}")
    click.echo(f"sealed keys:    {n}")


@command.command("recipient")
@with_store()
def recipient(store):
    """Print the vault's public age recipient (for age -r).

    \b
    Examples:
      mem vault recipient
      age -r "$(mem vault recipient)" -o pin.age pin.txt

    Exit status: 0 ok; 4 no vault; 10 no store.
    """
    import objstore
    click.echo(objstore.vault_info(store).recipient)
