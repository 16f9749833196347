"""mem derive."""

import os

import click

from ._common import emit_json, home_path, json_option, plural, progress_bar, safe, with_store


@click.group("derive", invoke_without_command=True)
@click.option("--plan", "show_plan", is_flag=True, help="Send nothing: list every excerpt a run would send, and where.")
@click.option("--apply", "do_apply", is_flag=True, help="File what the rules admit (writes, queues, episodes).")
@click.option("--provider", type=click.Choice(["claude", "openai", "ollama"]), help="Override [derive] provider.")
@click.option("--sources", type=click.Choice(["interactive", "all"]),
              help="Which turns to read: interactive (default; not claude -p or Agent SDK runs) or all. "
                   "Default: derive.sources.")
@click.option("--session", "sessions", multiple=True, metavar="ID", help="Only this session (repeatable).")
@click.option("--auto", "auto", is_flag=True,
              help="What the session-start hook starts when derive.auto is on: apply, at most once a day, "
                   "only after --plan was shown; quiet.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary line and failures (no values); "
                                                 "with --plan, only its 'would send' line.")
@json_option
@click.pass_context
def command(ctx, show_plan, do_apply, provider, sources, sessions, auto, quiet, as_json):
    """Derive facts from sessions with a model; rules decide what is admitted.

    --plan sends nothing: it lists every excerpt a run would send with its
    source, the destination, and the counts of sessions, excerpts,
    characters and calls.  Without --apply a run calls the model and prints
    the proposals with what each rule decided, filing nothing.  --apply
    files them: admitted facts are written with trust 'derived' and the
    cited turns as sources; instruction-shaped values, key conflicts and
    changes to what you stated go to the review queue.  A value whose words
    are not all in the cited turns is rejected (the evidence check).  A run
    reads only turns newer than the last applied run; a session whose call
    failed is read again next time.  Only turns a person was present for
    are read unless --sources all (turns of 'claude -p' and Agent SDK runs
    record entrypoint sdk-*; a turn with none counts as interactive).
    Provider: [derive] in the store's config.toml (provider, model,
    base_url, api_key_env, timeout), else OPENAI_BASE_URL/OPENAI_MODEL/
    OPENAI_API_KEY, else 'claude -p'.  'mem config derive.auto true' runs
    it daily from the session-start hook once --plan has been shown to the
    person: a --plan run by an agent (CLAUDECODE, Codex's variables or
    MEM_AGENT set) prints the plan but does not count as shown.

    \b
    Examples:
      mem derive --plan
      mem derive
      mem derive --apply
      mem derive --provider openai --session 0f3c2a
      mem derive --plan -q
      mem derive --sources all --plan
      mem derive report

    --session takes a session id or an unambiguous prefix of one (as mem
    show does); a prefix of a session and its sub-agents names the session.

    Exit status: 0 ok (also when some sessions failed: they are listed and
    stay unread; and --auto when no run is due); 1 the provider cannot be
    called at all (the claude CLI is not on PATH; nothing was sent); 2 bad
    option or config; 4 --session names no session, or several; 10 no
    store; 11 store locked; 13 cache/derive-state.json is damaged (nothing
    sent or filed; mem doctor --fix sets it aside).
    """
    if ctx.invoked_subcommand is not None:
        return
    import objstore
    store = objstore.open_store(home_path(ctx))
    ctx.call_on_close(store.close)
    cfg = objstore.derive_config(store.root)
    prov = objstore.derive_provider(cfg, os.environ, provider)
    sources = sources or cfg.get("sources") or "interactive"
    max_calls = None
    if auto:
        status = objstore.derive_auto_status(store, cfg, prov)
        if status != "due" or not objstore.derive_auto_claim(store, cfg, prov):
            click.echo(f"no automatic derive run: {status if status != 'due' else 'another run claimed today'}"
                       + (f" ({_AUTO[status]})" if status == "state-damaged" else ""), err=True)
            return
        do_apply, quiet, max_calls = True, True, objstore.config_value(store.root, "derive.auto_max_calls")
    plan = objstore.derive_plan(store, prov, sources=sources, sessions=list(sessions) or None)
    if show_plan:
        agent = objstore.agent_of(os.environ)
        if agent is None:   # the person saw where excerpts go: derive.auto may run (an agent seeing it is not that)
            objstore.derive_mark_plan_shown(store, prov)
        _show_plan(plan, as_json, objstore.derive_auto_status(store, cfg, prov), quiet)
        if agent is not None and not as_json:
            click.echo(f"note: shown to an agent ({agent}): derive.auto runs only once the person has run "
                       "'mem derive --plan' themselves", err=True)
        return
    if not plan.excerpts:
        click.echo("nothing new to derive from", err=True)
        if as_json:
            emit_json({"calls": 0, "decisions": [], "failed": {}})
        return
    with progress_bar("model calls") as update:
        res = objstore.derive_run(store, plan, os.environ, apply=do_apply, max_calls=max_calls,
                                  trigger="auto" if auto else "manual", progress=update)
    _show_run(res, as_json, quiet)


