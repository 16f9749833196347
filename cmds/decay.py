"""mem decay."""

import click

from ._common import emit_json, fmt_time, json_option, plural, safe, short, with_store


@click.command("decay")
@click.option("--dry-run", is_flag=True, help="Show what would go dormant and stop.")
@click.option("--days", type=click.IntRange(0, 36500), default=None,
              help="Idle active days before a fact goes dormant (default: the setting decay.days, 60 unless "
                   "'mem config decay.days N').")
@click.option("--if-due", is_flag=True, help="Do nothing if decay ran less than a day ago (for hooks).")
@json_option
@with_store()
def command(dry_run, days, if_due, as_json, store):
    """Make facts unused for decay.days dormant: searchable, never injected.

    A fact goes dormant when it was not written, injected or reinforced for
    decay.days active days (default 60; mem config decay.days N) and is not
    pinned.  Days are
    active days of the fact's scope: days with a session in its project
    (any session, for user and global facts), so a project you leave does
    not age while you are away.  Each change
    is a new version with the same value, so it shows in mem log; mem
    reinforce KEY or mem pin KEY wakes the fact again.

    \b
    Examples:
      mem decay --dry-run
      mem decay --days 30
      mem decay --if-due          # at most once a day (session-start hook)

    Exit status: 0 ok (also when nothing decayed); 2 a bad decay.days in
    config.toml; 11 store locked.
    """
    from objstore import decay
    rep = decay(store, days=days, dry_run=dry_run, if_due=if_due)
    if as_json:
        emit_json({"days": rep.days, "checked": rep.checked, "dry_run": rep.dry_run, "skipped": rep.skipped,
                   "dormant": [{"key": c.key, "id": c.version.id, "version": c.version.fact.version,
                                "last_active": c.last_active, "idle_days": c.idle_days} for c in rep.dormant]})
        return
    if rep.skipped:
        click.echo("decay ran less than a day ago; nothing to do")
        return
    verb = "would make" if dry_run else "made"
    click.echo(f"checked {plural(rep.checked, 'key')}; {verb} {plural(len(rep.dormant), 'fact')} dormant "
               f"(idle more than {plural(rep.days, 'day')})")
    for c in rep.dormant:
        click.echo(safe(f"  {c.key}  idle {c.idle_days}d since {fmt_time(c.last_active)}  "
                        f"{short(c.version.fact.body, 40)}"))
    for e in rep.index_errors[:1]:
        click.echo(f"warning: the search index was not updated: {e}\nhint: run 'mem reindex'", err=True)
