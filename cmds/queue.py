"""mem queue."""

import os

import click

from ._common import complete_key, emit_json, fmt_time, json_option, plural, safe, short, shown_key, with_store

#: how many lines of a proposed text ``mem queue list`` shows
LIST_LINES = 6


def item_json(store, it) -> dict:
    """The stable JSON shape of a queued item (with the key's current value)."""
    from objstore import queue_current_version as current_version
    q = it.item
    cur = current_version(store, q.key)
    d = {"id": it.id, "object": it.oid, "kind": q.kind, "key": q.key, "body": q.body,
         "fact_kind": q.fact_kind, "trust": q.trust, "sensitivity": q.sensitivity, "owner": q.owner,
         "sources": list(q.sources), "other": q.other, "note": q.note, "time": q.time,
         "current": None if cur is None else {"id": cur.id, "version": cur.fact.version, "body": cur.fact.body,
                                              "trust": cur.fact.trust}}
    return d


def decision_json(d) -> dict:
    """The stable JSON shape of an accept/reject decision (``keys``: the
    keys given ``body``)."""
    return {"id": d.item.id, "action": d.action, "key": d.item.item.key, "body": d.body,
            "version": d.version, "version_number": d.version_number, "written": d.written,
            "tombstone": d.tombstone, "keys": list(d.keys)}


def settled(d) -> str:
    """What deciding a contradiction did: ``KEY now holds OTHER's value`` (or
    the edited value, for both)."""
    q = d.item.item
    if len(d.keys) > 1:
        return f"{' and '.join(d.keys)} now hold the edited value"
    lost = d.keys[0]
    kept = q.other if lost == q.key else q.key
    return f"kept {kept}; {lost} " + ("now holds its value" if d.written else "already held its value")


def complete_item(ctx: click.Context, _param, incomplete: str):
    """Shell completion for item ids (nothing when there is no store)."""
    from click.shell_completion import CompletionItem

    from ._common import home_path
    try:
        from objstore import queue_items as items
        from objstore import open_store
        with open_store(home_path(ctx)) as store:
            return [CompletionItem(i.id[:12], help=f"{i.item.kind} {i.item.key}") for i in items(store)
                    if i.id.startswith(incomplete.lower())][:200]
    except Exception:  # noqa: BLE001 - completion must never fail loudly
        return []


@click.group("queue", invoke_without_command=True)
@json_option
@click.pass_context
def command(ctx, as_json):
    """Review queue: proposals parked instead of overruling you.

    A lower-trust write (--trust agent_observed or derived) that would
    replace a user_stated value, a value that reads like an instruction to a
    model, and two keys flagged as conflicting are queued here instead of
    written.  A write with --contradicts queues one question, "A and B
    contradict: keep which?": accept keeps A (the key written with the
    edge; B takes its value), reject keeps B, accept --value writes a new
    value to both.  A repeated proposal is queued once.  Without a subcommand,
    lists the queue.

    \b
    Subcommands:
      list                 the queued items, oldest first
      show ID              one item beside the key's current value
      accept ID [--value]  write the value (or an edited one) as user_stated
      reject ID            keep the current value; tombstone the proposal
      flag KEY OTHER       queue OTHER's value as a proposal for KEY

    \b
    Examples:
      mem queue
      mem queue show 5f56b6b2
      mem queue accept 5f56b6b2
      mem queue accept 5f56b6b2 --value "postgres 17 on port 5433"
      mem queue reject e88912b8
      mem queue flag project/api/port project/api/db-port
      mem queue list --json
      mem queue --json

    --json before a subcommand applies to it (mem queue --json show ID).

    Exit status: 0 ok; 2 invalid input; 4 no such item (or key);
    6 refused (accept or reject run by an agent: CLAUDECODE, Codex's variables or
    MEM_AGENT set; accept of a memory-file proposal whose file changed;
    flag: that value was rejected before); 11 store locked.
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_command, as_json=as_json)


@command.command("list")
@json_option
@with_store()
def list_command(as_json, store):
    """List the queued items, oldest first."""
    from objstore import queue_items as items
    its = items(store)
    if as_json:
        emit_json([item_json(store, i) for i in its])
        return
    if not its:
        click.echo("the review queue is empty")
        return
    for i in its:
        q = i.item
        if q.kind == "contradiction":  # one question about two keys, not a proposal for one
            click.echo(click.style(i.id[:12], fg="yellow") + safe(f"  {q.kind}  {fmt_time(q.time)}"))
            click.echo(safe(f"    {q.note}"))
            for verb, key in (("accept", q.other), ("reject", q.key)):
                click.echo(safe(f"    {verb} keeps {key}: {short(_value(store, key, q.body), 56)}"))
            continue
        click.echo(click.style(i.id[:12], fg="yellow") + safe(f"  {q.kind:<9}  {shown_key(q.key)}  {fmt_time(q.time)}"))
        shown = q.note if q.kind == "memory-edit" else q.body  # an edit reads by its entries' text
        # a text of several lines is shown as lines (test24 T6: on one line, a '# soul.md' line in a
        # memory-file proposal did not show as the heading it would fake), the first few, each shortened
        lines = [ln for ln in shown.split("\n") if ln.strip()] or [""]
        for n, line in enumerate(lines[:LIST_LINES]):
            click.echo(safe(f"    {'proposed:' if n == 0 else '         '} {short(line, 66)}"))
        if len(lines) > LIST_LINES:
            click.echo(f"              … {plural(len(lines) - LIST_LINES, 'more line')}: mem queue show {i.id[:12]}")

def _value(store, key: str, default: str = "") -> str:
    """``key``'s current value ("(no value)" or ``default`` when it has none)."""
    from objstore import queue_current_version as current_version
    cur = current_version(store, key)
    return cur.fact.body if cur is not None else (default or "(no value)")


