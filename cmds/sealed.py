"""mem sealed (list, show, import, export, forget, rebuild-rules)."""

import sys

import click

from ._common import confirm_or_exit, TimeType, emit_json, fmt_time, json_option, plural, safe, with_store
from ._out import refuse_missing_folder, refuse_output_in_store
from ._vault import passphrase_file_option, read_passphrase, withheld_note


def _meta_json(sv, *, current: bool) -> dict:
    s = sv.sealed
    return {"id": sv.id, "key": s.key, "version": s.version, "kind": s.kind, "valid_from": s.valid_from,
            "recorded_at": s.recorded_at, "trust": s.trust, "owner": s.owner, "parent": s.parent,
            "current": current}


@click.group("sealed")
def command():
    """List, read, import and export sealed values.

    A sealed key keeps its versions only as age files encrypted to the
    vault (mem vault init).  Listing needs nothing; reading asks for the
    vault passphrase.  Sealed values never reach the search index, recall,
    the session-start block, hook output or exports.

    \b
    Examples:
      mem sealed list
      mem sealed show user/bank/pin
      mem sealed import user/bank/pin pin.age
      mem sealed export user/bank/pin -o pin.age
      mem sealed rebuild-rules

    Exit status: 0 ok; 4 no such sealed key or no vault; 12 wrong
    passphrase; 10 no store.
    """


@command.command("list")
@click.argument("prefix", required=False, default="")
@json_option
@with_store()
def list_(prefix, as_json, store):
    """List sealed keys with their version counts (never their values).

    \b
    Examples:
      mem sealed list
      mem sealed list user/ --json

    A key whose ref was set back to an older version (a synced folder's
    older copy) is marked, and said on stderr (--json: its set_back field).

    Exit status: 0 ok (also when nothing is sealed); 10 no store.
    """
    from objstore import list_sealed, lost_sealed_message, now_ms, sealed_versions, set_back_note, why_no_sealed
    rows = list_sealed(store, prefix)
    back: dict = {}   # key -> its set_back field (test41 T24: list said v1 of a key set back from v2)
    if said := set_back_note(store, [r.key for r in rows], back):
        click.echo(f"warning: {safe(said)}", err=True)
    why = {}   # key -> why it has no current value when that was not a loss (scheduled ahead)
    for r in rows:
        chain = sealed_versions(store, r.key) if r.current is None else []
        if chain and lost_sealed_message(r.key, chain) is None:
            why[r.key] = why_no_sealed(chain, now_ms())
        elif r.current is None:   # its current value was lost: no older version is listed as current
            click.echo(safe(f"warning: the current value of {r.key} was lost to damage ('mem log {r.key}' "
                            "shows what is left)"), err=True)
    if as_json:
        emit_json([{"key": r.key, "versions": r.versions,
                    "current_version": r.current.sealed.version if r.current else None,
                    "id": r.current.id if r.current else None,
                    "valid_from": r.current.sealed.valid_from if r.current else None,
                    **({"set_back": back[r.key]} if r.key in back else {})} for r in rows])
        return
    for r in rows:
        if r.current is None:
            click.echo(safe(f"{r.key}  -/{r.versions}  sealed  no current value ({why[r.key]})" if r.key in why
                            else f"{r.key}  lost/{r.versions}  sealed  current value lost"))
            continue
        mark = (f"  SET BACK: newer v{back[r.key]['newer_version']} is stored ('mem fsck --repair')"
                if r.key in back else "")
        click.echo(safe(f"{r.key}  v{r.current.sealed.version}/{r.versions}  sealed  "
                        f"valid {fmt_time(r.current.sealed.valid_from)}{mark}"))