_AUTO = {"off": "derive.auto is off: nothing runs unless you run it",
         "plan-not-shown": "derive.auto is on, but waits until the person runs 'mem derive --plan'",
         "due": "derive.auto is on: the next session start runs this in the background (once a day)",
         "not-due": "derive.auto is on: it ran in the last 24 hours; the next session start after that runs it",
         "state-damaged": "derive.auto is on, but cache/derive-state.json is damaged: nothing runs until "
                          "'mem doctor --fix' sets it aside"}


def _show_plan(plan, as_json, auto, quiet=False):
    if as_json:
        emit_json({"destination": plan.provider.destination(), "sessions": plan.sessions,
                   "excerpts": [{"session": e.session, "project": e.project, "chars": e.chars,
                                 "turns": [{"n": n, "id": oid, "role": r, "chars": len(t)} for n, oid, r, t in e.turns]}
                                for e in plan.excerpts],
                   "chars": plan.chars, "calls": len(plan.excerpts), "sources": plan.sources,
                   "new_turns": plan.new_turns, "auto": auto})
        return
    for e in () if quiet else plan.excerpts:
        click.echo(safe(f"session {e.session} ({e.project or '-'}): {plural(len(e.turns), 'turn')}, "
                        f"{e.chars:,} characters"))
        for n, oid, role, text in e.turns:
            click.echo(safe(f"  [{n}] {oid[:12]} {role}: {' '.join(text.split())[:100]}"))
    click.echo(f"would send {plural(len(plan.excerpts), 'excerpt')} of {plural(plan.sessions, 'session')}, "
               f"{plan.chars:,} characters, in {plural(len(plan.excerpts), 'model call')} to "
               f"{plan.provider.destination()}")
    if quiet:
        return
    other = "all" if plan.sources == "interactive" else "interactive"
    click.echo(f"sources: {plan.sources} ({plural(plan.new_turns.get(plan.sources, 0), 'new turn')}; "
               f"--sources {other} would read {plan.new_turns.get(other, 0):,})")
    click.echo(_AUTO.get(auto, f"derive.auto: {auto}"))


def _show_run(res, as_json, quiet=False):
    from objstore import DERIVE_MAX_FACTS_PER_ANSWER as MAX_FACTS_PER_ANSWER, derive_decision_json
    if as_json:
        emit_json({"applied": res.applied, "calls": res.calls, "counts": res.counts(), "failed": res.failed,
                   "over_cap": res.over_cap,
                   "episodes": res.episodes, "episodes_refused": res.episodes_refused, "report": res.report,
                   "decisions": [derive_decision_json(d) for d in res.decisions]})
        return
    for d in () if quiet else res.decisions:
        what = {"write": "admit", "invalid": "reject", "tombstoned": "skip (forgotten)",
                "no-evidence": "reject (no evidence)", "negated": "reject (turns say otherwise)",
                "suspicious": "queue (suspicious)",
                "key-conflict": f"queue (replaces {d.replaces})", "change-user-stated": "queue (you stated otherwise)",
                "out-of-scope": "queue (outside the session)", "updated-later": "queue (you updated it later)"}
        shown = derive_decision_json(d)["value"]   # credentials masked, as in --json
        click.echo(safe(f"{what.get(d.rule, d.rule):<28} {d.key} = {' '.join(shown.split())[:80]}"))
    for sid, why in () if quiet else res.episodes_refused.items():
        click.echo(safe(f"{'reject (episode)':<28} session {sid}: {why}"))
    for sid, why in res.failed.items():
        click.echo(safe(f"failed: session {sid}: {why} (stays unread)"), err=True)
    tail = f"report {res.report}" if res.applied else "nothing filed (add --apply)"
    if res.deferred:
        tail += f"; {plural(res.deferred, 'excerpt')} left for the next run"
    if res.over_cap:   # (a broken or hostile endpoint: the prompt asks for a few facts)
        tail += f"; {plural(res.over_cap, 'proposal')} past {MAX_FACTS_PER_ANSWER} in one answer not read"
    counts = ", ".join(f"{n} {r}" for r, n in sorted(res.counts().items()))
    failed = f", {plural(len(res.failed), 'session')} failed" if res.failed else ""
    eps = ""
    if res.episodes or res.episodes_refused:
        eps = (f"; {plural(res.episodes, 'episode')} written" if res.applied else "") \
            + (f"; {plural(len(res.episodes_refused), 'episode')} rejected" if res.episodes_refused else "")
    click.echo(f"{plural(res.calls, 'call')}{failed}, {plural(len(res.decisions), 'proposal')}"
               + (f": {counts}" if counts else "") + f"{eps}; {tail}")


