"""mem fsck."""

import os

import click

from ._common import emit_json, home_path, json_option, open_store, plural, progress_bar, safe
from ._fsckrepair import print_registry, print_repair, say as _say


@click.command("fsck")
@click.option("--repair", is_flag=True,
              help="Set damaged objects aside in <store>/quarantine, mend the histories around what is "
                   "lost, rebuild the search index, then check again.")
@click.option("--drop-lost-tombstones", is_flag=True,
              help="With --repair: delete a tombstone ref whose object is lost instead of keeping it. What "
                   "it forgot is then no longer filtered: a re-import can capture it again.")
@json_option
@click.pass_context
def command(ctx, repair, drop_lost_tombstones, as_json):
    """Verify every object, ref and parent link, and the search index.

    Re-hashes and decodes every object (rejecting non-canonical bytes),
    checks that every ref names an object of the right type, and that every
    parent link exists and is numbered in sequence.  Unreachable objects are
    counted, not errors (gc removes them).

    The search index is checked too: every generation its CURRENT files
    name must open, and every file of its segments (stored documents,
    terms, postings) must match its checksum.  This reads each index file
    once (about 1 s per GB); a damaged index makes search and recall exit
    13, and --repair rebuilds it from the objects (as mem reindex does).

    With --repair, a damaged store is made consistent again, keeping all
    that is readable: damaged loose objects and packs are moved to
    <store>/quarantine (what a damaged pack still holds is salvaged first);
    a history that reaches a lost version or turn keeps a "lost" placeholder
    in its place (empty, never current) and its later versions are
    rewritten onto it; a ref with nothing left is deleted (its reflog
    stays).  With a file in place of objects/pack, or a pack
    objects/info/packs records moved away, --repair changes nothing
    (exit 13).  A pack file
    that is missing while its index is intact (a sync not finished) is not
    damage: fsck names it, and --repair keeps every ref and reflog as it is
    while it is missing; a sound pack an older repair set aside is put
    back (docs/format.md, "Packs").  A tombstone
    whose object is lost is kept and reported (exit 13): what it forgot is
    unknown, so import, the hooks and the proxy capture no turn until
    'mem pull' from a remote that holds it restores it; with
    --drop-lost-tombstones the ref is deleted instead, and what it forgot
    can be captured again (scrub or forget it again).  A session ref
    that cannot be read (a damaged line of refs/packed-sessions, garbage or
    cut short, or a damaged ref file) is set again from its reflog, else
    rebuilt from the turn objects: its head is its turn no other turn names
    as parent (of several, the one a reflog names, else the highest seq; the
    report says so).  A fact key's ref (a damaged line of refs/packed-facts,
    or a damaged ref file) is set again from its reflog, else rebuilt from
    its version objects the same way, except that when several versions
    have no child none is picked: they are named in the key's reflog (gc
    keeps them) and the repair exits 13.  What a forget tombstoned stays
    forgotten (a history holding a forgotten turn or value is passed over).
    When a key's newest version is lost, its place is kept as a 'lost'
    placeholder above the newest readable version, which is older and is
    not made current: mem get KEY exits 13 and names both, and the repair
    exits 13, as does every fsck and repair after it until the person picks
    the value (mem revert KEY makes the older value current again, mem
    remember KEY VALUE sets another).  A sealed key's lost newest version
    is kept the same way (mem sealed show KEY exits 13; --version N reads
    an older one).  A session whose last turns were lost with its head
    keeps one 'lost' placeholder at its end: every fsck after warns of it
    (exit 0; mem doctor too) until 'mem import claude-code --reread' (or
    codex) of its transcript fills it.
    Each mended history says how many 'lost' placeholders it got, and the
    report ends with 'lost in all: …': the placeholders written, by kind
    and in how many keys or sessions, and the refs removed with nothing
    readable (--json: repair.placeholders, ref -> count; repair.stubs).
    A key, sealed key or session removed so is recorded in the store's
    lost-refs file (--json: repair.recorded_lost): mem fsck and mem doctor
    warn of it by name until it is set again (mem pull from a remote or
    backup that holds it); deleting the file accepts the loss.
    A ref that names an id the store does not hold while its reflog's last
    entry names a sound head (a changed digit) is set to that head: no
    object was lost, and the report says so.
    A key's chain that is whole but misses version numbers (its root
    numbered 2, or v4 on v2: an unseal before session 15 dropped forgotten
    versions' places) gets a forgotten placeholder in each missing place.
    A version's edge to an id that is no fact version or turn here (a
    forget --match killed before it rewrote the summaries citing the turns
    it rewrote; fsck warns) is dropped.
    A session's lost turns come back in their places when its transcript is
    read again (mem import --reread) or from a remote (mem pull;
    docs/design.md "Damage and repair").  A missing or
    damaged <store>/config (the directory still has objects/ and refs/) is
    rewritten with the defaults (docs/format.md "config"; a damaged one is
    kept as config.damaged-<ms>).  See docs/design.md, "Damage and repair".

    Also problems: a session or key whose turns or versions are stored
    but that no ref names (e.g. refs/packed-sessions deleted; --repair sets
    the ref again to the head its reflog names, else rebuilds it from the
    objects as above, and gc deletes nothing unreachable meanwhile; a
    key's versions no ref and no reflog line ever named are a write that
    failed before its ref moved: unreachable, never set), a ref
    set back to an older version than its reflog's
    last entry names (--repair moves it forward again), a tombstone object
    whose ref tombstones/ID is missing (--repair sets it again; gc keeps
    such tombstones) and a damaged index-journal record (--repair, like any
    write, rebuilds the index).  Warnings, not problems (exit 0: a process
    killed mid-way leaves them, and any write finishes them): a forget
    stopped after it wrote its tombstones, and a torn last journal record.
    A pull stopped after it stored a remote's objects and before it set
    their new refs is a warning too, naming the 'mem pull REMOTE' that
    finishes it (only the pull's merge knows which values a forget --match
    removed, so --repair leaves those refs to it).
    A forget stopped before it wrote all its tombstones is no damage, but
    what it removes may still be stored and only the same forget run again
    finishes it: fsck names it as an error with that command and exits 6
    (push, backup and export refuse meanwhile).  Its note that does not
    read names no forget: --repair sets it aside in the quarantine and
    names the last forgets the audit log records, to run again.

    A reflog file (logs/refs/...) holding a line that is not '<old id>
    <new id> <ms> <command>' (garbage, a line cut short) is a problem too:
    --repair moves it to the quarantine and writes its readable lines back.
    A key's ref that names another key's version, or a history reaching
    one (readers and writers of the key refuse it), is set by --repair to
    the key's own last version (the newest its reflog names, else stored),
    with the key's own newer versions put back on it; the other key's
    versions stay its own.
    The reflog of a key whose ref is gone while no version of the key is
    stored (a forgotten key's reflog put back, or one naming another key's
    versions) is a problem: every write of the key is refused; --repair
    moves its lines to the quarantine, and the key's next write starts it
    at v1.

    A damaged project registry (projects.json) is a problem too: until it
    is fixed, projects it no longer names go by their qualified names.
    --repair moves it to the quarantine and rebuilds it: the entries still
    readable in it, then each folder the captured turns recorded named as
    its oldest session was (never one name for two projects). A deleted
    one, while captured sessions name projects, is a warning; --repair
    rebuilds it the same way.

    With a sealed key, a missing, cut or damaged seal-rules (the local
    rules by which a sealed value quoted in a later turn is withheld) is a
    problem (exit 13: every write and captured turn is refused until 'mem
    sealed rebuild-rules' writes it again).  A missing vault/ folder
    (or its recipient or identity.age) while a key is sealed is a problem
    (exit 13, --repair too): no sealed value can be read until it is put
    back from where it was copied or backed up.  So is a vault file that
    is there but damaged (a recipient that is no age recipient, an
    identity.age whose age header or scrypt stanza does not parse; checked
    without the passphrase): put back your copy of the vault folder.
    A tombstone this store wrote (or pulled from a remote whose digests/
    was missing) whose keyed digest has no line in tombstone-digests (the
    file deleted or cut short) can no longer stop
    its value from coming back: a warning counts them (exit 0; no repair
    can rebuild a one-way digest: put the file back from a copy, or 'mem
    pull' from an encrypted remote this store pushed to).  A 'forget
    --match' text rule so lost is a problem (exit 13: capture stops):
    forget the text again, or --drop-lost-tombstones.
    A missing hash-key while the store holds data keyed under it (a
    hidden session id, its own forgets' keyed digests) is a problem (exit
    13: none is made anew, so no forget, import or capture that needs it
    runs): put the file back from a copy; if it is lost for good, --repair
    makes a new one (a hidden session captured again then gets a second id).

    So are a damaged remotes.json (not JSON, or not the shape docs/format.md
    gives) and a damaged sync-key (no age identity in it: garbage, cut
    short, empty), or a missing one while an encrypted remote this store
    synced with needs it (the problem names those remotes): --repair
    leaves them as they are and says what to do.
    A sync key is never deleted or replaced by mem: without it the data of
    the encrypted remotes cannot be read (put back a copy, or move it away
    and 'mem remote key import' the key from another store).
    A reflog entry naming a fact version or turn that a tombstone forgets
    and no ref reaches (left by an older mem's recovery of a killed
    forget: gc kept the forgotten value or credential for it) is a
    problem; --repair drops the entry, and gc then deletes the object.
    A key both sealed and plain (a mem seal stopped half-way by an older
    mem; a newer one's is finished by the next command) is a problem:
    the plaintext is still stored (search, recall and the agent's context
    leave the key out), push and export refuse; --repair removes the plain copy when the sealed one
    holds every version (--json: repair.seals_finished). A mem unseal
    stopped after it wrote the plain versions is named as one (run mem unseal
    KEY again); --repair drops its sealed copy (repair.unseals_finished).

    \b
    Examples:
      mem fsck
      mem fsck --json
      mem fsck --repair
      mem fsck --repair --drop-lost-tombstones

    Exit status: 0 clean (after --repair: clean now); 6 no corruption, but
    a forget stopped (before its tombstones: run it again; after them:
    --repair or any write finishes it); 13 corruption found, a key whose
    current value was lost included,
    a damaged search index, remotes.json or sync-key included (or left
    after --repair; an agent's --repair leaves a lost hash key for the person to replace);
    6 also --drop-lost-tombstones run by an agent (refused); 10 no store; 11 store locked; 16 read-only store.
    """
    from objstore import IntegrityError, InvalidInput
    from objstore import forgotten_check, fsck, verify_index
    if drop_lost_tombstones and not repair:
        raise InvalidInput("--drop-lost-tombstones works only with --repair")
    from objstore import agent_of, require_person
    if drop_lost_tombstones:   # it lets a forgotten text be captured again: the person's (test44 T13)
        require_person(os.environ, "mem fsck --repair --drop-lost-tombstones", instead="tell the user the command to run")
    config_fixed = None
    if repair:   # before opening: a damaged or missing config would refuse the open
        from objstore import repair_config, repair_refs_dir
        done = [repair_refs_dir(home_path(ctx)), repair_config(home_path(ctx))]   # refs/ first: config's needs it
        config_fixed = "; ".join(filter(None, done)) or None
        if config_fixed and not as_json:   # said now: an open that still fails must not hide it
            click.echo(f"repair: {config_fixed}")
    store = open_store(ctx)
    fixed = reindexed = None
    sealed_finished: list[str] = []
    unseals_finished: list[str] = []
    notes_aside: list = []
    if repair:
        from objstore import reindex, repair_store
        fixed = repair_store(store, drop_lost_tombstones=drop_lost_tombstones)
        from objstore import finish_plain_and_sealed, finish_stopped_unseals
        unseals_finished = finish_stopped_unseals(store)   # an unseal stopped: its sealed copy goes, if all is plain
        sealed_finished = finish_plain_and_sealed(store)   # a seal stopped half-way: its plain copy goes
        notes_aside = _set_aside_notes(store, as_json)   # an unreadable forget note (fresh39 F13)
        if fixed.changed or verify_index(store):
            with progress_bar("indexing") as update:
                reindexed = reindex(store, progress=lambda done: update(done))
    with progress_bar("checking") as update:
        rep = fsck(store, progress=update, forgotten=forgotten_check(store, rejections=False))
    rep.problems.extend(verify_index(store))
    if fixed is not None:   # not rebuilt: which value is current is not the repair's to guess
        rep.problems.extend(f"{name}: its ref was lost and {len(heads)} of its versions have no child; "
                            "none was picked" for name, heads in fixed.unresolved.items())
        # (a lost current value: the check above names its placeholder, as every fsck after does)
    store.damaged.clear()  # reported below, not as a warning
    from objstore import registry_damage
    rebuilt_registry = None
    if repair:   # rebuilt from the turns' recorded folders, the damaged file set aside (test30 R8)
        from objstore import rebuild_registry
        rebuilt_registry = rebuild_registry(store)
    why = registry_damage(store.root)
    if why:       # names would be handed out again: never silently reset (mem doctor says how to fix)
        rep.problems.append(f"project registry: {why}")
    elif not repair:   # deleted: the next hook starts a new one, and moved repositories get new names
        from objstore import registry_missing
        if missing := registry_missing(store):
            rep.warnings.append(f"project registry: projects.json is missing while the captured sessions name "
                                f"the projects of {plural(missing, 'folder')}: a repository that moved or whose "
                                "remote changed gets a new name and none of its memory; 'mem fsck --repair' "
                                "rebuilds it from them")
    if not why:   # made anew by the next hook after it was deleted: nothing above sees it (test32b Y11)
        from objstore import orphan_advice, registry_orphans
        rep.warnings.extend("project registry: {}; {}".format(*orphan_advice(store.root, name, folder))
                            for name, folder in registry_orphans(store))
    from objstore import seal_rules_problem, seal_rules_refused
    sealing_bad = False
    if sealing := seal_rules_problem(store):   # sealed values quoted later would be stored in the clear (test34b T23)
        (rep.problems if (sealing_bad := seal_rules_refused(store)) else rep.warnings).append(sealing)   # (fresh41 F6)
    from objstore import vault_problem
    if vault := vault_problem(store):   # every sealed value unreadable, and fsck said "ok" (fresh35)
        rep.problems.append(vault)
    from objstore import hash_key_damage, lost_text_rules_note, unguarded_note
    key_made = False
    if key_bad := hash_key_damage(store):   # every forget exits 13, and fsck said ok (fresh39 F4)
        from objstore import HASH_KEY_LOST_HINT, hash_key_lost, store_hash_key
        # lost for good: made anew, said (test43 T21); by the person only, since hidden ids change (test44 T13)
        if repair and hash_key_lost(store.root) and agent_of(os.environ) is None:
            store_hash_key(store.root, anew=True)
            key_made = True
            rep.warnings.append("hash-key was missing (lost): a new one was made; a hidden session captured "
                                "again is stored under a second id (mem forget --session removes the older)")
        else:
            rep.problems.append(f"{key_bad}; {HASH_KEY_LOST_HINT}" if hash_key_lost(store.root) else key_bad)
    if unguarded := unguarded_note(store):   # a forgotten value can come back: no repair rebuilds it (fresh39 F5)
        rep.warnings.append(unguarded)
    if lost_rules := lost_text_rules_note(store, fix=True):
        rep.problems.append(lost_rules)
    guard_held, guard_bad = _carried_guard(store, rep)
    from objstore import vault_damage
    if vault_bad := vault_damage(store):   # a damaged vault file: only the user's copy mends it (fresh39 F6)
        rep.problems.append(vault_bad)
    from objstore import unproven_pair_note
    if unproven := unproven_pair_note(store):   # a swapped recipient cannot be told (fresh43 F15)
        rep.warnings.append(unproven)
    from objstore import remote_files_damage
    remote_damage = remote_files_damage(store)   # left as they are: only the user can mend them
    rep.problems.extend(p for p, _todo in remote_damage)
    if as_json:
        doc = {"ok": rep.ok and not rep.unfinished, "objects": rep.objects, "refs": rep.refs,   # (test27b X6)
               "unreachable": rep.unreachable, "problems": rep.problems, "warnings": rep.warnings,
               "unfinished_forgets": rep.unfinished, "carried_guard": guard_held}
        if fixed is not None:
            doc["repair"] = {"quarantine": fixed.quarantine, "quarantined": fixed.quarantined,
                             "salvaged": fixed.salvaged, "dropped_objects": fixed.dropped_objects,
                             "uninflated": fixed.uninflated, "miscopied": fixed.miscopied,
                             "cut_short": fixed.cut_short,
                             "unflipped": [{"pack": n, "offset": o, "bit": b} for n, o, b in fixed.unflipped],
                             "misindexed": fixed.misindexed,
                             "refetched": fixed.refetched, "unindexed": fixed.unindexed, "lost": fixed.lost, "stubs": fixed.stubs,
                             "placeholders": fixed.stubs_in,
                             "mended": fixed.mended, "dropped_refs": fixed.dropped_refs, "recorded_lost": fixed.recorded,
                             "restored_refs": fixed.restored_refs, "relogged": fixed.relogged, "relost": fixed.relost,
                             "lost_tombstones": fixed.lost_tombstones, "dropped_rules": fixed.dropped_rules,
                             "rebuilt_refs": fixed.rebuilt, "misnamed_refs": fixed.misnamed,
                             "unresolved_refs": fixed.unresolved,
                             "reset_refs": [{"ref": n, "was": a, "now": b} for n, a, b in fixed.reset_refs],
                             "lost_heads": fixed.lost_heads, "gaps_filled": fixed.gaps_filled,
                             "edges_dropped": fixed.edges_dropped, "seals_finished": sealed_finished,
                             "unseals_finished": unseals_finished,
                             "forget_notes_set_aside": [n.moved_to for n in notes_aside],
                             "refound_refs": fixed.refound,
                             "reflogs_set_aside": [{"file": f, "lines_kept": k, "lines_dropped": d}
                                                   for f, k, d in fixed.reflogs],
                             "forgotten_reflog_entries": fixed.forgotten_entries,
                             "own_history": [{"ref": n, "other_key": k, "put_back": c, "base": b}
                                             for n, k, c, b in fixed.own_history],
                             "stale_reflogs_set_aside": [{"ref": n, "head": h, "why": w}
                                                         for n, h, w in fixed.stale_reflogs],
                             "absent_packs": fixed.absent_packs, "put_back": fixed.put_back,
                             "pack_dir": fixed.pack_dir, "found_again": fixed.found_again,
                             "rerecorded": fixed.rerecorded, "written_since": [n for n, _ in fixed.written_since],
                             "reindexed": reindexed,
                             "config": config_fixed, "left_for_you": _left_for_you(remote_damage),
                             "project_registry": None if rebuilt_registry is None else {
                                 "set_aside": rebuilt_registry.set_aside, "kept": rebuilt_registry.kept,
                                 "rebuilt": dict(rebuilt_registry.found),
                                 "other_names": [list(x) for x in rebuilt_registry.other_names],
                                 "folders": rebuilt_registry.folders,
                                 "not_given": [list(x) for x in rebuilt_registry.not_given]}}
        emit_json(doc)
    else:
        if fixed is not None:
            for key in sealed_finished:
                click.echo(f"repair: {safe(key)}: the plain copy a stopped 'mem seal' left removed (sealed only now)")
            for key in unseals_finished:
                click.echo(f"repair: {safe(key)}: the sealed copy a stopped 'mem unseal' left removed (plain only now)")
            # (a file left for the user is not "nothing to repair": fresh43 F3)
            print_repair(fixed, reindexed, config_fixed, rebuilt_registry is not None or bool(notes_aside)
                         or bool(remote_damage) or key_made or bool(rep.problems))   # (left: not "nothing", fresh44 F2)
            print_registry(rebuilt_registry)
            for line in _left_for_you(remote_damage):
                click.echo(f"repair: {line}")
        for p in rep.problems:
            click.echo(f"error: {safe(p)}")
        for u in rep.unfinished:
            click.echo(f"error: {safe(u)}")
        for w in rep.warnings:
            click.echo(f"warning: {safe(w)}")
        if guard_held:
            click.echo(f"guard: {plural(guard_held, 'imported tombstone')} recognize{'s' if guard_held == 1 else ''} "
                       f"{'its value' if guard_held == 1 else 'their values'} by the forget guard its export carried")
        click.echo(f"{'CORRUPT' if not rep.ok else 'UNFINISHED' if rep.unfinished else 'ok'}: "
                   f"{plural(rep.objects, 'object')}, {plural(rep.refs, 'ref')}, "
                   f"{rep.unreachable} unreachable, {plural(len(rep.problems), 'problem')}"
                   + (f", {plural(len(rep.unfinished), 'unfinished forget')}" if rep.unfinished else ""))
        if not rep.ok and not repair:
            if any("/objects/pack is " in p or "/info/packs records" in p for p in rep.problems):   # (fresh42 F3)
                click.echo("hint: put the pack folder or the packs named back first: 'mem fsck --repair' changes "
                           "nothing while they are away", err=True)
            elif any("missing (not damaged" in p for p in rep.problems):   # (test33 T17)
                click.echo("hint: a pack file is missing: put it back; 'mem fsck --repair' keeps every ref and "
                           "reflog as it is while it is missing (it only sets other damaged files aside)", err=True)
            elif len(rep.problems) > len(remote_damage) + len(rep.lost) + bool(vault) + bool(vault_bad) + bool(key_bad) + bool(guard_bad) + sealing_bad:   # (a vault: put it back)
                click.echo("hint: 'mem fsck --repair' sets the damage aside and keeps everything readable", err=True)
            if rep.lost:   # which value is current is the person's to say: no repair ends it (test34b T18)
                click.echo("hint: a key whose current value was lost stays so until 'mem pull' from a remote that "
                           "holds it, 'mem revert KEY' or 'mem "
                           "remember KEY VALUE' (sealed: --sensitivity secret) sets one", err=True)
            for p, todo in remote_damage:     # --repair leaves these to the user
                click.echo(f"hint: {p.split(' ', 1)[0]}: {todo}", err=True)
    if not rep.ok:
        raise click.exceptions.Exit(IntegrityError.exit_code)
    if rep.unfinished:   # not damage: the forget run again finishes it (its line names the command)
        from objstore import ForgetUnfinished
        raise click.exceptions.Exit(ForgetUnfinished.exit_code)


