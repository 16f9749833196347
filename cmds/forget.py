"""mem forget."""

import contextlib

import click

from ._forgetlost import forget_lost, say_quarantine
from ._forgetsay import plan_json, settle_match, tombstones_written

from ._common import (changed_nothing, confirm_or_exit, complete_key, finishes_when_stdout_closes, emit_json, fmt_time, holding_remotes, json_option, note_remotes_holding, plural, safe,
                      short, with_store)

PREVIEW_LINES = 50


def _fallbacks(store, plan) -> list[str]:
    """For each key that survives with its current version forgotten: the
    older value that becomes current (said in the preview, never silently)."""
    from objstore import current_of, memory_file_rest, now_ms, versions, why_no_current
    out = []
    rest = memory_file_rest(store, plan)
    for key, (_head, text) in rest.items():
        out.append(f"  note: {key}: only the matching entries go; a new version keeps the rest: {short(text, 50)}")
    for key, vs in plan.versions.items():
        if key in rest:
            continue
        gone = {v.id for v in vs}
        chain = versions(store, key)
        before = current_of(chain)
        if before is None or before.id not in gone:
            continue
        after = current_of([v for v in chain if v.id not in gone])
        if after is not None and after.fact.namespace:   # never current outside its sub-agent before (test32 X5)
            out.append(f"  note: the current value of {key} is forgotten; v{after.fact.version}, sub-agent "
                       f"{after.fact.namespace}'s value, becomes the key's value: {short(after.fact.body, 50)}")
        elif after is not None:
            out.append(f"  note: the current value of {key} is forgotten; v{after.fact.version} becomes current "
                       f"again: {short(after.fact.body, 50)}")
        elif any(not v.fact.forgotten for v in chain if v.id not in gone):
            why = why_no_current([v.fact for v in chain if v.id not in gone], now_ms())
            out.append(f"  note: the current value of {key} is forgotten; no other value becomes current ({why})")
    return out


def _say_now_current(store, plan) -> None:
    """After a version forget: each key whose current value went, and the
    version current now (the preview's note, said again: test30 R10)."""
    from objstore import revived_values
    for key, now in revived_values(store, plan).items():
        click.echo(safe(f"{key}: v{now.fact.version} is current now: {short(now.fact.body, 50)}"))


def _planned(store, what, match, session):
    """The plan of the selector; for a key, a version or a version id with
    the turns its values were remembered from, the values withheld in them
    (``plan_forget_turns_too``: test33 T7)."""
    from objstore import plan_forget_turns_too
    return plan_forget_turns_too(store, what=what, match=match, session=session)


def _preview(plan, dry_run: bool, store=None) -> None:
    c = plan.counts()
    verb = "would forget" if dry_run else "will forget"
    click.echo(f"{verb} {plural(c['versions'], 'fact version')} and {plural(c['turns'], 'turn')}"
               + (f" (whole keys: {c['keys']}, whole sessions: {c['sessions']})" if c["keys"] or c["sessions"] else "")
               + (f"; and take it out of {_meta_phrase(c['meta'])}" if c["meta"] else "")
               + (f"; and withhold the value in {plural(c['redacted'], 'turn')} holding it" if c["redacted"] else "")
               + (f"; and {plural(c['unreferenced'], 'unreferenced object')}" if c["unreferenced"] else "")
               + (f"; and delete {plural(len(plan.queue_items), 'proposal')} for it (queued or decided)"
                  if plan.queue_items else ""))
    if store is not None:
        from objstore import later_turns
        _say_later(later_turns(store, plan), "would write" if dry_run else "will write")
    lines = []
    for key, vs in plan.keys.items():
        lines.append(f"  key {key} (all {plural(len(vs), 'version')})")
        lines += [f"    v{v.fact.version}  {v.id[:12]}  {fmt_time(v.fact.valid_from)}  {short(v.fact.body, 50)}"
                  for v in vs if not v.fact.forgotten]
    for key, vs in plan.versions.items():
        lines += [f"  {key}@v{v.fact.version}  {v.id[:12]}  {fmt_time(v.fact.valid_from)}  {short(v.fact.body, 50)}"
                  for v in vs]
    for sid, tvs in plan.sessions.items():
        bad = plan.unreadable.get(sid, [])
        lines.append(f"  session {sid} (all {plural(len(tvs), 'turn')}"
                     + (f", and {plural(len(bad), 'damaged turn')} deleted unread)" if bad else ")"))
    for sid, tvs in plan.turns.items():
        lines += [f"  turn {sid} #{tv.turn.seq} {tv.turn.role}  {tv.id[:12]}  {short(tv.turn.text, 50)}"
                  for tv in tvs]
    lines += [f"  turn {sid} #{tv.turn.seq} {tv.turn.role}  {tv.id[:12]}  (its working directory or project; "
              "text kept)" for sid, tvs in plan.meta.items() for tv in tvs
              if tv.id not in {x.id for x in plan.turns.get(sid, ())}]
    lines += [f"  turn {sid} #{tv.turn.seq} {tv.turn.role}  {tv.id[:12]}  (the value withheld in its text)"
              for sid, tvs in plan.redacted.items() for tv in tvs]
    lines += [f"  proposal {iid[:12]} (queued or decided: deleted)" for iid in plan.queue_items]
    lines += [f"  unreferenced {'turn ' + o.session + ' #' + str(o.seq) if hasattr(o, 'seq') else 'version of ' + o.key}"
              f"  {oid[:12]}  " + ("(unpublished, after one that holds it: deleted, not forgotten; a writer still "
                                   "running writes it again)" if oid in plan.orphan_tail else
                                   "(no ref reaches it: a writer stopped before it published it)")
              for oid, o in plan.orphans.items()]
    if plan.retomb:
        lines.append(f"  {plural(len(plan.retomb) - plan.retomb_records, 'tombstone')} of a forgotten key whose name holds it "
                     "(written again naming the key by hash)")
    if store is not None:
        lines[:0] = _fallbacks(store, plan)  # first, so a long preview cannot hide it
    for line in lines[:PREVIEW_LINES]:
        click.echo(safe(line))
    if len(lines) > PREVIEW_LINES:
        click.echo(f"  … and {len(lines) - PREVIEW_LINES} more")


