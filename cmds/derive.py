"""mem derive."""

import os

import click

from ._common import emit_json, home_path, json_option, plural, safe, with_store


@click.group("derive", invoke_without_command=True)
@click.option("--plan", "show_plan", is_flag=True, help="Send nothing: list every excerpt a run would send, and where.")
@click.option("--apply", "do_apply", is_flag=True, help="File what the rules admit (writes, queues, episodes).")
@click.option("--provider", type=click.Choice(["claude", "openai", "ollama"]), help="Override [derive] provider.")
@click.option("--sources", type=click.Choice(["interactive", "all"]), default="interactive", show_default=True,
              help="Which sessions to read.")
@click.option("--session", "sessions", multiple=True, metavar="ID", help="Only this session (repeatable).")
@json_option
@click.pass_context
def command(ctx, show_plan, do_apply, provider, sources, sessions, as_json):
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
    failed is read again next time.  Provider: [derive] in the store's
    config.toml (provider, model, base_url, api_key_env, timeout), else
    OPENAI_BASE_URL/OPENAI_MODEL/OPENAI_API_KEY, else 'claude -p'.

    \b
    Examples:
      mem derive --plan
      mem derive
      mem derive --apply
      mem derive --provider openai --session 0f3c2a…
      mem derive report

    Exit status: 0 ok (also when some sessions failed: they are listed and
    stay unread); 2 bad option; 10 no store; 11 store locked.
    """
    if ctx.invoked_subcommand is not None:
        return
    from objstore import derive_config, derive_plan, derive_provider, derive_run, open_store
    store = open_store(home_path(ctx))
    ctx.call_on_close(store.close)
    prov = derive_provider(derive_config(store.root), os.environ, provider)
    plan = derive_plan(store, prov, sources=sources, sessions=list(sessions) or None)
    if show_plan:
        _show_plan(plan, as_json)
        return
    if not plan.excerpts:
        click.echo("nothing new to derive from", err=True)
        if as_json:
            emit_json({"calls": 0, "decisions": [], "failed": {}})
        return
    res = derive_run(store, plan, os.environ, apply=do_apply)
    _show_run(res, as_json)


def _show_plan(plan, as_json):
    if as_json:
        emit_json({"destination": plan.provider.destination(), "sessions": plan.sessions,
                   "excerpts": [{"session": e.session, "project": e.project, "chars": e.chars,
                                 "turns": [{"n": n, "id": oid, "role": r, "chars": len(t)} for n, oid, r, t in e.turns]}
                                for e in plan.excerpts],
                   "chars": plan.chars, "calls": len(plan.excerpts)})
        return
    for e in plan.excerpts:
        click.echo(safe(f"session {e.session} ({e.project or '-'}): {plural(len(e.turns), 'turn')}, "
                        f"{e.chars:,} characters"))
        for n, oid, role, text in e.turns:
            click.echo(safe(f"  [{n}] {oid[:12]} {role}: {' '.join(text.split())[:100]}"))
    click.echo(f"would send {plural(len(plan.excerpts), 'excerpt')} of {plural(plan.sessions, 'session')}, "
               f"{plan.chars:,} characters, in {plural(len(plan.excerpts), 'model call')} to "
               f"{plan.provider.destination()}")


def _show_run(res, as_json):
    from objstore import derive_decision_json
    if as_json:
        emit_json({"applied": res.applied, "calls": res.calls, "counts": res.counts(), "failed": res.failed,
                   "episodes": res.episodes, "report": res.report,
                   "decisions": [derive_decision_json(d) for d in res.decisions]})
        return
    for d in res.decisions:
        what = {"write": "admit", "invalid": "reject", "tombstoned": "skip (forgotten)",
                "no-evidence": "reject (no evidence)", "suspicious": "queue (suspicious)",
                "key-conflict": f"queue (replaces {d.replaces})", "change-user-stated": "queue (you stated otherwise)"}
        click.echo(safe(f"{what.get(d.rule, d.rule):<28} {d.key} = {' '.join(d.value.split())[:80]}"))
    for sid, why in res.failed.items():
        click.echo(safe(f"failed: session {sid}: {why} (stays unread)"), err=True)
    tail = f"report {res.report}" if res.applied else "nothing filed (add --apply)"
    click.echo(f"{plural(res.calls, 'call')}, {plural(len(res.decisions), 'proposal')}: "
               + ", ".join(f"{n} {r}" for r, n in sorted(res.counts().items())) + f"; {tail}")


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
        click.echo(f"17 3 * * * MEM_HOME={home} {exe} derive --apply >> {home}/logs/derive.log 2>&1")
    elif kind == "systemd":
        click.echo(f"# ~/.config/systemd/user/mem-derive.service\n[Service]\nType=oneshot\nEnvironment=MEM_HOME={home}\n"
                   f"ExecStart={exe} derive --apply\n\n# ~/.config/systemd/user/mem-derive.timer\n[Timer]\n"
                   "OnCalendar=daily\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n"
                   "# then: systemctl --user enable --now mem-derive.timer")
    else:
        click.echo(f'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>\n'
                   f"<key>Label</key><string>dev.memvcs.derive</string>\n"
                   f"<key>ProgramArguments</key><array><string>{exe}</string><string>derive</string>"
                   f"<string>--apply</string></array>\n"
                   f"<key>EnvironmentVariables</key><dict><key>MEM_HOME</key><string>{home}</string></dict>\n"
                   "<key>StartCalendarInterval</key><dict><key>Hour</key><integer>3</integer></dict>\n"
                   "</dict></plist>\n<!-- ~/Library/LaunchAgents/dev.memvcs.derive.plist; launchctl load -w it -->")
