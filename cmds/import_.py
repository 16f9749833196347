"""mem import."""

import os
from pathlib import Path

import click

from ._common import ExistingPath, emit_json, json_option, plural, progress_bar, safe, with_store
from ._out import refill_summary


def default_paths(harness: str) -> list[str]:
    """Where the harness keeps its transcripts on this machine (one folder:
    ``cmds._hooktranscript.harness_folders``, the hook's rule too)."""
    from ._hooktranscript import harness_folders
    return [harness_folders(os.environ)["codex" if harness == "codex" else "claude-code"]]


def transcript_roots() -> list[str]:
    """Every harness's transcript folder on this machine: where ``mem scan``
    and ``forget --scrub-sources`` look for the files a forget hid in the
    ledger of imported files (``objstore.imported_sources``, ``roots``)."""
    return [p for h in ("claude-code", "codex") for p in default_paths(h)]


def captured_sources(store, damaged: list[str] | None = None) -> tuple[list[str], int]:
    """The transcript files ``mem scan`` and ``forget --scrub-sources`` read
    (``objstore.imported_sources`` with the harnesses' folders and the
    neighbours) and how many captured files a forget hid the names of and
    that were found nowhere (not checked; :func:`unchecked_note`)."""
    from objstore import imported_sources
    unfound: list[int] = []
    paths = imported_sources(store, damaged, roots=transcript_roots(), neighbours=True, unfound=unfound)
    return paths, sum(unfound)


def unchecked_note(n: int) -> str:
    """What a scan or a scrub says of ``n`` captured files it could not check (test26 V10)."""
    return (f"{plural(n, 'captured transcript file')} not checked: a forget hid "
            f"{'its name' if n == 1 else 'their names'} and {'it is' if n == 1 else 'they are'} in none of the "
            "folders imports were given nor the harnesses' folders (moved or deleted?); "
            "a 'mem import' of the folder they are in now lets scan and --scrub-sources find them")


#: what a folder given to ``mem import HARNESS`` is searched for (the names the harness gives its
#: transcripts: objstore.capture.claude_code.discover / codex.discover); a file named directly is read
#: whatever its name
_FOLDER_FILES = {"claude-code": "*.jsonl files", "codex": "rollout-*.jsonl files (the names Codex gives them)"}


@click.command("import")
@click.argument("harness", type=click.Choice(["claude-code", "codex", "jsonl", "markdown", "codex-memory", "claude-memory"]))
@click.argument("paths", nargs=-1, type=ExistingPath())
@click.option("--scope", default="user", show_default=True, metavar="SCOPE",
              help="markdown/codex-memory: the scope of the keys made from file paths.")
@click.option("--keep-existing", is_flag=True, help="jsonl: where this store already has a ref at another "
              "version, keep it (the export's versions of it are then not kept); by default the import refuses.")
@click.option("--mine", is_flag=True, help="markdown: the notes are your own words (trust user_stated); "
              "by default imported notes are agent_observed and never overrule you.")
@click.option("--reread", is_flag=True, help="Transcripts: read every file, also those unchanged since the last import.")
@click.option("--guard-passphrase-file", "guard_file", metavar="FILE", type=click.Path(dir_okay=False, allow_dash=True),
              help="jsonl: open the forget guard 'mem export --guard-passphrase-file' sealed into the file with the "
                   "passphrase on FILE's first line ('-': stdin), so its forgets stop their values here too.")
