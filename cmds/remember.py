"""mem remember."""

import sys

import click

from ._common import complete_key, TimeType, emit_json, fmt_time, json_option, with_store


@click.command("remember")
@click.argument("key", shell_complete=complete_key)
@click.argument("text")
@click.option("--kind", type=click.Choice(["user", "feedback", "project", "reference"]),
              help="Kind of fact (default: from the scope, or the current version's kind).")
@click.option("--trust", type=click.Choice(["user_stated", "agent_observed", "derived"]),
              help="Who vouches for the value (default: agent_observed when run by an agent, "
                   "e.g. CLAUDECODE=1 or MEM_AGENT=name; else user_stated).")
@click.option("--sensitivity", type=click.Choice(["public", "private", "secret"]), default="private",
              show_default=True, help="How widely the value may be shown; 'secret' seals it (mem vault init).")
@click.option("--valid-from", type=TimeType(), help="When the value starts to hold (ISO 8601 or 'now'; default now).")
@click.option("--expect", metavar="ID", help="Only write if the current head is ID ('none': key must be new).")
@click.option("--pin/--no-pin", default=None, help="Pin the fact (default: keep the current pin).")
@json_option
@with_store(create=True)
def command(key, text, kind, trust, sensitivity, valid_from, expect, pin, as_json, store):
    """Write a new version of KEY; the old value stays in the log.

    KEY is <scope>/<name> with scope user, global or project/<name>.
    TEXT '-' reads the value from standard input.  Credentials in a plain
    value (API keys, tokens, private keys) are replaced by [REDACTED:<rule>]
    before writing, with a warning; seal a secret with --sensitivity secret.  A value and kind
    identical to the head's writes nothing and says so.
    A value that was forgotten is refused unless --trust user_stated.
    Run by an agent (Claude Code, Codex, Gemini CLI, Cursor, or MEM_AGENT
    set), the write is agent_observed unless --trust says otherwise.
    A lower-trust value that would replace a user_stated one, or a value of
    any trust that reads like an instruction to a model, is queued for
    review (mem queue).
    --sensitivity secret seals the value: it is encrypted in memory to the
    vault and never written in the clear (read it with mem sealed show).

    \b
    Examples:
      mem remember project/api/db "postgres 16 on port 5433"
      mem remember user/editor "neovim" --kind user
      mem remember project/api/db "postgres 17" --expect 8c1f2a3b
      mem remember user/bank/pin - --sensitivity secret < pin.txt

    Exit status: 0 written, unchanged or queued; 2 invalid key or text;
    4 secret without a vault; 5 --expect did not match (nothing written);
    6 refused (forgotten value; a plain write to a sealed key or a secret
    one to a plain key); 11 store locked.
    """
    import os

    from objstore import agent_of, default_trust, now_ms, remember
    agent = agent_of(os.environ)
    trust = trust or default_trust(os.environ)  # by who is calling: an agent's write goes through review
    if text == "-":
        text = sys.stdin.read()
        text = text[:-1] if text.endswith("\n") else text
    if sensitivity == "secret":
        return _remember_sealed(store, key, text, kind, trust, valid_from, expect, pin, as_json)
    r = remember(store, key, text, kind=kind, trust=trust, valid_from=valid_from, expect=expect,
                 sensitivity=sensitivity, pinned=pin, owner=agent or "user")
    if r.queued:  # parked for review instead of overruling a user_stated value (mem queue)
        if as_json:
            emit_json({"key": r.key, "written": False, "queued": r.queued, "id": r.version and r.version.id,
                       "previous": r.previous, "current": r.current, "redacted": r.redacted})
        else:
            click.echo(f"queued for review: {r.queued[:12]} (the value of {r.key} is unchanged; see mem queue)")
            if agent and trust != "user_stated":
                click.echo(f"note: written from {agent} (an agent), so as {trust}; a person accepts it with "
                           f"mem queue accept {r.queued[:12]}", err=True)
        return
    f = r.version.fact
    if r.redacted:
        click.echo(f"warning: {r.redacted} credential(s) in the value were replaced by [REDACTED:<rule>] "
                   "before writing", err=True)
        click.echo("hint: to keep a secret, seal it: --sensitivity secret (see docs/vault.md)", err=True)
    if r.index_error:
        click.echo(f"warning: written, but the search index was not updated: {r.index_error}\n"
                   "hint: run 'mem reindex'", err=True)
    if as_json:
        emit_json({"key": r.key, "written": r.written, "id": r.version.id, "version": f.version,
                   "previous": r.previous, "current": r.current})
        return
    if not r.written:
        click.echo(f"unchanged: {r.key} v{f.version} already holds this value ({r.version.id[:12]})")
    elif r.current != r.version.id and f.valid_from > now_ms():
        click.echo(f"wrote {r.key} v{f.version} {r.version.id[:12]} (valid from {fmt_time(f.valid_from)}, "
                   f"in the future: until then the current value stays {r.current[:12]})")
    elif r.current != r.version.id:
        click.echo(f"wrote {r.key} v{f.version} {r.version.id[:12]} (backfill: the current value "
                   f"is still {r.current[:12]}, valid from later)")
    else:
        click.echo(f"wrote {r.key} v{f.version} {r.version.id[:12]}")


def _remember_sealed(store, key, text, kind, trust, valid_from, expect, pin, as_json):
    from objstore import remember_sealed
    if pin:
        raise click.UsageError("a sealed value is never injected, so it cannot be pinned")
    w = remember_sealed(store, key, text, kind=kind, trust=trust, valid_from=valid_from, expect=expect)
    s = w.version.sealed
    if as_json:
        emit_json({"key": w.key, "written": True, "id": w.version.id, "version": s.version,
                   "previous": w.previous, "current": w.current, "sealed": True})
        return
    click.echo(f"sealed {w.key} v{s.version} {w.version.id[:12]}")