@command.command("show")
@click.argument("key")
@click.option("--version", "version", type=click.IntRange(1), metavar="N", help="Show version N (default: current).")
@click.option("--all", "show_all", is_flag=True, help="Show every version, newest first.")
@click.option("--raw", is_flag=True, help="Write the exact decrypted bytes, with no newline added.")
@passphrase_file_option
@json_option
@with_store()
def show(key, version, show_all, raw, passphrase_file, as_json, store):
    """Decrypt and print a sealed value (asks for the vault passphrase).

    Prints the current value (the supersession rule of facts), or version
    N, or with --all every version with its metadata.  The passphrase is
    asked on the terminal or read from --passphrase-file.

    \b
    Examples:
      mem sealed show user/bank/pin
      mem sealed show user/bank/pin --version 1
      mem sealed show user/bank/pin --all
      mem sealed show user/bank/pin --passphrase-file ~/.config/mem/pass --json

    Exit status: 0 ok; 2 --all with --version or --raw, an empty passphrase
    file, or no terminal to ask for the passphrase; 4 no such sealed key,
    version or vault, or no current value (its versions are scheduled ahead, as
    mem get says of a plain key); 12 wrong passphrase, or a version not encrypted to
    the vault; 13 a damaged age file, or the current value (or version N)
    was lost to damage (mem fsck --repair kept its place: the older value
    is not shown as current), or the key's ref was set back to an older
    version (a synced folder's older copy): without --version nothing is
    shown (mem fsck --repair sets it forward).
    """
    from objstore import current_sealed, is_empty_place, is_lost_stub, lost_sealed_message, open_identity, open_value
    from objstore import pick_version, sealed_versions
    if show_all and (version is not None or raw):
        raise click.UsageError("--all shows every version; it does not go with --version or --raw")
    chain = sealed_versions(store, key)
    picked = chain if show_all else [pick_version(chain, version)]
    from objstore import IntegrityError, set_back_warning
    back = set_back_warning(store, key)
    if back and version is None:   # the older secret printed as the current one (test42 T13; --all: test43 T4)
        raise IntegrityError(f"sealed show refused: {back}; nothing was shown",
                             hint="'mem fsck --repair' sets the ref forward; then run it again "
                                  "(or --version N for a version the ref's chain holds)")
    identities = open_identity(store, read_passphrase(passphrase_file))
    # --all: a lost or forgotten version's place holds no value (null / "(lost)", "(forgotten)"); alone, a
    # lost one exits 13, a forgotten one 4 (open_value)
    values = [(sv, None if show_all and is_empty_place(sv.sealed) else open_value(identities, sv)) for sv in picked]
    if back:   # an older secret asked for by --version is shown, so say it is old (test39b B17)
        click.echo(f"warning: {safe(back)}", err=True)
    cur = current_sealed(chain)
    cur_id = cur.id if cur is not None else None
    if show_all and cur is None and lost_sealed_message(key, chain):
        click.echo(f"warning: {lost_sealed_message(key, chain)}", err=True)
    if as_json:
        docs = [{**_meta_json(sv, current=sv.id == cur_id),
                 "value": None if data is None else data.decode("utf-8", "replace")} for sv, data in values]
        emit_json(docs if show_all else docs[0])
        return
    if show_all:
        for sv, data in values:
            s = sv.sealed
            mark = "  (current)" if sv.id == cur_id else ""
            click.echo(click.style(f"v{s.version}  {sv.id[:12]}", fg="yellow")
                       + f"  valid {fmt_time(s.valid_from)}  {s.trust}  {s.kind}{mark}")
            text = (("(lost)" if is_lost_stub(s) else "(forgotten)") if data is None
                    else safe(data.decode("utf-8", "replace")))
            for line in text.splitlines() or [""]:
                click.echo(f"    {line}")
        return
    data = values[0][1]
    if raw:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    elif sys.stdout.isatty():
        click.echo(safe(data.decode("utf-8", "replace")))
    else:  # exactly the stored value, as mem get prints a plain one
        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.buffer.flush()


#: the largest age file 'mem sealed import' reads: a sealed value is at most 100,000 characters (4 bytes each
#: in UTF-8), plus age's header, chunk tags and ASCII armor (fresh38 F9: /dev/zero took 10 GB in 7 s)
MAX_AGE_FILE = 1 << 20


