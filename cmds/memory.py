"""mem memory: the owner-approved memory files (soul.md, memory.md, user.md)."""

import json
import os

import click

from ._common import ExistingPath, edit_in_editor, emit_json, json_option, safe, with_store

FILE = click.Choice(["soul", "memory", "user"])


def _scope(project):
    return f"project/{project}" if project else "user"


def _session():
    return os.environ.get("MEM_SESSION") or "-"


scope_option = click.option("--project", metavar="NAME", help="The project's files instead of your own.")


@click.group("memory")
def command():
    """Edit the memory files every session starts with: soul.md, memory.md, user.md.

    Each file is a list of entries separated by a line holding only §,
    with a limit in characters (soul.md 4,000, memory.md 2,200, user.md
    1,375); each is a key, so 'mem log user/memory/memory.md' is its
    history.  Entries are named by their full text, never by number: an
    edit whose OLD no longer matches changes nothing.  Your own edits apply
    at once; an agent's (run with CLAUDECODE, Codex's variables or MEM_AGENT
    set) go to the review queue, as 'mem memory propose …' does, and apply
    when you accept them.  soul.md is yours alone: an agent's edit of it is
    refused (exit 6).  An entry may not hold a line starting with '#' and a
    memory file's name ('# soul.md'): it would read as a heading of the
    session block (exit 2); a line a file holds already is shown '\\# soul.md'.

    \b
    Examples:
      mem memory show
      mem memory add memory "The api runs on port 8443 since June."
      mem memory replace user "Editor: vim" "Editor: helix"
      mem memory propose add memory "CI needs Postgres 16."
      mem memory journal

    Exit status: 0 ok; 2 bad input; 6 refused (over the limit, a stale
    or missing entry, a duplicate, an agent on soul.md); 10 no store.
    """


@command.command("show")
@click.argument("file", type=FILE, required=False)
@scope_option
@json_option
@with_store()
def show_cmd(file, project, as_json, store):
    """Print a memory file (or all three) with its size against its limit.

    \b
    Examples:
      mem memory show
      mem memory show memory --json

    Exit status: 0 ok; 10 no store.
    """
    from objstore import MEMORY_FILES, memory_read
    names = [file] if file else list(MEMORY_FILES)
    fs = [memory_read(store, _scope(project), n) for n in names]
    if as_json:
        emit_json([{"file": f"{f.name}.md", "key": f.key, "chars": f.chars, "limit": f.limit,
                    "entries": f.entries, "id": f.version} for f in fs])
        return
    for f in fs:
        click.echo(f"# {f.name}.md ({f.chars:,} of {f.limit:,} characters)")
        click.echo(safe(f.text) if f.text else "(empty)")
        click.echo("")


def _apply(store, project, plan, as_json):
    from objstore import memory_apply, writing_agent
    agent = writing_agent(os.environ)   # the proposal's owner: no credential (exit 2)
    if agent is not None:  # an agent's edit is a proposal the owner accepts (soul.md: refused)
        _propose_for_agent(store, project, plan, agent, as_json)
        return
    r = memory_apply(store, _scope(project), plan, session=_session())
    if as_json:
        emit_json({"file": r.file, "chars": r.chars, "limit": r.limit, "moved": r.moved, "id": r.version,
                   "queued": r.queued, "redacted": r.redacted})
    else:
        click.echo(r.message)
        from ._out import warn_redacted
        warn_redacted(r.redacted)
        if r.moved:
            click.echo(f"moved {len(r.moved)} entr{'y' if len(r.moved) == 1 else 'ies'} to archive.md")


def _propose_for_agent(store, project, plan, agent, as_json):
    from objstore import memory_propose, require_person
    if plan["file"] == "soul":
        require_person(os.environ, f"mem memory {plan['action']} soul (soul.md is the owner's alone)",
                       instead="propose edits to memory.md or user.md: mem memory propose add memory TEXT")
    p = memory_propose(store, _scope(project), plan, owner=agent, session=_session())
    iid = p.item
    if as_json:
        emit_json({"queued": iid, "applied": False, "redacted": p.redacted})
    else:
        click.echo(f"queued {iid[:12]} for the owner's approval (mem queue show {iid[:12]})")
        from ._out import warn_redacted
        warn_redacted(p.redacted)
        click.echo(f"note: run by {agent} (an agent), so proposed, not applied: a person accepts it with "
                   f"mem queue accept {iid[:12]}", err=True)