@json_option
@with_store(create=True)
def command(harness, paths, scope, keep_existing, mine, reread, guard_file, as_json, store):
    """Import agent transcripts as sessions of turns.

    PATHS are transcript files or folders: for claude-code a whole
    ~/.claude/projects tree (the default), one project folder or single
    .jsonl files, subagent transcripts included in all three layouts; for
    codex the rollout files under ~/.codex/sessions (the default; a folder
    is searched for Codex's names, rollout-*.jsonl, and a file named
    directly is read whatever its name); for
    jsonl the files 'mem export' wrote ('-': standard input; ids are checked, so the histories
    come back exactly; a ref the store already has at another version
    refuses the import, exit 6, unless --keep-existing keeps the store's).
    Importing the same files again adds nothing, and a transcript unchanged
    since this store last read it (same size, times, inode and first and
    last bytes) is not read at all; --reread reads it anyway.  After 'mem fsck
    --repair' kept a lost turn's place with a "lost" placeholder, --reread of
    the session's transcript puts the turn back in that place (the turns
    after it get their ids from before the damage back when it is rebuilt
    exactly; a forgotten turn comes back emptied).  A bad line or an
    unreadable file is skipped and counted, never fatal.  Tool results are
    cut to 4,000 characters.  The summary counts every session in the
    files given, as mem sessions lists them: a sub-agent's transcript is a
    session of its own (<session>.agent-<id>), counted and named as a
    sub-agent: "N new, M already stored" counts sessions (those of unchanged
    files are already stored), then the turns read that were already
    stored (--reread), then the unchanged files not read (--json: the same
    counts, sessions_already_stored and turns_already_stored among them).
    markdown reads every .md file under the folders given, never a file
    outside them through a symlink (skipped and named on stderr).
    claude-memory reads the Claude home folder given (default
    ~/.claude): its CLAUDE.md and projects/*/memory/*.md, or the one memory
    file named directly.

    \b
    Examples:
      mem import claude-code
      mem import claude-code ~/.claude/projects/-home-me-api --json
      mem import codex ~/.codex/sessions/2026/03
      mem import jsonl memory.jsonl
      mem import markdown ~/notes --scope project/acme-api
      mem import codex-memory
      mem import claude-memory
      mem import claude-memory ~/.claude/CLAUDE.md

    Run by an agent (CLAUDECODE, Codex's variables or MEM_AGENT set), a
    jsonl import brings in only what the agent could write itself: a fact
    stated user_stated, pinned, curated or standing, a memory file, a
    value that reads like an instruction or holds a credential, or a
    tombstone refuses the whole import (exit 6) before any ref moves.
    Imported tombstones that hold a value's keyed digest cannot recognize
    the value in this store (what does never travels in the clear): a
    note on stderr counts them, unless the export carries its forget guard
    (mem export --guard-passphrase-file) and --guard-passphrase-file gives
    its passphrase: then the tombstones stop their values here as there.
    A jsonl fact version of any trust that holds a text 'mem forget
    --match' forgot here and was recorded before that forget is left out
    with its key's later versions, as a pull forgets it (named on stderr;
    a value the person stated after the forget is kept, as mem remember
    keeps it).

    A transcript whose file name holds a credential (a session id is taken
    from it) is skipped whole, and a session id holding one has its turns
    skipped: each is counted and named on stderr with the credential
    masked, nothing of it is stored. A transcript in a folder whose path
    holds one is skipped whole too (not named); a turn whose recorded
    working directory holds one is stored without its directory and
    project (`paths_refused` in `--json`).

    A prompt "forget that" right after a "remember that" takes back what
    that prompt filed, as the prompt hook does (docs/derive.md); each key
    is named in the prompt hook's words (`taken_back` in `--json`: key and
    how, "forgotten", "restored" or "kept").

    A file that is no transcript at all (a FIFO or device, or one in
    which no line is a transcript record: binary, another format) is
    skipped, counted and named on stderr; when every file found is such
    a file, the import exits 2 (a folder holding transcripts too exits 0).
    So does a folder given that holds files but none named as a transcript
    (a binary file, notes: nothing in it is one); an empty folder, or the
    default one missing or holding nothing, exits 0 with a hint. A path holding a
    credential is never echoed in these messages.

    Exit status: 0 ok (even with skipped lines or files of transcripts and
    notes; a jsonl ref whose history holds what this store forgot is
    skipped and named); 2 no file found is a transcript (above), a jsonl line is damaged, or a jsonl object's
    session id, namespace or owner holds a credential (the field named,
    no ref changed); 4 a path does not exist;
    6 a jsonl ref exists here at another version (see --keep-existing), an
    agent imports a jsonl holding forgotten or person-only content (above),
    or --mine run by an agent; 11 store locked; 12 the guard passphrase is
    wrong (nothing imported); 14 a jsonl export written by a newer mem.
    """
    if guard_file is not None and harness != "jsonl":
        raise click.BadParameter("only 'mem import jsonl' reads a forget guard", param_hint="--guard-passphrase-file")
    if harness == "jsonl":
        return _import_jsonl(store, paths, as_json, keep_existing, guard_file)
    if harness == "claude-memory":
        return _import_claude_memory(store, paths, as_json)
    if harness in ("markdown", "codex-memory"):
        if mine:  # --mine states the notes as the person's own words (user_stated)
            from objstore import require_person
            require_person(os.environ, "mem import --mine",
                           instead="import without --mine: the notes are agent_observed and never overrule the user")
        return _import_markdown(store, harness, paths, scope, mine, as_json)
    from objstore import import_transcripts
    given = bool(paths)
    missing = None
    if not paths:
        paths = tuple(p for p in default_paths(harness) if Path(p).exists())
        if not paths:   # the harness never ran here: nothing to import yet, as an empty folder (test25 T11)
            missing = default_paths(harness)[0]
    with progress_bar("importing") as update:
        r = import_transcripts(store, harness, paths, progress=update, reread=reread)
    # one unit per count: sessions (an unchanged file's are already stored), and the turns read that were
    sessions_stored = r.sessions - r.sessions_new
    turns_stored = r.turns_seen - r.turns_added - r.turns_skipped
    if as_json:
        emit_json({"harness": harness, "files": r.files, "files_skipped": r.files_skipped,
                   "files_not_transcripts": r.files_not_transcripts, "files_other": r.files_other, "files_unchanged": r.files_unchanged,
                   "sessions": r.sessions, "subagent_sessions": r.subagent_sessions, "sessions_new": r.sessions_new,
                   "sessions_already_stored": sessions_stored,
                   "turns_added": r.turns_added, "turns_seen": r.turns_seen, "turns_skipped": r.turns_skipped,
                   "turns_already_stored": turns_stored,
                   "lines": r.lines, "lines_skipped": r.lines_skipped, "records_ignored": r.records_ignored,
                   "turns_forgotten": r.turns_forgotten, "secrets_redacted": r.secrets_redacted, "paths_refused": r.paths_refused,
                   "turns_refilled": r.turns_refilled, "gaps_refilled": r.gaps_refilled,
                   "gaps_verified": r.gaps_verified,
                   "errors": r.errors, "index_error": r.index_error,
                   "taken_back": [{"key": d.key, "how": d.how} for d in r.taken_back]})
    else:
        click.echo(f"imported {plural(r.turns_added, 'new turn')} from {plural(r.files, 'file')} "
                   + (f"and skipped {r.files_skipped} " if r.files_skipped else "")
                   + f"({plural(r.sessions, 'session')}"
                   + (f" incl. {plural(r.subagent_sessions, 'sub-agent')}" if r.subagent_sessions else "")
                   + f": {r.sessions_new} new, {sessions_stored} already stored"
                   + (f"; {plural(turns_stored, 'turn')} read again, already stored" if turns_stored else "")
                   + (f"; {plural(r.files_unchanged, 'unchanged file')} not read again" if r.files_unchanged else "")
                   + ")")
        if r.taken_back:   # "forget that" prompts, as the prompt hook says them
            from objstore import takeback_lines
            for ln in takeback_lines(r.taken_back, safe):
                click.echo(ln)
        if r.turns_refilled:
            click.echo(f"put {plural(r.turns_refilled, 'recovered turn')} back in the places of lost ones "
                       f"(mem fsck --repair's placeholders); {refill_summary(r.gaps_refilled, r.gaps_verified)}")
        if missing is not None:
            click.echo(f"hint: no {harness} transcripts yet: {_shown_paths((missing,))} does not exist; "
                       "give PATHS to import from elsewhere", err=True)
        elif r.files == 0 and r.files_skipped == 0 and not (given and r.files_other):
            click.echo(f"hint: no {harness} transcripts found under {_shown_paths(paths)}: "
                       f"a folder is searched for {_FOLDER_FILES.get(harness, 'transcript files')} only; "
                       "name a file to import it whatever its name", err=True)
        if r.secrets_redacted:
            click.echo(f"redacted {plural(r.secrets_redacted, 'credential')} before storing", err=True)
        if r.paths_refused:
            click.echo(f"stored {plural(r.paths_refused, 'turn')} without a working directory or project: "
                       "its path holds a credential", err=True)
        if r.lines_skipped:
            click.echo(f"skipped {plural(r.lines_skipped, 'bad line')} (not JSON, truncated, invalid text, "
                       "or longer than 64 MiB)", err=True)   # test25 T17: a valid record too long is one
    for e in r.errors[:20]:
        click.echo(f"warning: {safe(e)}", err=True)   # a file name's control bytes as \xNN
    if r.index_error:
        click.echo(f"warning: turns are stored but the search index was not updated: {r.index_error}\n"
                   "hint: run 'mem reindex'", err=True)
    if r.files == 0 and (r.files_not_transcripts == r.files_skipped > 0 or (given and not r.files_skipped
                                                                              and r.files_other)):
        from objstore import InvalidInput
        what = (f"{plural(r.files_not_transcripts, 'file')} skipped (named above)" if r.files_skipped else
                f"{_shown_paths(paths)} holds {plural(r.files_other, 'file')}"
                + (" or more" if r.files_other >= 1000 else "") + f", none named as one ({'rollout-*.jsonl' if harness == 'codex' else '*.jsonl'})")
        from objstore import other_harness
        other = next((o for p in paths if (o := other_harness(p, harness))), None)
        if other is not None:   # the other harness's transcript given to this import (test16 F13)
            what += f"; it is a {other} transcript"
        raise InvalidInput(f"nothing given is a {harness} transcript: {what}, nothing stored",
                           hint=(f"import it with 'mem import {other} FILE'; " if other else "")
                                + f"give {harness} transcript files or their folders"
                                + (f" (default {default_paths(harness)[0]})" if default_paths(harness) else "")
                                + "; name a file to import it whatever its name")