def _say_later(n: int, verb: str) -> None:
    """The turns the history rewrite writes again (new ids: each turn names the one before it)."""
    if n:
        click.echo(f"  and {verb} {plural(n, 'later turn')} again (new ids: each turn names the one before it)")


def _meta_phrase(n: int) -> str:
    return f"{plural(n, 'turn')}' working directory or project name (their text kept)"


@click.command("forget")
@click.argument("what", required=False, shell_complete=complete_key)
@click.option("--match", "match", metavar="TEXT",
              help="Forget every fact version and turn containing TEXT, and take it out of the working "
                   "directory and project name turns carry (case and spacing ignored; >= 3 chars).")
@click.option("--session", "session", metavar="ID", help="Forget a whole session.")
@click.option("--credentials", is_flag=True,
              help="Redact, in place, every stored value and turn that still holds a credential by today's rules "
                   "(also a token's start a cut kept before session 18).")
@click.option("--scrub-sources", is_flag=True,
              help="With --match: also redact TEXT in the transcript files the store captured from, imported "
                   "or read by the hooks, and in your shell history files (~/.bash_history, ~/.zsh_history, "
                   "fish's, ~/.histfile) (asks per file); also after TEXT was forgotten.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation (for scripts).")
@click.option("--dry-run", is_flag=True, help="Show what would be forgotten and stop.")
@json_option
@with_store()
@finishes_when_stdout_closes
def command(what, match, session, credentials, scrub_sources, yes, dry_run, as_json, store):
    """Forget a key, a version, an object, matching text or a session.

    WHAT is KEY (every version), KEY@vN (one version) or an object id (a fact
    version or a turn).  First shows everything that will go and asks to
    confirm.  Then, in this order: tombstones (hashes, never the text), the
    history rewrite (a forgotten version or turn keeps its place, emptied;
    later ones get new ids), a physical purge of the search index, deletion
    of the objects (loose and packed), and a scrub of caches and logs.  A
    forgotten turn or session is not captured again: re-importing a
    transcript that still holds it stores the turn emptied (a session: not
    at all), and a --match text is redacted from later turns of the
    sessions it was found in.  A session the forget did not touch (a new
    one) that holds a --match text is captured with it withheld: stored,
    indexed and shown as [forgotten] (from the start of a word).  An agent's write with the text's
    separators changed ("a b" or "a_b" for "a-b") is refused too (of 8+
    characters; "over night" withholds "overnight" too, as "Marco Rossi"
    withholds "marco.rossi").  See docs/forget.md, "No resurrection".

    \b
    Examples:
      mem forget project/api/password --dry-run
      mem forget project/api/db@v2
      mem forget --match "hunter2" --yes && mem gc --prune=now
      mem forget --session 03eb5929 --yes
      mem forget --match "AKIA..." --scrub-sources
      mem forget --match "hunter2" --scrub-sources   # after a plain forget
      mem forget --credentials --dry-run

    --credentials reads every stored fact version and turn with today's
    redaction rules: a credential a rule added since it was stored finds,
    and the start of one a cut kept (a mem before session 18 cut long tool
    results, sub-agent summaries and the proxy's tool results before
    redacting, so '... ghp_Q9w2E3r4...[cut 21 chars]' could be stored;
    and it split long Markdown notes into parts hard, a token in two halves).
    Each such version or turn keeps its place, rewritten with
    [REDACTED:<rule>] in place of what was found, and so does each
    review-queue proposal (queued, accepted or rejected) holding one, with
    its history (its reflog); the old text goes from
    the objects, packs, search index and logs as for any forget (run 'mem
    gc --prune=now' after).  The preview names them and counts the rules,
    never showing a text.

    Forgetting is the person's decision: run by an agent (CLAUDECODE,
    Codex's variables or MEM_AGENT set) it is refused with exit 6 and
    nothing changes; --dry-run still shows what would go.

    Exit status: 0 forgotten (or dry run, or nothing matched, or the key
    or session was already forgotten: a forget that was killed is finished
    by the next command, this one included; or a KEY or session 'mem fsck
    --repair' removed: its lost-refs line goes); 2 bad selector (also a KEY
    or --session holding a credential: refused, never echoed); 3 a KEY
    forget stopped by an older mem may have left its value in turns no hash
    finds (run the --match it names); 4 no such key, object or session; 1 not confirmed, or a full disk or file size limit
    stopped it (the message says whether it was noted as unfinished); 5 confirmed at the prompt, but a
    version or turn the preview did not show was written meanwhile
    (nothing forgotten);
    6 run by an agent; 11 store locked; 13 a key's ref set back (mem fsck --repair); 74 standard output could not be
    written (mem forget ... --yes > /dev/full): a confirmed forget is still
    carried out whole first, and stderr says whether it changed anything
    (a dry run did not); 130 interrupted; 141 standard output closed early
    (mem forget ... --yes | head -1): a confirmed forget is still carried
    out whole first.
    """
    from cmds._forgetstop import carry_out
    from objstore import NotFound, forget, later_turns
    if scrub_sources and match is None:
        raise click.UsageError("--scrub-sources goes with --match")
    if not dry_run:
        import os

        from objstore import require_person
        require_person(os.environ, "mem forget")   # an agent may ask the person, never forget for them
    if credentials:
        if what or match is not None or session is not None or scrub_sources:
            raise click.UsageError("--credentials goes alone (with --dry-run, --yes, --json)")
        _forget_credentials(store, yes, dry_run, as_json)
        return
    if what and "/" not in what and "@" not in what and what.strip().strip("0123456789abcdefABCDEF"):
        from objstore import validate_key
        validate_key(what)   # not an id, so a key without its scope: say that (fresh39 F12), exit 2
    if what and "/" in what and "@" not in what:
        from objstore import fact_ref, validate_key
        from objstore import forget_sealed, is_sealed
        if is_sealed(store, what) and store.refs.read(fact_ref(validate_key(what))) is None:
            _forget_sealed_key(store, validate_key(what), yes, dry_run, as_json, forget_sealed)
            return
    if what and "@" in what and "/" in what.partition("@")[0]:
        _refuse_sealed_version(store, what.partition("@")[0])
    import contextlib
    # with --yes nothing waits on a person: the plan shown is made under the store lock
    # and carried out under it, planned once; otherwise forget plans again after the answer
    held = store.lock("forget") if yes and not dry_run else contextlib.nullcontext()
    # a stopped forget is finished by taking the lock (the journal's replay): its rerun says so (fresh42 F9, test43 T5)
    resumed = store.journal.read().stopped_forgets() if yes and not dry_run else set()
    with held:
        try:
            plan = _planned(store, what, match, session)
        except NotFound:
            if not (what and "/" in what and "@" not in what or session) or not forget_lost(
                    store, what, session, dry_run, as_json):
                raise
            return
        remotes = holding_remotes(store, plan.object_ids())  # before forget deletes them: who got them from here
        finished = False
        if plan.already_forgotten and what and not dry_run:   # stopped before, by an older mem (test33b T6)?
            _finish_old_stop(store, what, as_json, what.partition("@")[0] in resumed)
        if plan.is_empty() and not dry_run:   # nothing is left: the same forget, if one was stopped
            from objstore import nothing_left  # before it wrote all its tombstones, is finished
            finished = nothing_left(store, plan)
            if finished and not as_json:
                click.echo("the same forget, stopped earlier before it finished, is now finished", err=True)
        scrub_only = plan.is_empty() and scrub_sources  # already forgotten (or never stored): the sources may
        if scrub_only:                                   # still hold it (asks per file: outside the lock)
            pass
        elif plan.is_empty():
            left = []
            temps = []
            ruled = False
            if match is not None and not dry_run:   # caches, logs and the registry may still name it
                from objstore import drop_leftover_temps, scrub_leftovers, text_rule_ahead
                left = scrub_leftovers(store, match)
                temps = drop_leftover_temps(store)   # and a killed writer's temp pack may hold it
                # a sync yet to come (test30b S16), only when confirmed and at least as long as a value's
                # text rule (test30c T1: "run" hid every later "running", unasked)
                ruled = bool(yes) and not plan.already_forgotten and text_rule_ahead(store, match)
                settle_match(store, match, as_json)   # (a KEY forget an older mem left stopped: _finish_old_stop)
            if as_json:
                emit_json({"dry_run": dry_run, "forgotten": False, "scrubbed": left, "text_rule_written": bool(ruled),
                           **({"text_rule_held": True} if ruled is None else {}),
                           "temps_deleted": [p for p, _n in temps], **plan_json(plan),
                           **({"keys_naming": _keys_naming(store, match), "sealed_not_searched": _sealed(store)}
                              if match is not None else {})})
            elif plan.already_forgotten:   # e.g. a forget killed mid-way, which this command's lock finished
                name, when = plan.already_forgotten
                said = safe(name.replace('session:', 'session ', 1))
                click.echo(f"finished the forget of {said} stopped earlier ({fmt_time(when)}): its value is gone"
                           if name.replace("session:", "", 1).partition("@")[0] in resumed else
                           f"{said} was already forgotten ({fmt_time(when)}); nothing left to forget")
            else:
                named = _keys_naming(store, match) if match is not None else []
                click.echo(("nothing matches" if not named else "no value holds it") + "; nothing forgotten"
                           if not left else
                           f"nothing stored holds it as a value; scrubbed {plural(len(left), 'derived file')} "
                           f"that named it ({', '.join(left[:5])})")
                _say_keys_naming(named)
                if ruled or ruled is None:   # a session id holding it, stored before (test42 T1): said, kept
                    from objstore import sessions_holding
                    if held := sessions_holding(store):
                        click.echo(f"{plural(len(held), 'session id')} stored before holds it and is kept (a forget "
                                   "renames no session; its later turns are captured under a hidden id): 'mem "
                                   "forget --session ID' forgets one whole")
                if ruled:
                    click.echo("wrote its text rule (a hash): a turn captured later that holds it is stored and "
                               "served without it; 'mem scan TEXT' also reads the agents' transcripts, which may hold it")
                elif ruled is None:   # run again: the first run's rule holds (test32 X19 was told the opposite)
                    click.echo("its text rule (a hash) is already written: a turn captured later that holds it is "
                               "stored and served without it")
                elif match is not None and not plan.already_forgotten and not dry_run:
                    click.echo("no text rule written (it needs --yes and 8 or more characters, a Chinese, Japanese or "
                               "Korean one counting two): a turn captured "
                               "later that holds it is served as it is")
            if not as_json:
                _say_temps(temps)
            if match is not None:
                _say_sealed_unsearched(store)
            if not (finished or left or temps):
                changed_nothing()   # a lost output then says so, not "its work was done" (V8)
            return
        else:
            if not as_json:
                _preview(plan, dry_run, store)
            if dry_run:
                hits = _source_hits(store, match) if scrub_sources and match is not None else None
                if as_json:
                    emit_json({"dry_run": True, **plan_json(plan), "later_turns": later_turns(store, plan),
                               **({"sources": [str(h.path) for h, _p in hits]} if hits is not None else {})})
                elif hits is not None:
                    _say_would_scrub("and then", hits)
                return
            if yes:
                with _rerun_when_unlogged(), _signals_deferred():
                    r = carry_out(store, plan, forget, what, match, session)
            else:
                confirm_or_exit("forget these for good?")
                from objstore import check_previewed
                with store.lock("forget"):    # planned again: only what the person saw goes (test18 U8)
                    shown, plan = plan.object_ids() | set(plan.queue_items), _planned(store, what, match, session)
                    check_previewed(shown, plan)
                    with _rerun_when_unlogged(), _signals_deferred():
                        r = carry_out(store, plan, forget, what, match, session)
    if match is not None and not scrub_only:
        settle_match(store, match, as_json)
    if scrub_only:
        _scrub_only(store, match, yes, dry_run, as_json)
        return
    if match is not None and not as_json:
        _say_keys_naming(_keys_naming(store, match))
        _say_sealed_unsearched(store)
    scrubbed_files = []
    if scrub_sources:
        scrubbed_files = _scrub_sources(store, match, yes, quiet_stdout=as_json)
    if as_json:
        from objstore import revived_values
        emit_json({"dry_run": False, "forgotten": True, **plan_json(r.plan), "later_turns": r.later_turns,
                   "now_current": {k: {"version": v.fact.version, "id": v.id}
                                   for k, v in revived_values(store, r.plan).items()},
                   "tombstones": r.tombstones, "version_records": r.records,
                   "objects_deleted": r.objects_deleted, "rewritten": r.rewritten,
                   "index_clean": not r.index_problems, "scrubbed": r.scrubbed,
                   "sources_scrubbed": scrubbed_files, "remotes_holding": remotes,
                   "temps_deleted": [p for p, _n in r.temps_deleted], "quarantine_deleted": r.quarantine_deleted,
                   **({"sealed_not_searched": _sealed(store)} if match is not None else {})})
        return
    _say_temps(r.temps_deleted)
    say_quarantine(r.quarantine_deleted)
    note_remotes_holding(remotes)
    c = r.plan.counts()
    if r.plan.retomb and not (c["versions"] or c["turns"] or c["meta"] or r.queue_dropped):
        n = len(r.plan.retomb) - r.plan.retomb_records
        click.echo(f"named {plural(n, 'forgotten key')} by hash in {'its tombstone' if n == 1 else 'their tombstones'} "
                   f"(the name held it): {plural(r.objects_deleted, 'object')} deleted")
        return
    if r.queue_dropped and not (c["versions"] or c["turns"] or c["meta"]):
        click.echo(f"dropped {plural(len(r.queue_dropped), 'queued proposal')} holding the text"
                   + ("; wrote its text rule (a hash): a value or turn written later that holds it is refused or "
                      "withheld" if r.tombstones else ""))
        return
    click.echo(f"forgot {plural(c['versions'], 'fact version')} and {plural(c['turns'], 'turn')}"
               + (f", took it out of {_meta_phrase(c['meta'])}" if c["meta"] else "")
               + (f", and {plural(c['unreferenced'], 'unreferenced object')}" if c["unreferenced"] else "") + ": "
               f"{tombstones_written(r)}, {len(r.rewritten)} "
               f"{'history' if len(r.rewritten) == 1 else 'histories'} rewritten"
               + (f" ({plural(r.later_turns, 'later turn')} written again)" if r.later_turns else "")
               + f", {plural(r.objects_deleted, 'object')} deleted, search index purged")
    _say_now_current(store, r.plan)
    for p in r.index_problems:
        click.echo(f"warning: index: {p}", err=True)
    if r.plan.unchecked:
        click.echo(f"warning: {plural(len(r.plan.unchecked), 'damaged object')} of this store could not be read, "
                   "so forget cannot tell whether they held the forgotten text; 'mem fsck --repair' sets them "
                   "aside, then 'mem gc' deletes whatever of them a tombstone forgets", err=True)
    if not scrub_sources and (r.plan.turns or r.plan.sessions) and _sources_hold(store, match):
        click.echo("note: the agent's own transcript files still hold the text "
                   "(see --scrub-sources, and docs/forget.md)", err=True)


