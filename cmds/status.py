"""mem status."""

import click

from . import _out
from ._common import emit_json, json_option, plural, safe, with_store


@click.command("status")
@json_option(first="its kind")
@with_store()
def command(as_json, store):
    """Show what is waiting: review proposals, refs to push, stopped work.

    As git status says what is waiting on a work tree, mem status says what
    is waiting on the store, read locally (no pack, no value, no network):
    the keys and sessions it holds; proposals in the review queue; for each
    remote, the refs this store would send it (each fact, session,
    tombstone or queue ref whose head the remote did not hold when this
    store last pushed to it or pulled from it, at the URL remotes.json names
    now: a forget not pushed yet shows here, as its tombstones); a forget or a pull a killed process stopped
    half way, with the command that finishes it; index updates waiting in
    the index journal; whether the resident helper runs.  What another
    machine pushed since needs the network: mem pull.  What stops every
    write and capture (a store this user cannot write, a damaged hash-key,
    logs/audit a folder, a seal-rules file that does not read) is warned about on stderr (--json:
    "capture_stopped", else null), and so is a key
    set back to an older version (a synced folder's older copy of its ref
    file: served as current, refused by push; mem fsck --repair), and a
    'forget --match' text forgotten on another machine that this store
    cannot read (pulled over an unencrypted remote: what is captured here
    holding it is stored in the clear until the same forget runs here).

    --plain prints one tab-separated record a line, its kind first (fields
    escaped as every --plain output is): "store", root, keys, sealed keys,
    sessions, proposals waiting, index journal waiting (true/false),
    helper running (true/false); then "remote", name, URL, synced before
    (true/false), refs to send, their names (comma-separated), why its
    URL cannot be used (empty when it can), one a remote; "stopped-forget", the command that finishes it, one each;
    "stopped-pull", the refs it did not set, the remotes (comma-separated).

    \b
    Examples:
      mem status
      mem status --json
      mem status --plain | grep '^remote'

    Exit status: 0 ok; 10 no store; 13 a damaged remotes.json.
    """
    from objstore import helper_running, remote_status, set_back_line, set_back_list, store_status, unread_texts_note
    st = store_status(store, remotes=remote_status(store), helper=helper_running(store.root))
    if st.capture_stopped:   # only logged (fresh40 F2): said in every mode (and in --json, test41 T25)
        click.echo(f"warning: capture is stopped: {st.capture_stopped}", err=True)
    if unread := unread_texts_note(store):   # (test42 T24: the pull said it once)
        click.echo(f"warning: {unread}", err=True)
    back = set_back_list(store)   # (test41 T6: said by fsck and get only): in every mode, as the hash key
    for ref in back[:3]:
        click.echo(f"warning: {set_back_line(store, *ref)}: the older value is served as current and push, backup "
                   "and export are refused; 'mem fsck --repair' restores the newest version", err=True)
    if len(back) > 3:
        click.echo(f"warning: {len(back) - 3} more refs are set back ('mem fsck' names them)", err=True)
    if _out.PLAIN:
        for line in _plain(st):
            click.echo(line)
        return
    if as_json:
        emit_json(st.as_dict())
        return
    sealed = f", {plural(st.sealed, 'sealed key')}" if st.sealed else ""
    click.echo(f"store {st.root}: {plural(st.keys, 'key')}{sealed}, {plural(st.sessions, 'session')}")
    if st.queued:
        click.echo(f"review queue: {plural(st.queued, 'proposal')} waiting for you (mem queue, or mem review)")
    else:
        click.echo("review queue: empty")
    if not st.remotes:
        click.echo("remotes: none (mem remote add NAME URL)")
    for r in st.remotes:
        where = safe(f"remote {r.name} ({r.url})").replace("\n", "\\n").replace("\t", "\\t")   # (test38 T9.4, test41 T15)
        if r.unusable:   # (test40 T13: an unusable URL read as "URL changed; N refs to send")
            click.echo(f"{where}: its URL cannot be used ({safe(r.unusable)}): mem remote remove {r.name}, "
                       f"then mem remote add {r.name} URL")
        elif r.moved:   # (fresh38 F1: 'up to date' after the URL was changed in remotes.json)
            click.echo(f"{where}: not synced since its URL changed; {plural(len(r.to_send), 'ref')} to send "
                       f"(mem push {r.name})")
        elif not r.synced:
            click.echo(f"{where}: never synced from here; {plural(len(r.to_send), 'ref')} to send (mem push {r.name})")
        elif r.name in st.stopped_pull_from:   # (test37b T19.10: it said "up to date" beside "stopped")
            click.echo(f"{where}: the last pull from it did not finish (mem pull {r.name})")
        elif r.to_send and st.stopped_forgets:   # (test38 T9.12: a push is refused until the forget is finished)
            click.echo(f"{where}: {plural(len(r.to_send), 'ref')} changed since the last sync; finish the stopped "
                       f"forget below, then mem push {r.name}")
        elif r.to_send:
            forgets = sum(1 for n in r.to_send if n.startswith("tombstones/"))
            extra = (f" ({forgets} of them tombstones of a forget or seal: push so it reaches the remote)"
                     if forgets else "")
            click.echo(f"{where}: {plural(len(r.to_send), 'ref')} changed since the last sync{extra} (mem push {r.name})")
        else:
            click.echo(f"{where}: up to date with the last sync (mem pull {r.name} fetches what others pushed since)")
    for rerun in st.stopped_forgets:
        click.echo(f"stopped: a forget did not finish; finish it: {rerun}")
    if st.stopped_pull:   # (test38 T9.1: 'run mem pull again' where several remotes need a name)
        pulls = " and ".join(f"mem pull {n}" for n in st.stopped_pull_from) or "mem pull again"
        click.echo(f"stopped: a pull did not finish ({plural(st.stopped_pull, 'ref')} not set); run {pulls}")
    if st.index_waiting:
        click.echo("index: updates waiting in the index journal (the next write applies them)")
    click.echo(f"helper: {'running' if st.helper else 'not running'}")


def _plain(st) -> list[str]:
    """``--plain``'s records (the help above): the store's, then one a
    remote, stopped forget and stopped pull, in that order, whatever is
    there (fresh37 F4: a generic --plain printed the remotes' records
    alone, or the store's when there was no remote)."""
    from ._out import plain_lines
    rows = [{"kind": "store", "root": st.root, "keys": st.keys, "sealed": st.sealed, "sessions": st.sessions,
             "queued": st.queued, "index_waiting": st.index_waiting, "helper": st.helper}]
    rows += [{"kind": "remote", **r.as_dict()} for r in st.remotes]
    rows += [{"kind": "stopped-forget", "command": c} for c in st.stopped_forgets]
    rows += [{"kind": "stopped-pull", "refs": st.stopped_pull, "from": st.stopped_pull_from}] if st.stopped_pull else []
    return plain_lines(rows)