def _shown_paths(paths) -> str:
    """The paths given, for a message: one whose text holds a credential
    is never echoed (``objstore.path_holds_credential``)."""
    from objstore import shown_path
    return ", ".join(shown_path(str(p)) for p in paths)


def _import_jsonl(store, paths, as_json, keep_existing=False, guard_file=None):
    from objstore import agent_of, import_jsonl, imported_unpaired, now_ms
    if not paths:
        raise click.UsageError("give the export file(s): mem import jsonl FILE")
    if list(paths).count("-") > 1:   # (an internal error: test44 T5)
        raise click.BadParameter("standard input (-) can be read once", param_hint="PATHS")
    if guard_file == "-" and "-" in paths:
        raise click.BadParameter("the export and the passphrase cannot both come from standard input",
                                 param_hint="--guard-passphrase-file")
    if guard_file is not None:
        from ._vault import read_passphrase
        guard_pw = read_passphrase(guard_file)
    else:
        guard_pw = None
    started = now_ms()
    total = {"objects": 0, "present": 0, "refs": 0, "refs_kept": 0, "conflicts": [], "forgotten": [], "forgotten_text": [],
             "redacted": [], "turns_with_credentials": 0, "sessions_with_credentials": [],
             "guard": {"sealed": 0, "applied": 0, "none": 0, "pairs": 0, "rules": 0, "rules_left": 0}}
    for p in paths:
        if p == "-":   # (mem export | mem import jsonl -: fresh42 F14)
            import io
            src = io.TextIOWrapper(click.get_binary_stream("stdin"), encoding="utf-8", errors="replace")
        elif not os.path.isfile(p):
            raise click.BadParameter(f"{p} is not a file (give the file 'mem export' wrote, or - for standard input)",
                                     param_hint="PATHS")
        else:
            src = open(p, encoding="utf-8", errors="replace")
        with src as f, progress_bar(f"importing {'standard input' if p == '-' else p}") as update:
            r = import_jsonl(store, f, progress=update, keep_existing=keep_existing, agent=agent_of(os.environ),
                             guard_passphrase=guard_pw)
        g = total["guard"]
        if r.guard:
            g[r.guard] += 1
        g["pairs"] += r.guard_pairs
        g["rules"] += r.guard_rules
        g["rules_left"] += r.guard_rules_left
        for k in ("objects", "present", "refs", "refs_kept", "turns_with_credentials"):
            total[k] += getattr(r, k)
        total["conflicts"] += r.conflicts
        total["forgotten"] += r.forgotten
        total["forgotten_text"] += r.forgotten_text
        total["redacted"] += [{"key": k, "version": v} for k, v in r.redacted]
        total["sessions_with_credentials"] += r.sessions_with_credentials
    unpaired = len(imported_unpaired(store, started))   # (fresh39 F8: the forget guard was dropped silently)
    total["tombstones_by_key_only"] = unpaired
    if as_json:
        emit_json(total)
        return
    click.echo(f"imported {plural(total['objects'], 'new object')} ({total['present']} already stored) "
               f"and {plural(total['refs'], 'ref')}")
    _say_guard(total["guard"], unpaired)
    if total["forgotten"]:
        click.echo(f"skipped {plural(len(total['forgotten']), 'ref')} whose history holds what this store "
                   "forgot (tombstones): " + ", ".join(total["forgotten"][:5])
                   + (" …" if len(total["forgotten"]) > 5 else ""), err=True)
    if total["forgotten_text"]:   # (test42 T2: a pull forgets these, an import brought them back)
        click.echo(f"of those, {plural(len(total['forgotten_text']), 'key')} held a text 'mem forget --match' "
                   "forgot here, written where that forget had not arrived: left out, as a pull forgets them ("
                   + ", ".join(total["forgotten_text"][:5]) + (" …" if len(total["forgotten_text"]) > 5 else "")
                   + ")", err=True)
    if total["refs_kept"]:
        click.echo(f"kept {plural(total['refs_kept'], 'ref')} this store already had at another version: "
                   + ", ".join(total["conflicts"][:5]) + (" …" if len(total["conflicts"]) > 5 else ""), err=True)
    red = total["redacted"]
    if red:   # the key is shown (a name holding a credential was refused), never the value
        click.echo(f"warning: {plural(len(red), 'imported value')} held a credential; each got a redacted version "
                   "on top ([REDACTED:<rule>]): " + ", ".join(f"{x['key']}@v{x['version']}" for x in red[:5])
                   + (" …" if len(red) > 5 else ""), err=True)
        click.echo(f"hint: the imported version stays in the key's history; remove it with: "
                   f"mem forget {red[0]['key']}@v{red[0]['version']}", err=True)
    if total["turns_with_credentials"]:
        ss = total["sessions_with_credentials"]
        click.echo(f"warning: {plural(total['turns_with_credentials'], 'imported turn')} hold a credential, in "
                   f"{plural(len(ss), 'session')}: " + ", ".join(ss[:5]) + (" …" if len(ss) > 5 else ""), err=True)
        click.echo(f"hint: a turn keeps its id, so it cannot be redacted in place: mem forget --session {ss[0]}",
                   err=True)


