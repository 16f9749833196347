"""What ``mem forget`` says of a key's or session's lost-refs line and of
the quarantine folders that may hold its damaged data (test34 T7).

``mem fsck --repair`` that removes a ref with nothing of it readable records
it in ``lost-refs`` and marks the quarantine folder it filled; gc keeps that
folder while the ref is lost.  A forget of such a ref drops its line and
deletes the folder (``objstore.forget_lost_ref``, ``drop_lost_quarantine``),
naming the other lost refs whose data went with it.
"""

from __future__ import annotations

import click

from cmds._common import changed_nothing, emit_json, fmt_time, plural, safe


def forget_lost(store, what, session, dry_run: bool, as_json: bool) -> bool:
    """A KEY or session found nowhere that 'mem fsck --repair' recorded as
    lost (``lost-refs``): its line goes, so fsck and doctor stop asking for
    it back, and so do the quarantine folders holding its data
    (``objstore.forget_lost_ref``).  False when not recorded."""
    from objstore import forget_lost_ref
    gone, folders = forget_lost_ref(store, what=what if not session else None, session=session, dry_run=dry_run)
    if not gone:
        return False
    name = gone[0].name
    if as_json:
        emit_json({"dry_run": dry_run, "forgotten": False, "lost_ref": name, "lost_ref_dropped": not dry_run,
                   "quarantine_deleted": folders})
        return True
    click.echo(f"{safe(name)}: nothing of it is stored ('mem fsck --repair' removed it, "
               f"{fmt_time(gone[-1].time_ms)}); {'would drop' if dry_run else 'dropped'} its line in lost-refs, "
               "so fsck and doctor no longer ask for it back")
    say_quarantine(folders, dry_run)
    click.echo("note: a remote or backup that holds it still does (forget it there too)", err=True)
    if dry_run:
        changed_nothing()
    return True


def say_quarantine(folders: dict[str, list[str]], dry_run: bool = False) -> None:
    """Name the quarantine folders the forget deleted (``quarantine/<name>``
    -> the other lost refs its repair marked there), on stderr."""
    for q, others in folders.items():
        also = (f"; the damaged data of {plural(len(others), 'other lost ref')} set aside there went with it "
                f"({safe(', '.join(others))}: a remote or backup still puts them back)" if others else "")
        click.echo(f"{'would delete' if dry_run else 'deleted'} {safe(q)}: the repair that removed it set its "
                   f"damaged data aside there{also}", err=True)
