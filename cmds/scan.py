"""mem scan."""

import os
from pathlib import Path

import click

from ._common import ExistingPath, emit_json, json_option, with_store


@click.command("scan")
@click.argument("text", required=False)
@click.option("--file", "files", multiple=True, type=ExistingPath(dir_okay=False),
              help="Also search this file (repeatable).")
@click.option("--no-remotes", is_flag=True, help="Do not read the remotes and backups back.")
@json_option
@with_store()
def command(text, files, no_remotes, as_json, store):
    """Show every place TEXT still exists: store, index, transcripts, shell history.

    Searches the store's objects (decoded, matching as forget does: case
    and white space ignored, and as the seal and forget checks read a text:
    Turkish dotless i, a value's parts joined by other separators or none,
    "okapi quetzal" for "okapi-quetzal", "红色 大象" for "红色大象";
    the names they carry too: keys, session ids,
    sub-agent and agent names; the objects of a temp file a write left
    under objects/, as far as they decompress), every other file of the store (logs,
    caches, the review shell's history, the quarantine's packs by their
    objects: a damaged one is searched in what still decompresses and
    named on stderr as skipped, never a match; a FIFO, a device or a
    socket is not read, and named as skipped) and the names of its files
    (a ref is named by its key), the search index, the agent transcripts
    the store captured from (imported, or read by the hooks) and their file
    and folder names (Claude Code names a folder after the working
    directory: mem cannot rename it, the scan says so), the Markdown
    notes it imported, your shell history files, every remote and backup
    (read back and decrypted with the sync key), and any --file.
    Use it to check a forget.  Without TEXT it asks for it without echo, so
    a secret is not left in your shell history.  The text is never printed.

    \b
    Examples:
      mem scan                      # asks for the text
      mem scan "hunter2"
      mem scan "staging password" --file ~/notes.txt --json

    Exit status: 0 found nowhere; 1 found somewhere (the reverse of grep:
    `if mem scan X; then` means X was found nowhere); 2 a blank text;
    3 found nowhere it looked, but not everything could be read (each named
    on stderr): a remote, a damaged remotes.json, a file of the store that
    does not open (a symlink whose target is gone, no permission), the rest
    of a damaged pack, a --file, or captured transcript files a forget hid
    the names of (a FIFO, a device or a socket stores nothing: named, not
    counted); 10 no store.
    """
    from objstore import imported_notes, scan_everywhere, shell_histories

    from .import_ import captured_sources, unchecked_note
    if text is None:
        import sys
        if sys.stdin.isatty():
            text = click.prompt("text to scan for", hide_input=True, err=True)
        else:  # piped: the first line, no prompt (and no echo warning)
            text = sys.stdin.readline().rstrip("\n")
    if not text.strip():
        raise click.BadParameter("the text is blank", param_hint="TEXT")
    extra = shell_histories(os.path.expanduser("~"), os.environ.get("HISTFILE", ""),
                            os.environ.get("XDG_DATA_HOME", ""))
    blobs, unreadable = _remote_blobs(store, no_remotes)
    notes = imported_notes(store)  # Markdown notes 'mem import markdown' read
    transcripts, unchecked = captured_sources(store)
    hits = scan_everywhere(store, text, transcripts=transcripts,
                           files=[*extra, *notes, *map(Path, files)], blobs=blobs)
    for name, why in unreadable:
        click.echo(f"could not read the remotes: {why}" if name == "(remotes.json)" else
                   f"could not read remote {name}: {why}", err=True)
    skipped = [h for h in hits if h.place == "skipped"]
    hits = [h for h in hits if h.place != "skipped"]
    for h in skipped:
        click.echo(f"skipped {h.where}: {h.detail}", err=True)
    if unchecked:
        click.echo(f"skipped {unchecked_note(unchecked)}", err=True)
    from objstore import scan_left_unread
    partial = bool(unchecked or unreadable or scan_left_unread(skipped))
    if as_json:
        emit_json([{"place": h.place, "where": h.where, "detail": h.detail} for h in hits])
    elif not hits:
        click.echo(("found nowhere it could read: " if partial else "found nowhere: ") + _nowhere(store, no_remotes, len(unreadable), extra)
                   + (f" ({unchecked} captured transcript {'file' if unchecked == 1 else 'files'} not checked: "
                      "see above)" if unchecked else ""))
    else:
        for h in hits:
            click.echo(f"{h.place:<11} {h.where}" + (f"  {h.detail}" if h.detail else ""))
        from objstore import kept_only_by_reflogs, keys_naming
        click.echo(_next_step(hits, keys_naming(store, text), kept_only_by_reflogs(store, hits)), err=True)
    if hits:
        raise click.exceptions.Exit(1)
    if partial:
        # found nowhere it could look, but not everything was looked at: captured transcripts not found
        # (test26b W2), a remote or remotes.json, a store file that does not open (F10/F14: exit 0)
        if not as_json:
            click.echo("not everything could be read (named above): the text may still be there", err=True)
        raise click.exceptions.Exit(3)