def _say_guard(g, unpaired):
    """The stderr lines of a jsonl import about the exports' forget guard
    (``g``: the counts of ``_import_jsonl``) and the ``unpaired`` imported
    tombstones that recognize no value here (fresh39 F8, test40 T12)."""
    if g["applied"]:
        click.echo(f"kept the export's forget guard: {plural(g['pairs'], 'tombstone digest')}, "
                   f"{plural(g['rules'], 'forgotten-value rule')}", err=True)
    if g["rules_left"]:
        click.echo(f"note: {plural(g['rules_left'], 'forgotten-value rule')} of the export not kept (this store's "
                   "seal-rules does not read: 'mem fsck' names it): a turn captured here quoting a value "
                   "'mem forget KEY' forgot there, or an agent's write of it spelled otherwise, is taken; the "
                   "value as spelled is still refused by its tombstone", err=True)
    if g["none"]:
        click.echo("note: the export carries no forget guard (made without --guard-passphrase-file, or by a mem "
                   "before session 41)", err=True)
    if unpaired:
        click.echo(f"note: {plural(unpaired, 'imported tombstone')} cannot stop {'their values' if unpaired != 1 else 'its value'} "
                   "in this store (what recognizes a value never travels in the clear): an agent can write a "
                   "forgotten value again here; "
                   + ("the export carries its forget guard sealed: import it again with --guard-passphrase-file FILE"
                      if g["sealed"] else "an export made with 'mem export --guard-passphrase-file FILE', or 'mem "
                      "clone'/'mem restore' from an encrypted remote, keeps the guard"), err=True)


