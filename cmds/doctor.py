"""mem doctor."""

import click

from ._common import emit_json, home_path, json_option, open_store


@click.command("doctor")
@click.option("--fix", "do_fix", is_flag=True,
              help="Tighten permissions, remove stale lock files and unusable hook cursors, "
                   "set a damaged derive-state.json aside.")
@json_option
@click.pass_context
def command(ctx, do_fix, as_json):
    """Check the store and its wiring; each finding names the command that fixes it.

    Checks: no file or folder of the store is of the other type (a
    folder where index-journal or logs/audit should be, a file where
    cache/ or locks/ should be); the store is the owner's only (0700/0600); every pack file
    and its index are as written (their checksums; mem fsck reads each
    packed object) and every loose object hashes to its id (a turn or fact
    version among them whose session or key no ref names is reported as mem
    fsck reports it: an error where fsck exits 13); the search index
    exists, is in step with the refs and is not damaged (its files match
    their checksums, as mem fsck checks); no stale lock file left by a
    killed writer; Claude Code's settings run mem's hooks with a command
    that exists, into this store (a warning when they name another, e.g.
    after the store was moved); every hook cursor (where a transcript has
    been read to) can be used (a warning: capture reads that transcript again from its start,
    storing nothing twice); the imported transcripts can still be read (a
    warning); every remote answers and the sync key opens it; derive's
    cache/derive-state.json can be read; with a sealed key, its local seal
    rules (seal-rules) are there and whole (a warning names 'mem sealed
    rebuild-rules'); the vault's recipient and identity.age are there
    while keys are sealed, and parse (an error: put back your copy); every
    tombstone this store wrote still has its line in tombstone-digests (a
    warning: without it the tombstone cannot stop its value coming back);
    no 'forget --match' text forgotten on another machine is held here
    unread (pulled over an unencrypted remote: a warning until the same
    forget runs here, as what is captured holding it is kept in the clear).
    --fix repairs permissions, stale locks and unusable cursors, and sets
    a damaged derive-state.json aside; the rest names a command.  A store
    whose config is missing or damaged (every other command exits 13) is a
    finding too: doctor says so, names 'mem fsck --repair', and runs the
    checks that need no open store (permissions, config.toml, projects,
    locks, hooks).  A check that damage stops is a finding too: doctor
    reports, it never stops half-way.

    \b
    Examples:
      mem doctor
      mem doctor --fix
      mem doctor --json

    Exit status: 0 healthy (warnings allowed); 1 a problem was found;
    10 no store.
    """
    import os

    from objstore import IntegrityError, derive_state_damage, diagnose, doctor_check, doctor_fix, list_remotes, remote_files_damage, remote_reachable
    from objstore import DoctorFinding as Finding
    from .hooks_install import mem_command, settings_path, store_arg
    here = store_arg(ctx, check=False)   # this store as the hooks would name it
    try:
        store = open_store(ctx)
    except IntegrityError as e:   # Store.open raises it only for a missing or damaged config: doctor diagnoses it
        from objstore import diagnose_unopened
        findings = diagnose_unopened(home_path(ctx), str(e), settings=[settings_path("user")],
                                     hook_command=mem_command(), hook_store=here)
        done = doctor_fix(None, [f for f in findings if f.check in ("permissions", "locks")]) if do_fix else []
        if done:
            findings = diagnose_unopened(home_path(ctx), str(e), settings=[settings_path("user")],
                                         hook_command=mem_command(), hook_store=here)
        _report(findings, done, as_json)
        return
    # what diagnose is given is gathered under doctor_check too: damage there is a finding, never the end
    stopped: list = []

    def gathered(name, read, default):
        found = doctor_check(name, lambda: [read()])
        if found and not isinstance(found[0], Finding):
            return found[0]
        stopped.extend(found)
        return default

    remote_files = gathered("remotes", lambda: remote_files_damage(store), [])
    remotes = [] if any(p.startswith("remotes.json") for p, _todo in remote_files) else \
        gathered("remotes", lambda: [(s.name, remote_reachable(store, s, os.environ)) for s in list_remotes(store)],
                 [])
    derive_state = gathered("derive", lambda: derive_state_damage(store), None)
    findings = diagnose(store, settings=[settings_path("user")], hook_command=mem_command(), hook_store=here,
                        remotes=remotes, remote_files=remote_files, derive_state=derive_state) + stopped
    done = []
    if do_fix:
        done = doctor_fix(store, findings)
        if done:   # (what a fix changed is read again: a damaged derive state it set aside is gone)
            stopped = [f for f in stopped if f.check != "derive"]
            derive_state = gathered("derive", lambda: derive_state_damage(store), None)
            findings = diagnose(store, settings=[settings_path("user")], hook_command=mem_command(),
                                hook_store=here, remotes=remotes, remote_files=remote_files,
                                derive_state=derive_state) + stopped
    _report(sorted(findings, key=lambda f: f.severity != "error"), done, as_json)


def _report(findings, done: list[str], as_json: bool) -> None:
    """Print the findings (and what --fix did); exit 1 when one is an error."""
    errors = [f for f in findings if f.severity == "error"]
    if as_json:
        emit_json({"ok": not errors, "fixed": done,
                   "findings": [{"check": f.check, "severity": f.severity, "message": f.message, "fix": f.fix}
                                for f in findings]})
    else:
        for line in done:
            click.echo(f"fixed: {line}")
        for f in findings:
            click.echo(f"{f.severity}: [{f.check}] {f.message}")
            click.echo(f"  fix: {f.fix}")
        if not errors:
            click.echo("ok: no problem found" + (f" ({len(findings)} warning(s))" if findings else ""))
    if errors:
        raise click.exceptions.Exit(1)
