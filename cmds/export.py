"""mem export."""

import sys

import click

from ._common import emit_json, plural, with_store
from ._out import refuse_existing_file, refuse_missing_folder, refuse_output_in_store


@click.command("export")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "markdown"]), default="jsonl", show_default=True,
              help="jsonl: every object and ref, for 'mem import jsonl'; markdown: a tree to read.")
@click.option("--scope", metavar="SCOPE", help="Only keys in SCOPE or under a key prefix (user, project/NAME, …).")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=True, allow_dash=True),
              help="File (jsonl) or folder (markdown); jsonl goes to stdout without it or with '-'.")
@click.option("--guard-passphrase-file", "guard_file", metavar="FILE", type=click.Path(dir_okay=False, allow_dash=True),
              help="jsonl: carry the forget guard (what lets a store recognize a forgotten value), sealed to the "
                   "passphrase on FILE's first line ('-': stdin); give the same to 'mem import jsonl'.")
@click.option("--force", is_flag=True, help="jsonl: replace an existing -o FILE (refused without it).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary on stderr (counts).")
@with_store()
def command(fmt, scope, out, guard_file, force, as_json, store):
    """Export the store: JSON lines that import back exactly, or Markdown.

    The jsonl export holds every fact version, tombstone, session turn and
    queue item with its id, then the refs; 'mem import jsonl FILE' into an
    empty store gives back the same ids, histories and current values.
    The markdown export is a folder with one file per key (current value and
    history) and per session; it goes into a new or empty folder, or
    replaces a previous markdown export whole (its .mem-export file), so
    keys forgotten since leave no file.  Sealed values are never exported.  The
    export holds your memory in the clear: keep it as private as the store.

    A forgotten value is never in the file, nor is what lets a store
    recognize it (the hash key, tombstone-digests, seal-rules): those
    would give a short forgotten value, a PIN, back in a few thousand
    tries.  So in a store that imports a plain export an agent can write
    a forgotten value back, and export says so on stderr.
    --guard-passphrase-file FILE carries that guard sealed to a passphrase
    (age, scrypt); 'mem import jsonl F --guard-passphrase-file FILE' keeps
    it, and the forgets then stop their values there too.

    \b
    Examples:
      mem export -o memory.jsonl
      mem export -o - | gzip > memory.jsonl.gz
      mem export --format markdown -o ~/memory-export
      mem export --scope project/acme-api > acme.jsonl
      mem export -o memory.jsonl --guard-passphrase-file ~/.guard-pass

    Exit status: 0 ok; 1 the output cannot be written; 2 bad option (markdown
    needs -o FOLDER, not '-'; a bad --scope; an -o inside the store or a
    folder remote, which would replace their own files; an -o FILE that
    exists, without --force; an -o FILE whose folder is missing or a file:
    mem creates the file, never the folders above it; --guard-passphrase-file
    with markdown, or a passphrase shorter than the vault's minimum); 6 a
    forget was stopped before it finished (rerun it first; nothing is
    written), or the markdown folder holds files and is not a previous
    export (nothing is written); 10 no store; 13 a key set back to an older
    version (its older value would be exported as current; nothing is
    written: mem fsck --repair first).
    """
    import json

    import os

    from objstore import InvalidInput, export_jsonl, export_markdown, refuse_while_stopped, validate_key
    refuse_while_stopped(store, "export")   # before -o truncates a file
    refuse_output_in_store(store, out)
    guard_pw = None
    if guard_file is not None:
        if fmt != "jsonl":
            raise click.BadParameter("only the jsonl export carries a forget guard", param_hint="--guard-passphrase-file")
        from objstore import check_passphrase
        from ._vault import read_passphrase
        guard_pw = read_passphrase(guard_file, check=lambda pw: check_passphrase(pw, "guard"))   # (test41 T32)
    if out == "-" and fmt == "jsonl":
        out = None   # '-' is stdout, as 'mem import -' reads stdin (tester finding W10)
    if scope is not None:
        try:
            validate_key(scope.rstrip("/") + "/x")
        except InvalidInput:
            raise click.BadParameter(f"{scope!r} is not a scope or key prefix (user, global, project/NAME, …)",
                                     param_hint="--scope") from None
    try:
        if fmt == "markdown":
            if not out:
                raise click.UsageError("--format markdown writes a folder: give -o FOLDER")
            if out == "-":
                raise click.BadParameter("markdown is written into a folder, not stdout", param_hint="-o")
            if os.path.exists(out) and not os.path.isdir(out):
                raise click.BadParameter(f"{out} is a file; markdown is written into a folder", param_hint="-o")
            r = export_markdown(store, out, scope=scope)
        elif out:
            refuse_existing_file(out, force)   # (fresh42 F16: a person's file, a remote's manifest, replaced)
            refuse_missing_folder(out)   # minor39 (test39 m5): it said 'no such file' and exited 4, as a key's
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with open(fd, "w", encoding="utf-8") as f:
                r = export_jsonl(store, f, scope=scope, guard_passphrase=guard_pw)
        else:
            r = export_jsonl(store, sys.stdout, scope=scope, guard_passphrase=guard_pw)
    except (IsADirectoryError, NotADirectoryError, PermissionError, OSError) as e:
        if isinstance(e, (FileNotFoundError, BrokenPipeError)):
            raise   # FileNotFoundError: the CLI's "no such file" (4: a folder gone since the check); a reader gone (`| head -1`): 141, quietly
        raise click.ClickException(f"cannot write {out or 'stdout'}: {e.strerror or e}") from None
    summary = {"format": fmt, "objects": r.objects, "refs": r.refs, "sealed_skipped": r.sealed_skipped}
    tombs = r.objects.get("tombstone", 0)
    if fmt == "jsonl":
        summary["guard"] = {"carried": r.guard_carried, "pairs": r.guard_pairs, "rules": r.guard_rules}
    if as_json:
        click.echo(json.dumps(summary), err=True)
        return
    if out:
        n = sum(r.objects.values())
        click.echo(f"exported {n} objects and {r.refs} refs to {out}"
                   + (f"; {r.sealed_skipped} sealed key(s) left out" if r.sealed_skipped else ""), err=True)
    if fmt == "jsonl" and r.guard_carried:
        click.echo(f"the file carries the forget guard of its {plural(tombs, 'tombstone')} sealed to your passphrase "
                   f"({plural(r.guard_pairs, 'digest')}, {plural(r.guard_rules, 'forgotten-value rule')}; never a "
                   "forgotten value, never the hash key): import it with 'mem import jsonl FILE "
                   "--guard-passphrase-file FILE'", err=True)
    elif fmt == "jsonl" and (r.guard_pairs or r.guard_rules):   # (test40 T12, fresh40 F8: it said nothing)
        click.echo(f"note: the file holds {plural(tombs, 'tombstone')} but not the forget guard that lets a store "
                   "recognize their values (no forgotten value, hash key, tombstone-digests or seal-rules is in it): "
                   "in a store that imports it, an agent can write a forgotten value back; "
                   "--guard-passphrase-file FILE carries the guard sealed to a passphrase", err=True)