def _read_age_file(file: str) -> bytes:
    """The bytes of ``file`` ('-': standard input), at most
    :data:`MAX_AGE_FILE`.  Raises InvalidInput (exit 2) for a larger one, or
    for a file that is not a regular file (a FIFO, a device: it would block
    or never end; fresh38 F9); nothing is stored."""
    import os
    import stat

    from objstore import InvalidInput
    if file == "-":
        data = sys.stdin.buffer.read(MAX_AGE_FILE + 1)
    else:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise InvalidInput(f"{file} is not a regular file: an age file is (nothing was stored)")
            data = f.read(MAX_AGE_FILE + 1)
    if len(data) > MAX_AGE_FILE:
        raise InvalidInput(f"{'standard input' if file == '-' else file} is over {MAX_AGE_FILE:,} bytes: no age "
                           "file of a sealed value is (nothing was stored)")
    return data


@command.command("import")
@click.argument("key")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--kind", type=click.Choice(["user", "feedback", "project", "reference"]),
              help="Kind of fact (default: from the scope, or the current version's kind).")
@click.option("--trust", type=click.Choice(["user_stated", "agent_observed", "derived"]),
              help="Who vouches for the value (default: user_stated, agent_observed when run by an agent).")
@click.option("--valid-from", type=TimeType(),
              help="When the value starts to hold (default now, or 1 ms after the version it replaces if that "
                   "one's clock ran ahead).")
@passphrase_file_option
@json_option
@with_store()
def import_(key, file, kind, trust, valid_from, passphrase_file, as_json, store):
    """Store an age file encrypted to the vault as a new sealed version of KEY.

    FILE ('-': standard input) is a binary or ASCII-armored age v1 file
    made for the vault's recipient, e.g. by the stock tool:
    age -r "$(mem vault recipient)".  It is opened with the vault's key (it
    asks for the vault passphrase), in memory only: a file made for another
    recipient is refused.  Its value (less one final line end, as 'mem
    remember KEY -' reads a file) is then written as 'mem remember
    --sensitivity secret' writes it: the same checks (not empty, UTF-8 text,
    at most 100,000 characters), encrypted again to the vault's recipient
    alone, and its seal rules written, so a turn captured later quoting it
    is stored with it withheld, and so is every turn already stored.  A
    file also encrypted to other recipients is stored, with a warning that
    they can read FILE itself.

    \b
    Examples:
      age -r "$(mem vault recipient)" -o pin.age pin.txt
      mem sealed import user/bank/pin pin.age
      age -a -r "$(mem vault recipient)" pin.txt | mem sealed import user/bank/pin - --passphrase-file pp.txt

    Run by an agent (CLAUDECODE, Codex's variables or MEM_AGENT set) the
    version is agent_observed: it never replaces a sealed value the person
    stated (refused, exit 6), and --trust user_stated is refused (exit 6).

    Exit status: 0 stored; 2 not an age file (or not a regular file, or
    over 1 MiB), not encrypted to the
    vault's kind of key or to this vault's key, damaged, a value 'mem
    remember --sensitivity secret' refuses, an empty
    passphrase file, or no terminal to ask for the passphrase; 4 no such
    file or no vault; 6 KEY holds plain values (seal it first), a
    lower-trust version over a user_stated one, or --trust user_stated run
    by an agent; 11 store locked; 12 wrong passphrase.
    """
    import os

    from objstore import default_trust, import_sealed, writing_agent
    agent = writing_agent(os.environ)   # the owner the version stores: no credential (exit 2)
    if agent is not None and trust == "user_stated":
        from objstore import require_person
        require_person(os.environ, "mem sealed import --trust user_stated",
                       instead="leave --trust off: the version is agent_observed")
    trust = trust or default_trust(os.environ)
    data = _read_age_file(file)
    if file == "-" and passphrase_file == "-":
        from objstore import InvalidInput
        raise InvalidInput("FILE and --passphrase-file cannot both be standard input (nothing was stored)")

    def identities():
        from objstore import open_identity
        return open_identity(store, read_passphrase(passphrase_file))

    w = import_sealed(store, key, data, identities, kind=kind, trust=trust, valid_from=valid_from,
                      owner=agent or "user")
    s = w.version.sealed
    if w.other_recipients:   # pin39 (fresh38 F8): the store's copy is the vault's alone, not the file
        click.echo(f"warning: {'standard input' if file == '-' else safe(file)} is also encrypted to "
                   f"{plural(w.other_recipients, 'other recipient')}: whoever holds their keys can read the "
                   "value from it (the store keeps it encrypted to the vault's key alone); delete it, and "
                   "change the value if they should not know it", err=True)
    if as_json:
        emit_json({"key": w.key, "id": w.version.id, "version": s.version, "previous": w.previous,
                   "current": w.current, "sealed": True, "turns_quoting": w.turns_quoting,
                   "other_recipients": w.other_recipients})
        return
    click.echo(f"sealed {w.key} v{s.version} {w.version.id[:12]} (imported)" + withheld_note(w.turns_quoting))