@command.command("show")
@click.argument("item_id", metavar="ID", shell_complete=complete_item)
@json_option
@with_store()
def show_command(item_id, as_json, store):
    """Show one queued item beside the key's current value."""
    from objstore import queue_current_version as current_version, queue_resolve as resolve
    it = resolve(store, item_id)
    if as_json:
        emit_json(item_json(store, it))
        return
    q = it.item
    cur = current_version(store, q.key)
    click.echo(click.style(f"queue item {it.id}", fg="yellow"))
    if q.kind == "contradiction":
        click.echo(safe(f"kind:      contradiction  ({q.note})"))
        click.echo(safe(f"flagged:   by {q.owner or '-'} at {fmt_time(q.time)}"))
        for verb, key in (("accept", q.other), ("reject", q.key)):
            click.echo("")
            click.echo(click.style(safe(f"{verb} keeps {key}:"), bold=True))
            click.echo(safe(_value(store, key, q.body if key == q.other else "")))
        click.echo("")
        click.echo(safe("the other key takes the kept value (accept --value V writes V to both)"))
        return
    click.echo(safe(f"kind:      {q.kind}  ({q.note})" if q.note else f"kind:      {q.kind}"))
    click.echo(safe(f"key:       {shown_key(q.key)}" + (f"   other: {q.other}" if q.other else "")))
    click.echo(safe(f"proposed:  {q.trust} by {q.owner or '-'} at {fmt_time(q.time)}"))
    if q.sources:
        click.echo(safe(f"sources:   {', '.join(q.sources)}"))
    click.echo("")
    if cur is not None:
        click.echo(click.style(f"current (v{cur.fact.version}, {cur.fact.trust}):", bold=True))
        click.echo(safe(cur.fact.body))
    else:
        click.echo(click.style("current: (no value)", bold=True))
    click.echo(click.style("proposed:", bold=True))
    click.echo(safe(q.body))


@command.command("accept")
@click.argument("item_id", metavar="ID", shell_complete=complete_item)
@click.option("--value", help="Write this (edited) value instead of the proposed one.")
@click.option("--force", is_flag=True,
              help="Accept even when you wrote a newer value of the key after the proposal was queued.")
@json_option
@with_store()
def accept_command(item_id, value, force, as_json, store):
    """Write the item's value (or --value) as user_stated; drop the item.

    Only a person accepts: run by an agent (CLAUDECODE, Codex's variables
    or MEM_AGENT set) it is refused with exit 6 and nothing changes.

    \b
    Examples:
      mem queue accept 5f56b6b2
      mem queue accept 5f56b6b2 --value "postgres 17 on port 5433"

    A proposal whose key you wrote again after it was queued is refused
    (exit 6): accepting would replace your newer value; --force accepts it
    anyway, --value writes the value you give.

    Exit status: 0 accepted; 4 no such item; 6 refused (an agent caller,
    a memory-file proposal that no longer applies, or a key you wrote
    since, without --force); 11 store locked.
    """
    from objstore import queue_accept as accept, require_person
    require_person(os.environ, "queue accept")
    d = accept(store, item_id, body=value, replace_newer=force)
    from ._out import warn_redacted
    warn_redacted(d.redacted)   # an edited value's credentials, as 'mem remember' says (test39 m4)
    if as_json:
        emit_json(decision_json(d))
        return
    if d.item.item.kind == "memory-edit":
        click.echo(safe(f"accepted {d.item.id[:12]}: {d.body}"))
        return
    if d.item.item.kind == "contradiction":
        click.echo(safe(f"accepted {d.item.id[:12]}: {settled(d)}"))
        return
    what = f"wrote {d.item.item.key} v{d.version_number}" if d.written else \
        f"{d.item.item.key} already held this value (v{d.version_number})"
    click.echo(safe(f"accepted {d.item.id[:12]}: {what}"))
    from objstore import queue_replaced_note
    note = queue_replaced_note(store, d)
    if note:
        click.echo(safe(f"note: {note}"), err=True)


@command.command("reject")
@click.argument("item_id", metavar="ID", shell_complete=complete_item)
@json_option
@with_store()
def reject_command(item_id, as_json, store):
    """Keep the current value; tombstone the proposal so it never returns.

    Only a person rejects, as only a person accepts: run by an agent it is
    refused with exit 6 and nothing changes."""
    from objstore import queue_reject as reject, require_person
    require_person(os.environ, "queue reject")
    d = reject(store, item_id)
    if as_json:
        emit_json(decision_json(d))
        return
    if d.item.item.kind == "contradiction":
        click.echo(safe(f"rejected {d.item.id[:12]}: {settled(d)}"))
        return
    click.echo(safe(f"rejected {d.item.id[:12]}: {d.item.item.key} keeps its value; "
                    "the proposal will not be queued again"))


@command.command("flag")
@click.argument("key", shell_complete=complete_key)
@click.argument("other", shell_complete=complete_key)
@click.option("--note", default="", help="Why the two conflict (shown in review).")
@json_option
@with_store()
def flag_command(key, other, note, as_json, store):
    """Flag KEY and OTHER as conflicting: queue OTHER's value for KEY."""
    from objstore import flag_conflict
    p = flag_conflict(store, key, other, note=note)
    if as_json:
        emit_json({"id": p.item, "new": p.new})
        return
    click.echo(f"{'queued' if p.new else 'already queued'}: {p.item[:12]}")