def _finish_old_stop(store, what: str, as_json: bool, ours: bool) -> None:
    """A KEY forget stopped before it finished whose key an older mem then
    removed, the turns quoting its value left (test33b T6): finish them by
    the hashes kept (``objstore.finish_forgotten_key``); when there is none,
    keep the note, say what to run, exit 3; but not when this command's
    lock removed the key (``ours``: fresh42 F4)."""
    from objstore import finish_forgotten_key
    n = finish_forgotten_key(store, what)
    if n is None and ours:
        with store.lock("forget"):
            store.unfinished.done("what", what)
    elif n is None:
        click.echo(f"error: the forget of {safe(what)} was stopped before it finished, and an older mem then "
                   "removed the key: turns quoting its value may still hold it, and its value is too short "
                   "for a hash to find them; run: mem forget --match 'THE VALUE' --yes (the note stays "
                   "until then)", err=True)
        raise SystemExit(3)
    if n and not as_json:
        click.echo(f"finished the forget of {safe(what)} stopped earlier: withheld its value in "
                   f"{plural(n, 'turn')} it had left holding it", err=True)


def _say_temps(temps: list[tuple[str, int]]) -> None:
    """Name the temp files of killed writers the forget deleted (they may
    have held the text: ``objstore.drop_leftover_temps``)."""
    if temps:
        click.echo(f"deleted {plural(len(temps), 'temp file')} an interrupted write left "
                   f"({sum(n for _p, n in temps):,} bytes: {', '.join(p for p, _n in temps[:3])}"
                   f"{', …' if len(temps) > 3 else ''}): {'they' if len(temps) > 1 else 'it'} may have held it",
                   err=True)