@command.command("report")
@click.argument("report_id", required=False)
@json_option
@with_store()
def report_cmd(report_id, as_json, store):
    """Show derive reports (keys, ids and counts; never values), newest first.

    \b
    Examples:
      mem derive report
      mem derive report 1a2b3c --json

    Exit status: 0 ok; 4 no such report; 10 no store.
    """
    from objstore import NotFound, derive_reports
    reps = derive_reports(store)
    if report_id:
        reps = [r for r in reps if str(r.get("id", "")).startswith(report_id)]
        if not reps:
            raise NotFound(f"no derive report {report_id}")
    if as_json:
        emit_json(reps)
        return
    if not reps:
        click.echo("no derive run was applied yet")
    from ._common import fmt_time
    for r in reps:
        counts = ", ".join(f"{n} {k}" for k, n in sorted(r.get("counts", {}).items()))
        click.echo(f"{r['id']}  {fmt_time(r.get('time', 0))}  {r.get('calls')} calls  {counts}  "
                   f"{r.get('episodes', 0)} episodes" + (f"  failed: {len(r['failed'])}" if r.get("failed") else ""))


@command.command("install")
@click.option("--kind", type=click.Choice(["cron", "systemd", "launchd"]), default="cron", show_default=True)
@click.pass_context
def install_cmd(ctx, kind):
    """Print a daily schedule for 'mem derive --apply' (cron line, systemd timer or launchd agent).

    Nothing is installed: paste what it prints where it belongs.  Read
    'mem derive --plan' first: a run sends excerpts to the provider.

    \b
    Examples:
      mem derive install >> my-crontab
      mem derive install --kind systemd

    Exit status: 0 ok.
    """
    import shutil
    exe = shutil.which("mem") or "mem"
    home = home_path(ctx)
    if kind == "cron":
        click.echo(f"17 3 * * * MEM_HOME={home} {exe} derive --apply --quiet >> {home}/logs/derive.log 2>&1")
    elif kind == "systemd":
        click.echo(f"# ~/.config/systemd/user/mem-derive.service\n[Service]\nType=oneshot\nEnvironment=MEM_HOME={home}\n"
                   f"ExecStart={exe} derive --apply --quiet\n\n# ~/.config/systemd/user/mem-derive.timer\n[Timer]\n"
                   "OnCalendar=daily\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n"
                   "# then: systemctl --user enable --now mem-derive.timer")
    else:
        click.echo(f'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>\n'
                   f"<key>Label</key><string>dev.memvcs.derive</string>\n"
                   f"<key>ProgramArguments</key><array><string>{exe}</string><string>derive</string>"
                   f"<string>--apply</string><string>--quiet</string></array>\n"
                   f"<key>EnvironmentVariables</key><dict><key>MEM_HOME</key><string>{home}</string></dict>\n"
                   "<key>StartCalendarInterval</key><dict><key>Hour</key><integer>3</integer></dict>\n"
                   "</dict></plist>\n<!-- ~/Library/LaunchAgents/dev.memvcs.derive.plist; launchctl load -w it -->")
