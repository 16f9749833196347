"""mem audit."""

import click

from ._common import TimeType, emit_json, fmt_time, home_path, json_option, with_store


@click.command("audit")
@click.option("--since", type=TimeType(), help="Only events at or after TIME.")
@click.option("-n", "--max-count", "limit", type=click.IntRange(1), help="Only the last N events.")
@json_option
@with_store()
def command(since, limit, as_json, store):
    """Show the audit log: every write, decision, injection, forget and sync (ids only).

    One append-only log of every ref move (writes and supersedes, queue
    decisions, decay, pins, injections recorded as uses, imports, forgets)
    and of syncs, oldest first: time, command, ref, old and new id.  It
    never holds a value.  It outlives its refs (a closed queue item, a
    forgotten key); a forget keeps the lines and replaces the forgotten
    ids with 'forgotten', and the ids of what it wrote again with a new id
    (a later version of the key) with 'rewritten'.

    \b
    Examples:
      mem audit --since 2026-11-01
      mem audit -n 50
      mem audit --json

    Lines that are not audit lines (garbage, a mangled line) are skipped
    with a warning naming them.

    Exit status: 0 ok; 2 a bad TIME; 10 no store.
    """
    from objstore import audit_damage_note, audit_log, logs_path
    logs = logs_path(home_path(click.get_current_context()))
    entries = audit_log(logs, since=since)
    if note := audit_damage_note(logs):   # (fresh40 F10: skipped silently)
        click.echo(f"warning: {note}", err=True)
    if limit:
        entries = entries[-limit:]
    if as_json:
        emit_json([{"time": e.time, "command": e.command, "ref": e.ref or None, "old": e.old, "new": e.new}
                   for e in entries])
        return
    from objstore import is_rewrite
    for e in entries:   # a history rewrite's first line has no old id: "(rewritten)", as mem reflog (test42 T15)
        old = "(rewritten)" if is_rewrite(e) else (e.old or "(none)")[:12]
        new = (e.new or "(none)")[:12]
        click.echo(f"{fmt_time(e.time)}  {e.command:<24} {e.ref or '-'}  {old} -> {new}")