def _forget_credentials(store, yes: bool, dry_run: bool, as_json: bool) -> None:
    """``mem forget --credentials`` (``objstore.plan_credentials``): preview
    (ids, never a text), confirm, redact."""
    from objstore import forget, plan_credentials
    held = store.lock("forget") if yes and not dry_run else contextlib.nullcontext()
    with held:
        plan = plan_credentials(store)
        rules = ", ".join(f"{r} x{n}" if n > 1 else r for r, n in sorted(plan.rules.items()))
        where = {"versions": [{"key": k, "id": v.id, "version": v.fact.version}
                              for k, vs in plan.redacted_versions.items() for v in vs],
                 "turns": [{"session": sid, "id": tv.id, "seq": tv.turn.seq}
                           for sid, tvs in plan.redacted.items() for tv in tvs],
                 "queue_items": [{"item": iid, "objects": sorted(red)} for iid, (_c, red) in plan.queue_redacted.items()],
                 "rules": dict(sorted(plan.rules.items()))}
        if plan.is_empty():
            if not dry_run:   # a run stopped before all its tombstones, whose rest was redacted since: done
                from objstore import drop_forgotten_reflog_entries, nothing_left
                nothing_left(store, plan)
                with store.lock("forget"):   # (test22 X2) an old text a reflog entry alone kept: gc may go
                    dropped = drop_forgotten_reflog_entries(store, reached=plan.walked)   # (its parent form too)
                if dropped and not as_json:
                    click.echo(f"dropped {plural(sum(dropped.values()), 'reflog entry')} naming an old text a "
                               "tombstone forgets; 'mem gc --prune=now' deletes it", err=True)
            if as_json:
                emit_json({"dry_run": dry_run, "redacted": False, **where})
            else:
                click.echo("no stored value or turn holds a credential by today's rules; nothing changed")
            return
        nv, nt, nq = len(where["versions"]), len(where["turns"]), len(where["queue_items"])
        remotes = holding_remotes(store, plan.object_ids())
        if not as_json:
            click.echo(f"{'would redact' if dry_run else 'will redact'} {plural(nv, 'fact version')} and "
                       f"{plural(nt, 'turn')}{_queue_part(nq)} still holding a credential"
                       f"{f' ({rules})' if rules else ''}; each keeps its place")
            lines = [f"  {safe(x['key'])}@v{x['version']}  {x['id'][:12]}" for x in where["versions"]]
            lines += [f"  turn {safe(x['session'])} #{x['seq']}  {x['id'][:12]}" for x in where["turns"]]
            lines += [f"  queue item {x['item'][:12]}" for x in where["queue_items"]]
            for line in lines[:PREVIEW_LINES]:
                click.echo(line)
            if len(lines) > PREVIEW_LINES:
                click.echo(f"  … and {len(lines) - PREVIEW_LINES} more")
        if dry_run:
            if as_json:
                emit_json({"dry_run": True, "redacted": False, **where})
            return
        if not yes:
            confirm_or_exit("redact these for good?")
            held = store.lock("forget")     # planned again under the lock: nothing changes in between
        else:
            held = contextlib.nullcontext()
        with held, _rerun_when_unlogged(), _signals_deferred():
            if not yes:
                plan = plan_credentials(store)
                nv = sum(map(len, plan.redacted_versions.values()))
                nt = sum(map(len, plan.redacted.values()))
                nq = len(plan.queue_redacted)
            r = forget(store, plan=plan)
            from objstore import drop_forgotten_reflog_entries
            drop_forgotten_reflog_entries(store, reached=plan.walked)   # (test22 X2) one an older mem's recovery left,
            # naming the old text or leading to it through its parents (mend24)
    if as_json:
        emit_json({"dry_run": False, "redacted": True, **where, "tombstones": r.tombstones,
                   "objects_deleted": r.objects_deleted, "rewritten": r.rewritten,
                   "index_clean": not r.index_problems, "scrubbed": r.scrubbed, "remotes_holding": remotes})
        return
    click.echo(f"redacted {plural(nv, 'fact version')} and {plural(nt, 'turn')}{_queue_part(nq)}: "
               f"{tombstones_written(r)}, {len(r.rewritten)} "
               f"{'history' if len(r.rewritten) == 1 else 'histories'} rewritten, "
               f"{plural(r.objects_deleted, 'object')} deleted, search index purged")
    note_remotes_holding(remotes, "the old text")
    for p in r.index_problems:
        click.echo(f"warning: index: {p}", err=True)
    click.echo("note: the agent's own transcript files may still hold the credential; 'mem scan' finds a "
               "text you know, and docs/forget.md says how to scrub it", err=True)


