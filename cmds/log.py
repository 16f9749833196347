"""mem log."""

import click

from ._common import TimeType, complete_key, emit_json, fmt_time, json_option, safe, with_store
from ._out import body_text, edge_lines, version_json


@click.command("log")
@click.argument("key", shell_complete=complete_key)
@click.option("--as-of", type=TimeType(), help="Show only what was recorded by TIME and mark what was current then.")
@json_option
@with_store()
def command(key, as_of, as_json, store):
    """Show every version of KEY, newest first.

    Walks the parent links from the head: nothing is hidden.  The current
    version is marked; a version's edges (mem remember --relates-to, ...)
    are listed under its value.  With --as-of, versions recorded after TIME are left
    out and the version current at TIME is marked.  A version scheduled ahead is
    marked "(scheduled: not valid yet)" until its time (at TIME with --as-of), and
    a lower-trust version scheduled ahead that a later higher-trust write
    overrules (it never takes over from it) "(overruled by vN: never current)";
    --json gives each version "due" (true: valid by now, or TIME) and
    "overruled_by" (that version's number, or null).

    \b
    Examples:
      mem log project/api/db
      mem log project/api/db --as-of 2026-03-01
      mem log project/api/db --json

    A sealed key shows its versions with the values masked.

    Exit status: 0 ok; 4 no such key (or nothing recorded by --as-of); 10 no store.
    """
    from objstore import NotFound
    from objstore import current_of, is_lost_stub, log_marks, lost_current, lost_current_message, now_ms, versions
    from objstore import is_sealed
    from objstore import set_back_of
    if back := set_back_of(store, key):   # said first: the newer version is not in the list below
        click.echo(f"warning: {safe(back['warning'])}", err=True)   # (a sealed key's too: test39b B17)
    marked = (lambda v: {"set_back": back} if back and v.id == back["id"] else {})   # (--json: the version its
    if is_sealed(store, key):                                                        #  ref holds; test41 T6)
        return _sealed_log(store, key, as_of, as_json, marked)
    chain = versions(store, key)
    if as_of is not None:
        chain = [v for v in chain if v.fact.recorded_at <= as_of]
        if not chain:
            raise NotFound(f"{key} had no version recorded by {fmt_time(as_of)}")
    cur = current_of(chain, as_of)
    at = now_ms() if as_of is None else as_of
    marks = log_marks(chain, at)
    lost = lost_current(chain, None, as_of) if cur is None else None
    if lost is not None:   # said first: no version below is marked current, and why
        click.echo(f"warning: {lost_current_message(key, chain, lost)}", err=True)
    if as_json:
        emit_json([{**version_json(v, current=cur is not None and v.id == cur.id), **mark_json(marks[v.id], v.fact.valid_from, at),
                    **marked(v)} for v in chain])
        return
    for v in chain:
        f = v.fact
        mark = "  (current)" if cur is not None and v.id == cur.id else mark_text(marks[v.id], f.forgotten)
        pin = ("  pinned" if f.pinned else "") + ("  dormant" if f.dormant else "")
        click.echo(click.style(f"v{f.version}  {v.id[:12]}", fg="yellow")
                   # a lost version's trust is unknown: its placeholder's is no one's word (test34b T18)
                   + f"  valid {fmt_time(f.valid_from)}  {'?' if is_lost_stub(f) else f.trust}  {f.kind}{pin}{mark}"
                   + (safe(f"  namespace {f.namespace}") if f.namespace else ""))
        for line in body_text(f).splitlines() or [""]:
            click.echo(f"    {line}")
        for line in edge_lines(f.edges):
            click.echo(click.style(safe(f"    -> {line}"), dim=True))


def mark_json(mark: tuple, valid_from: int, at: int) -> dict:
    """The JSON fields of a version's schedule (``log_marks``): ``due``
    and ``overruled_by`` (docs/cli.md, mem log).  ``due`` is the version's
    own: valid from ``valid_from`` (ms) by ``at`` (ms), also for an
    overruled one, which the rule read at the overruling write's time (a
    2027 version overruled now said "due": true, test33b T11)."""
    return {"due": mark[0] and valid_from <= at, "overruled_by": mark[1]}


def mark_text(mark: tuple, gone: bool = False) -> str:
    """A version's schedule in the text log: overruled (it never takes
    over), or not valid yet; nothing for the rest (or a ``gone`` one)."""
    due, by = mark
    if gone:
        return ""
    return (f"  (overruled by v{by}: never current)" if by is not None
            else "" if due else "  (scheduled: not valid yet)")


SEALED_MASK = "•••••• (sealed: mem sealed show {key})"


def sealed_json(sv, *, current: bool) -> dict:
    """The JSON shape of a sealed version in log/show: the fact shape with
    ``body`` null and ``sealed`` true (never the ciphertext)."""
    s = sv.sealed
    return {"id": sv.id, "key": s.key, "version": s.version, "body": None, "sealed": True, "kind": s.kind,
            "valid_from": s.valid_from, "recorded_at": s.recorded_at, "trust": s.trust,
            "owner": s.owner, "parent": s.parent, "current": current}


def _sealed_log(store, key, as_of, as_json, marked=lambda v: {}):
    from objstore import NotFound
    from objstore import current_sealed, forgotten_stub_time, is_lost_stub, lost_sealed_message, now_ms
    from objstore import sealed_marks, sealed_versions
    chain = sealed_versions(store, key)
    if as_of is not None:
        chain = [v for v in chain if v.sealed.recorded_at <= as_of]
        if not chain:
            raise NotFound(f"{key} had no version recorded by {fmt_time(as_of)}")
    cur_v = current_sealed(chain, as_of)
    cur = cur_v.id if cur_v is not None else None
    at = now_ms() if as_of is None else as_of
    marks = sealed_marks(chain, at)
    lost = lost_sealed_message(key, chain, as_of) if cur is None else None
    if lost:   # said first: no version below is marked current, and why
        click.echo(f"warning: {lost}", err=True)
    if as_json:
        emit_json([{**sealed_json(v, current=v.id == cur), **mark_json(marks[v.id], v.sealed.valid_from, at), **marked(v)}
                   for v in chain])
        return
    for v in chain:
        s = v.sealed
        gone = forgotten_stub_time(s)
        mark = "  (current)" if v.id == cur else mark_text(marks[v.id], is_lost_stub(s) or gone is not None)
        click.echo(click.style(f"v{s.version}  {v.id[:12]}", fg="yellow")
                   + f"  valid {fmt_time(s.valid_from)}  {s.trust}  {s.kind}  sealed{mark}")
        click.echo("    (lost)" if is_lost_stub(s) else f"    (forgotten at {fmt_time(gone)})" if gone is not None
                   else safe(f"    {SEALED_MASK.format(key=s.key)}"))