@command.command("add")
@click.argument("file", type=FILE)
@click.argument("text")
@scope_option
@json_option
@with_store(create=True)
def add_cmd(file, text, project, as_json, store):
    """Add an entry to a memory file (at once: you are the owner; an agent's is queued).

    \b
    Examples:
      mem memory add memory "Deploys happen on Fridays only."

    Exit status: 0 updated (an agent's: queued); 2 an empty entry; 6 over the
    limit, a duplicate, or an agent on soul.md.
    """
    _apply(store, project, {"action": "add", "file": file, "text": text}, as_json)


@command.command("replace")
@click.argument("file", type=FILE)
@click.argument("old")
@click.argument("new")
@scope_option
@json_option
@with_store(create=True)
def replace_cmd(file, old, new, project, as_json, store):
    """Replace the entry whose full text is OLD with NEW.

    \b
    Examples:
      mem memory replace user "Editor: vim" "Editor: helix"

    Exit status: 0 updated (an agent's: queued); 6 OLD is not an entry now,
    over the limit, a duplicate, or an agent on soul.md.
    """
    _apply(store, project, {"action": "replace", "file": file, "old": old, "new": new}, as_json)


@command.command("remove")
@click.argument("file", type=FILE)
@click.argument("old")
@scope_option
@json_option
@with_store(create=True)
def remove_cmd(file, old, project, as_json, store):
    """Remove the entry whose full text is OLD.

    \b
    Examples:
      mem memory remove memory "Deploys happen on Fridays only."

    Exit status: 0 updated (an agent's: queued); 6 OLD is not an entry now,
    or an agent on soul.md.
    """
    _apply(store, project, {"action": "remove", "file": file, "old": old}, as_json)


def _read_plan(file, plan_path):
    try:
        with open(plan_path, encoding="utf-8") as f:
            plan = json.load(f)
    except (OSError, ValueError) as e:
        raise click.BadParameter(f"cannot read {plan_path}: {e}", param_hint="PLAN.json") from None
    if not isinstance(plan, dict):
        raise click.BadParameter("the plan is a JSON object: {\"entries\": [...], \"add\": [...]}",
                                 param_hint="PLAN.json")
    return {"action": "consolidate", "file": file, "entries": plan.get("entries"), "add": plan.get("add") or []}


@command.command("consolidate")
@click.argument("file", type=FILE)
@click.argument("plan_path", metavar="PLAN.json", type=ExistingPath(dir_okay=False))
@scope_option
@json_option
@with_store(create=True)
def consolidate_cmd(file, plan_path, project, as_json, store):
    """Rewrite a file by a plan that names every entry once: keep, rewrite, move, drop.

    PLAN.json: {"entries": [{"old": TEXT, "op": "keep"|"rewrite"|"move"|"drop",
    "new": TEXT (rewrite)}, ...], "add": [TEXT, ...]}.  Every current entry
    must be named exactly once; moved entries go to archive.md, which
    recall searches.

    \b
    Examples:
      mem memory consolidate memory plan.json

    Exit status: 0 updated (an agent's: queued); 2 an unreadable plan; 6 an
    entry missing or named twice, an agent on soul.md, a stale entry, over the limit.
    """
    _apply(store, project, _read_plan(file, plan_path), as_json)


@command.command("propose")
@click.argument("action", type=click.Choice(["add", "replace", "remove", "consolidate"]))
@click.argument("file", type=FILE)
@click.argument("args", nargs=-1)
@click.option("--by", "owner", default=None,
              help="Who proposes it (recorded; default 'agent'). Run by an agent, the agent's own name is recorded, "
                   "a different --by only beside it: 'claude (said: user)'.")