def _import_markdown(store, harness, paths, scope, mine, as_json):
    from objstore import import_markdown
    owner = None
    if harness == "codex-memory":
        owner = "codex"
        if not paths:
            home = Path(os.environ.get("CODEX_HOME", "~/.codex")).expanduser()
            if not (home / "memories").is_dir():   # Codex never wrote any here: nothing to import yet (test25 T11)
                click.echo(f"hint: no Codex memories yet: {_shown_paths((str(home / 'memories'),))} is not a "
                           "folder; give PATHS to import from elsewhere", err=True)
            else:
                paths = (str(home / "memories"),)
    elif not paths:
        raise click.UsageError("give the folder(s) of notes: mem import markdown PATH")
    with progress_bar("importing notes") as update:
        r = import_markdown(store, list(paths), scope=scope, trust="user_stated" if mine else "agent_observed",
                            owner=owner, progress=update)
    if as_json:
        emit_json({"files": r.files, "written": r.written, "unchanged": r.unchanged, "queued": r.queued,
                   "retired": r.retired, "keys": r.keys, "skipped": [{"path": p, "reason": w} for p, w in r.skipped]})
        return
    click.echo(f"imported {plural(r.files, 'note')}: {r.written} written, {r.unchanged} unchanged, "
               f"{r.queued} queued for review, {r.retired} retired")
    for p, why in r.skipped:
        click.echo(f"skipped {safe(p)}: {safe(why)}", err=True)


def _import_claude_memory(store, paths, as_json):
    from objstore import import_claude_memory
    home = Path(paths[0]) if paths else Path(os.environ.get("CLAUDE_CONFIG_DIR") or "~/.claude").expanduser()
    r = import_claude_memory(store, home)
    if as_json:
        emit_json({"files": r.files, "proposed": r.proposed, "present": r.present, "queued": r.queued,
                   "redacted": r.redacted, "skipped": [{"path": p, "reason": w} for p, w in r.skipped]})
        return
    click.echo(f"read {plural(r.files, 'memory file')}: {plural(r.proposed, 'entry')} proposed for your approval "
               f"(mem queue list), {r.present} already there")
    if r.redacted:
        click.echo(f"redacted {plural(r.redacted, 'credential')} before proposing", err=True)
    for p, why in r.skipped:
        click.echo(f"skipped {safe(p)}: {safe(why)}", err=True)