def _queue_part(n: int) -> str:
    """`` and N review-queue items`` for ``mem forget --credentials``'s lines, "" for none."""
    return f" and {plural(n, 'review-queue item')}" if n else ""


def _keys_naming(store, match: str) -> list[str]:
    from objstore import keys_naming
    return keys_naming(store, match)


def _sealed(store) -> int:
    """The number of sealed keys (``refs/sealed/``): their values are encrypted."""
    return sum(1 for _ in store.refs.iter("sealed"))


def _say_sealed_unsearched(store) -> None:
    """--match reads no sealed value (each is encrypted; forget never asks
    for the passphrase): say how many keys it could not search, and how to
    reach them (test16b B3: it said "nothing matches" while a sealed
    version held the text, and 'mem unseal' put it back in the clear)."""
    n = _sealed(store)
    if n:
        click.echo(f"note: {plural(n, 'sealed key')} {'was' if n == 1 else 'were'} not searched (their values are "
                   "encrypted): 'mem sealed list' names them, 'mem sealed show KEY' reads one, "
                   "'mem sealed forget KEY' forgets one whole; a key unsealed later is not checked either, "
                   "so run this forget again after 'mem unseal'", err=True)


def _say_keys_naming(keys: list[str]) -> None:
    """forget --match empties values and never renames a key: the keys
    whose name holds the text are named, with what forgets them
    (docs/forget.md, "A text in a key's name")."""
    if keys:
        shown = ", ".join(safe(k) for k in keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
        click.echo(f"note: the name of {plural(len(keys), 'key')} holds it ({shown}): --match empties values, "
                   f"never a key's name; 'mem forget KEY' forgets a key whole", err=True)


def _say_would_scrub(lead: str, hits) -> None:
    """The files ``--scrub-sources --dry-run`` would scrub (``hits`` of
    ``_source_hits``), one line each, after ``lead``."""
    nh = sum(1 for _h, plain in hits if plain)
    click.echo(f"{lead} would scrub {plural(len(hits) - nh, 'transcript file')}"
               + (f" and {plural(nh, 'shell history file')}" if nh else ""))
    for h, plain in hits:
        click.echo(safe(f"  {'shell history ' if plain else ''}{h.path}: {plural(h.lines, 'line')}"))


def _scrub_only(store, match: str, yes: bool, dry_run: bool, as_json: bool) -> None:
    """Nothing in the store holds MATCH: scrub only the transcript files."""
    from objstore import forgotten_at
    when = forgotten_at(store, match)
    what = (f"already forgotten ({fmt_time(when)})" if when else "nothing in the store matches")
    if dry_run:
        hits = _source_hits(store, match)
        if as_json:
            emit_json({"dry_run": True, "forgotten_at": when, "sources": [str(h.path) for h, _p in hits]})
            return
        _say_would_scrub(what + ";", hits)
        return
    click.echo(f"{what}; scrubbing the transcript and shell history files", err=as_json)
    done = _scrub_sources(store, match, yes, quiet_stdout=as_json)
    if as_json:
        emit_json({"dry_run": False, "forgotten": False, "forgotten_at": when, "sources_scrubbed": done})
    elif not done:
        click.echo("no transcript file holds it, nor a shell history")


def _refuse_sealed_version(store, key: str) -> None:
    """``KEY@vN`` of a sealed key: its versions are encrypted, so one cannot be
    emptied; say so (exit 4), not "no key" (test16b B3)."""
    from objstore import NotFound, fact_ref, is_sealed, validate_key
    try:
        key = validate_key(key)
    except Exception:  # noqa: BLE001 - a bad key gets forget's own message below
        return
    if is_sealed(store, key) and store.refs.read(fact_ref(key)) is None:
        raise NotFound(f"{key} is sealed: its versions are encrypted and cannot be forgotten one by one",
                       hint=f"forget every sealed version with 'mem forget {key}' (or 'mem sealed forget {key}'), "
                            f"or 'mem unseal {key}' first")


def _forget_sealed_key(store, key, yes, dry_run, as_json, forget_sealed) -> None:
    """A sealed key: its encrypted versions go, nothing is decrypted."""
    if not as_json:
        click.echo(f"{'would forget' if dry_run else 'will forget'} the sealed key {key} (every sealed version)")
    if dry_run:
        if as_json:
            emit_json({"dry_run": True, "sealed_key": key})
        return
    if not yes:
        confirm_or_exit("forget these for good?")
    n = forget_sealed(store, key)
    if as_json:
        emit_json({"dry_run": False, "sealed_key": key, "objects_deleted": n})
    else:
        click.echo(f"forgot the sealed key {key}: {plural(n, 'object')} deleted")


@contextlib.contextmanager
def _rerun_when_unlogged():
    """A forget whose ref move's log line could not be written (a full
    disk: ``WrittenUnlogged``) stopped there, with the rest of it (and the
    text) still stored: its next step is to run it again, never the
    writers' "do not run it again" (test31b V7: the hint left the secret
    stored)."""
    from objstore import WrittenUnlogged
    try:
        yield
    except WrittenUnlogged as e:
        raise WrittenUnlogged(f"{e.message}; the forget stopped there and the text is still stored", ref=e.ref,
                              new=e.new, log=e.log,
                              hint="free the space (or make the log writable), then run the same forget again: it "
                                   "finishes what this one started ('mem fsck' says what is unfinished)") from None


@contextlib.contextmanager
def _signals_deferred():
    """Hold SIGTERM, SIGHUP (the terminal closed) and SIGINT until the
    forget is done, then exit 128+signal: a forget stopped half-way keeps
    the value stored until the next writer finishes it, so it is finished
    first.  (SIGKILL cannot be held: the next holder of the store lock
    finishes the forget from the index journal.)"""
    import signal
    got: list[int] = []
    old = {}
    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        sig = getattr(signal, name, None)
        if sig is None:
            continue
        try:
            old[sig] = signal.signal(sig, lambda n, _f: got.append(n))
        except (ValueError, OSError):   # not the main thread
            pass
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
    if got:
        try:
            click.echo(f"stopped by signal {got[0]} after the forget was finished", err=True)
        except OSError:                 # the terminal is gone
            pass
        raise click.exceptions.Exit(128 + got[0])


def _sources(store) -> list[str]:
    """The imported transcript files; a damaged ledger (a cache) is a warning."""
    from .import_ import captured_sources, unchecked_note
    damaged: list[str] = []
    paths, unchecked = captured_sources(store, damaged)
    for d in damaged:
        click.echo(f"warning: {safe(d)}", err=True)
    if unchecked:
        click.echo(f"warning: {unchecked_note(unchecked)}", err=True)
    return paths


def _sources_hold(store, match: str | None) -> bool:
    """Whether a captured transcript file holds MATCH (read, as scan reads
    them), or for a forget by key or session whether one still exists: the
    note said so without looking (fresh40 F9)."""
    from objstore import find_in_sources
    paths = _sources(store)
    return bool(paths) and (match is None or bool(find_in_sources(paths, match)))


def _source_hits(store, match: str) -> list:
    """``(hit, plain)`` for each file holding MATCH: the transcripts the store
    captured from, then the shell history files 'mem scan' reads (plain text)."""
    import os

    from objstore import find_in_sources, shell_histories
    hits = [(h, False) for h in find_in_sources(_sources(store), match)]
    histories = [str(p) for p in shell_histories(os.path.expanduser("~"), os.environ.get("HISTFILE", ""),
                                                 os.environ.get("XDG_DATA_HOME", ""))]
    return hits + [(h, True) for h in find_in_sources(histories, match, plain=True)]


def _inode(path) -> tuple[int, int] | None:
    """``(device, inode)`` of the file ``path`` names (a link followed), or None."""
    import os
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _scrub_sources(store, match: str, yes: bool, quiet_stdout: bool = False) -> list[str]:
    from objstore import scrub_captured, scrub_source
    from .import_ import transcript_roots
    roots = transcript_roots()   # as scan's list: a file under them is a transcript (scrub_captured)
    done = []
    shells = False
    for hit, plain in _source_hits(store, match):
        what = "shell history " if plain else ""
        click.echo(f"{what}{hit.path}: the text is on {plural(hit.lines, 'line')}", err=quiet_stdout)
        if not yes:
            try:
                ok = click.confirm(f"redact it in {hit.path} (no backup is kept)?", err=True)
            except click.Abort:
                ok = False
            if not ok:
                continue
        # a transcript: its rewritten records are named first, so no capture takes them for new ones
        before = _inode(hit.path)
        n = scrub_source(hit.path, match, plain=True) if plain else scrub_captured(store, hit.path, match, roots)
        click.echo(f"  redacted {plural(n, 'line')}", err=quiet_stdout)
        if not plain and before is not None and _inode(hit.path) != before:
            click.echo(f"warning: {safe(str(hit.path))} was replaced, not rewritten in place (a line could not keep its "
                       "length): an agent still writing it loses what it writes from now; close that session",
                       err=True)
        done.append(str(hit.path))
        shells = shells or plain
    if shells:
        click.echo("note: a shell still open keeps its own history and may write the line back when it exits "
                   "('history -c' in it, or close it, then scrub again)", err=True)
    return done