@scope_option
@json_option
@with_store(create=True)
def propose_cmd(action, file, args, owner, project, as_json, store):
    """Queue an edit for the owner's approval (what agents use).

    ARGS: add TEXT; replace OLD NEW; remove OLD; consolidate PLAN.json.
    The edit is checked against the file as it is now; it applies only
    when the owner accepts it with 'mem queue accept ID' (or in the review
    shell), and then only if every OLD still matches.

    \b
    Examples:
      mem memory propose add memory "CI needs Postgres 16." --by codex@laptop
      mem memory propose replace user "Editor: vim" "Editor: helix"

    Run by an agent (CLAUDECODE, Codex's variables or MEM_AGENT set), the
    proposal is recorded and shown as the agent's, whatever --by says
    (its trust is agent_observed either way).

    Exit status: 0 queued; 2 wrong arguments, a name holding a credential,
    or MEM_AGENT naming an author mem writes under ('user'); 6 refused
    (soul.md, stale, over the limit).
    """
    from objstore import memory_propose, proposal_owner, writing_agent
    owner = proposal_owner(writing_agent(os.environ), owner)   # an agent is never shown as the person (test40 T25)
    want = {"add": 1, "replace": 2, "remove": 1, "consolidate": 1}[action]
    if len(args) != want:
        raise click.UsageError(f"propose {action} takes {want} argument(s) after FILE")
    if action == "add":
        plan = {"action": "add", "file": file, "text": args[0]}
    elif action == "replace":
        plan = {"action": "replace", "file": file, "old": args[0], "new": args[1]}
    elif action == "remove":
        plan = {"action": "remove", "file": file, "old": args[0]}
    else:
        plan = _read_plan(file, args[0])
    p = memory_propose(store, _scope(project), plan, owner=owner, session=_session())
    iid = p.item
    if as_json:
        emit_json({"queued": iid, "redacted": p.redacted})
    else:
        click.echo(f"queued {iid[:12]} for the owner's approval (mem queue show {iid[:12]})")
        from ._out import warn_redacted
        warn_redacted(p.redacted)


@command.command("journal")
@scope_option
@json_option
@with_store()
def journal_cmd(project, as_json, store):
    """Show every applied edit: time, session, approval, action, file, entries.

    \b
    Examples:
      mem memory journal --json

    Exit status: 0 ok; 10 no store.
    """
    from objstore import memory_journal
    from ._common import fmt_time
    recs = memory_journal(store, _scope(project))
    if as_json:
        emit_json(recs)
        return
    if not recs:
        click.echo("no edit applied yet")
    for r in recs:
        click.echo(f"{fmt_time(r.get('time', 0))}  {r.get('action')} {r.get('file')}  session {r.get('session')}"
                   f"  approval {str(r.get('approval'))[:12]}  ({len(r.get('before', []))} -> "
                   f"{len(r.get('after', []))} entries)")


@command.command("edit")
@click.argument("file", type=FILE)
@scope_option
@with_store(create=True)
def edit_cmd(file, project, store):
    """Edit a memory file in $EDITOR (you are the owner); the result is checked like any edit.

    Only a person edits a whole file: run by an agent it is refused (exit 6);
    an agent proposes entries with 'mem memory propose'.

    \b
    Examples:
      EDITOR=nano mem memory edit memory

    The file being edited is kept under the store's tmp folder and deleted
    when the editor returns or mem is hung up or terminated.

    Exit status: 0 updated (or unchanged); 2 the saved file is not UTF-8
    text (the message gives the offset of the first bad byte; nothing
    changed); 6 over the limit, a duplicate, or run by an agent; 129/143
    hung up/terminated while editing (nothing changed).
    """
    from objstore import memory_read, memory_set, require_person
    require_person(os.environ, "mem memory edit", instead="propose an edit: mem memory propose add memory TEXT")
    f = memory_read(store, _scope(project), file)
    raw = edit_in_editor(store, (f.text + "\n").encode("utf-8"))  # bytes: read strictly
    if raw.strip() == f.text.encode("utf-8").strip():
        click.echo(f"{f.name}.md unchanged")
        return
    click.echo(memory_set(store, _scope(project), file, raw, session=_session()).message)