def _nowhere(store, skipped: bool, unreadable: int, histories=()) -> str:
    """Where a scan that found nothing looked, remotes included (their
    names: a remote not read is said so, never counted as clean), the
    shell history files by name (test27 V17: "the shell history" read as
    every history, while a custom ``$HISTFILE`` not exported was not read)."""
    from objstore import IntegrityError, list_remotes, shown_path
    try:
        names = [] if skipped else [spec.name for spec in list_remotes(store)]
    except IntegrityError:   # damaged remotes.json: _remote_blobs named it as not read
        names = []
    hist = (", ".join(shown_path(str(p)) for p in histories) if histories else
            "no shell history file (none of ~/.bash_history, ~/.zsh_history, fish's, ~/.histfile, $HISTFILE)")
    if "HISTFILE" not in os.environ:   # bash and zsh keep it unexported (test27b X4): say how to hand it over
        hist += " ($HISTFILE is not in this command's environment: HISTFILE=$HISTFILE mem scan … reads yours)"
    looked = f"not in the store, the index, the captured transcripts, {hist}"
    if skipped:
        return looked + " (remotes and backups not read: --no-remotes)"
    if unreadable:
        return looked + f" or the remotes read ({unreadable} could not be read: see above)"
    if not names:
        return looked + " (no remotes)"
    return looked + " or the remotes and their backups (" + ", ".join(names) + ")"


def _next_step(hits, keys: list[str], reflog_only=()) -> str:
    """What removes what was found: a forget for what is here, a push for
    a remote's packs (a forget here is done once; the push carries its
    tombstones and rewrites the remote packs that still hold the value),
    ``mem forget KEY`` for the ``keys`` whose name holds the text
    (forget --match empties values, never a key's name), and ``mem fsck
    --repair`` for the ``reflog_only`` object hits that a reflog entry alone
    keeps (forget --match does nothing there)."""
    from ._out import plural, safe
    remotes = sorted({h.place.split(" ", 1)[1] for h in hits if h.place.startswith("remote ")})
    kept = set(map(id, reflog_only))
    from objstore import scan_name_holds   # (a name: no forget renames a file, test43 T8)
    kept.update(id(h) for h in hits if h.detail.startswith(scan_name_holds))
    local = [h for h in hits if not h.place.startswith("remote ") and id(h) not in kept]
    out = f"found in {plural(len(hits), 'place')}"
    if reflog_only:
        out += (f"; {plural(len(reflog_only), 'object')} only a reflog entry keeps ("
                + ", ".join(h.where[:12] for h in reflog_only[:3]) + (", …" if len(reflog_only) > 3 else "")
                + "): 'mem fsck --repair' drops the entry when a tombstone forgets what it keeps, "
                "then 'mem gc --prune=now' deletes it")
    if local:
        out += ("; 'mem forget --match TEXT' removes it from the store" + (" where a value or a turn holds it" if keys else "")
                + ", --scrub-sources from the transcripts and the shell history")
    from objstore import scan_spelled_otherwise
    if any(h.detail.endswith(scan_spelled_otherwise) for h in local):   # (han40: read as the seal/forget checks read)
        out += ("; a place marked 'spelled otherwise' holds it with other separators, casing or spacing: "
                "'mem forget --match' of that spelling, or 'mem forget KEY', removes it")
    if keys:
        out += (f"; the name of {plural(len(keys), 'key')} holds it ("
                + ", ".join(safe(k) for k in keys[:5]) + (", …" if len(keys) > 5 else "")
                + "): 'mem forget KEY' forgets a key whole, --match never renames one")
    if remotes:
        push = " and ".join(f"'mem push {n}'" for n in remotes)
        out += (f"; then {push} carries the forget there" if local else f"; only on remotes: {push}") \
            + " and rewrites the remote packs that hold it ('mem backup' the backups)"
    return out


def _remote_blobs(store, skip):
    """Every remote's objects as (place, name, plaintext), and the remotes that could not be read."""
    from objstore import MemError, list_remotes, remote_plaintexts
    if skip:
        return [], []
    blobs, bad = [], []
    from objstore import IntegrityError
    try:
        specs = list_remotes(store)
    except IntegrityError as e:   # (test38 T7: scan, the command that says where a secret still is, exited 13)
        return [], [("(remotes.json)", e.message)]
    for spec in specs:
        try:
            blobs += [(f"remote {spec.name}", name, data) for name, data in remote_plaintexts(store, spec, os.environ)]
        except MemError as e:
            bad.append((spec.name, e.message))
    return blobs, bad