def _set_aside_notes(store, as_json: bool) -> list:
    """--repair of an unreadable forget-unfinished note (``objstore.set_aside_unreadable_notes``): it is
    moved to the quarantine, and which forget it was is said: the one its name is that of, else the tombstones
    the audit log records from its time on, else that it cannot be told (never a forget finished before it)."""
    from objstore import set_aside_unreadable_notes
    from ._out import fmt_time
    with store.lock("fsck --repair"):
        aside = set_aside_unreadable_notes(store)
    for n in [] if as_json else aside:
        _say(f"repair: set aside the unreadable forget note forget-unfinished/{n.name} (moved to {n.moved_to}): "
             "push, backup and export no longer wait for it")
        if n.forget:   # its name is that of this forget (test40 T19)
            _say(f"repair:   it was the note of '{n.forget}' (or of a 'mem seal' of that key), stopped"
                 + (f" at {fmt_time(n.at_ms)}" if n.at_ms else "") + " before it finished: its value may still "
                 "be stored and leave in push, backup and export")
        for at, keys in n.last_forgets:
            _say(f"repair:   tombstones that forget wrote before it stopped, at {fmt_time(at)}: "
                 + (", ".join(keys) if keys else "a 'mem forget --match' or '--session' (no key named)"))
        if not n.forget and not n.last_forgets:
            _say("repair:   which forget it was cannot be told: it wrote no tombstone"
                 + (f" (its note dates from {fmt_time(n.at_ms)})" if n.at_ms else ""))
        _say(f"hint: run '{n.forget}' again to finish it" if n.forget else
             "hint: if a value you forgot around then still shows ('mem search', 'mem get'), run that forget "
             "again", err=True)
    return aside


def _carried_guard(store, rep) -> tuple[int, str | None]:
    """The tombstones 'mem import jsonl' brought with their export's forget
    guard that still recognize their values, counted; those that no longer
    do are a problem (exit 13; --repair leaves it: only the export mends
    it).  Returns ``(count, problem or None)``."""
    from objstore import carried_guard_state
    held, bad = carried_guard_state(store)
    if bad:
        rep.problems.append(bad)
    return held, bad


def _left_for_you(remote_damage: list[tuple[str, str]]) -> list[str]:
    """What --repair leaves to the user, one line per damaged remote file:
    remotes.json and sync-key are never rewritten or deleted (losing the sync
    key loses the encrypted remotes' data)."""
    return [f"left {p.split(' ', 1)[0]} as it is: {todo}" for p, todo in remote_damage]