@command.command("export")
@click.argument("key")
@click.option("--version", "version", type=click.IntRange(1), metavar="N", help="Version N (default: current).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="Write to FILE (default: standard output).")
@click.option("-a", "--armor", is_flag=True, help="Write the ASCII-armored (PEM) form.")
@with_store()
def export(key, version, output, armor, store):
    """Write a sealed version's age file, still encrypted, for the age tool.

    No passphrase is needed: the output is the ciphertext.  The stock tool
    decrypts it with the vault's identity file (it asks for the vault
    passphrase): age -d -i <store>/vault/identity.age FILE.

    \b
    Examples:
      mem sealed export user/bank/pin -o pin.age
      mem sealed export user/bank/pin | age -d -i ~/.mem/vault/identity.age

    Exit status: 0 written; 2 binary output to a terminal (use -o or
    --armor), an -o inside the store or in a folder that does not exist;
    4 no such sealed key or version; 13 the key's ref was set back to an
    older version (a synced folder's older copy): without --version
    nothing is written (mem fsck --repair sets it forward; --version N
    writes that version, with a warning).
    """
    from objstore import InvalidInput, IntegrityError, set_back_warning
    from objstore import NotFound, armor_sealed, forgotten_stub_time, pick_version, sealed_versions
    refuse_output_in_store(store, output)
    refuse_missing_folder(output)   # (fresh41 F8: "no such file", exit 4, as for a key)
    if back := set_back_warning(store, key):   # the older secret as "the current one" (test41 T24)
        if version is None:
            raise IntegrityError(f"sealed export refused: {back}; nothing was written",
                                 hint="'mem fsck --repair' sets the ref forward; then run it again "
                                      "(or --version N for that version)")
        click.echo(f"warning: {safe(back)}", err=True)
    sv = pick_version(sealed_versions(store, key), version)
    if forgotten_stub_time(sv.sealed) is not None:
        raise NotFound(f"{key} v{sv.sealed.version} was forgotten (mem forget): it holds no age file")
    data = armor_sealed(sv.sealed.age) if armor else sv.sealed.age
    if output == "-":
        if not armor and sys.stdout.isatty():
            raise InvalidInput("refusing to write a binary age file to the terminal",
                               hint="use -o FILE, --armor, or a pipe")
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        import os
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        click.echo(f"wrote {key} v{sv.sealed.version}'s age file ({plural(len(data), 'byte')}, still encrypted"
                   f"{', armored' if armor else ''}) to {output}", err=True)   # (fresh41 F8: it said nothing)


@command.command("forget")
@click.argument("key")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation (for scripts).")
@json_option
@with_store()
def forget(key, yes, as_json, store):
    """Delete every sealed version of KEY, without decrypting anything.

    The sealed versions, their ref and reflog are removed at once; no
    tombstone is written (mem never knew the values without the passphrase).

    \b
    Examples:
      mem sealed forget user/old/pin
      mem sealed forget user/old/pin --yes

    Forgetting is the person's decision: run by an agent (CLAUDECODE,
    Codex's variables or MEM_AGENT set) it is refused with exit 6, even
    with --yes, and nothing is deleted.

    Exit status: 0 forgotten; 1 not confirmed; 4 no such sealed key;
    6 run by an agent; 11 store locked.
    """
    import os

    from objstore import forget_sealed, require_person, sealed_versions
    require_person(os.environ, "mem sealed forget")   # as mem forget: an agent may ask, never forget
    chain = sealed_versions(store, key)
    if not yes:
        click.echo(safe(f"will delete {plural(len(chain), 'sealed version')} of {chain[0].sealed.key}"), err=True)
        confirm_or_exit("forget them for good?")
    n = forget_sealed(store, key)
    if as_json:
        emit_json({"key": chain[0].sealed.key, "objects_deleted": n})
        return
    click.echo(f"forgot {chain[0].sealed.key}: {plural(n, 'sealed version')} deleted")


@command.command("rebuild-rules")
@passphrase_file_option
@json_option
@with_store()
def rebuild_rules(passphrase_file, as_json, store):
    """Write the local seal rules (the file seal-rules) again from every sealed value.

    mem seal writes, for each sealed value, a keyed digest in seal-rules
    (never pushed), by which a turn captured or pulled later is stored with
    the value withheld.  When that file was deleted, cut short or damaged,
    or the key was sealed before those rules existed (mem fsck and mem
    doctor name it; the hooks log DamagedSealRules), this decrypts every
    sealed version (it asks for the vault passphrase) and writes the rules
    again, whole: a line that does not parse goes.  The rules of values
    'mem forget KEY' withheld cannot be rebuilt (their values are gone);
    those that parse are kept, and when the file was lost or damaged it
    names each forgotten key left with no rule (its value, quoted in a
    later turn, is stored in the clear: 'mem forget --match VALUE'
    withholds it again; --json: forgotten_unruled).

    \b
    Examples:
      mem sealed rebuild-rules
      mem sealed rebuild-rules --passphrase-file pp.txt --json

    The vault is looked for first: with none, nothing is asked (exit 0
    when nothing is sealed either, 4 when sealed keys are stored: their
    values cannot be read without it).  With a vault the passphrase is
    always checked against it, also when nothing is sealed.

    Exit status: 0 written (or nothing sealed; the passphrase was checked
    when a vault exists); 2 an empty passphrase file, no terminal to ask
    for the passphrase, or a folder given as the file; 4 no vault while
    sealed keys are stored, or no such passphrase file; 12 wrong
    passphrase; 13 a damaged age file; 11 store locked.
    """
    from objstore import (NotFound, list_sealed, open_identity, rebuild_seal_rules, seal_forgets_unruled,
                          seal_rules_problem, vault_info)
    sealed = list_sealed(store)
    lost = seal_rules_problem(store) is not None   # (the rules of forgotten values went with it: fresh43 F7)
    try:
        vault_info(store)
    except NotFound:   # asked for no passphrase to a vault that is not there (fresh35 F5)
        if sealed:
            raise NotFound(f"this store has no vault, but {plural(len(sealed), 'sealed key')}: their values "
                           "cannot be read, nothing was changed",
                           hint="restore the store's vault/ folder from a backup (a new 'mem vault init' "
                                "makes a new key, which cannot open them)") from None
        keys, added, checked = 0, 0, False
    else:   # the passphrase checked whenever a vault exists (fresh35 F4)
        identity = open_identity(store, read_passphrase(passphrase_file))
        keys, added = rebuild_seal_rules(store, identity) if sealed else (0, 0)
        checked = True
    unruled = seal_forgets_unruled(store) if lost and sealed else []
    if as_json:
        emit_json({"sealed_keys": keys, "rules_added": added, "forgotten_unruled": unruled})
        return
    if not sealed:
        click.echo("nothing is sealed: no seal rules to write" + (" (the passphrase opens the vault)"
                                                                  if checked else " (and this store has no vault)"))
        return
    click.echo(f"seal rules of {plural(keys, 'sealed key')} written ({plural(added, 'rule')} added)")
    if unruled:
        names = ", ".join(unruled[:5]) + (" …" if len(unruled) > 5 else "")
        click.echo(f"warning: {plural(len(unruled), 'key')} forgotten with 'mem forget KEY' now {'have' if len(unruled) != 1 else 'has'} "
                   f"no rule withholding the forgotten value ({names}): it was in the lost part of seal-rules and "
                   "cannot be rebuilt (the value is gone; a value under 8 characters never had one), so a turn "
                   "captured or pulled from now on, or an agent's sentence, quoting it is stored in the clear; "
                   "'mem forget --match VALUE' withholds it again", err=True)
