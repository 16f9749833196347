"""mem mcp: the MCP server over stdio, its keys and its installers."""

from __future__ import annotations

import click

from ._common import emit_json, fmt_time, home_path, json_option, open_store, parse_time

NEEDS_SDK = ("the MCP server needs the mcp extra: pip install 'memvcs[mcp]' "
             "(from a clone of mem: pip install '.[mcp]' in it)")
#: mem's own top-level packages: an import error in them is not a missing extra (redb24, U5)
_OWN = frozenset({"cmds", "objstore", __name__.partition(".")[0]})


def load_server():
    """``cmds._mcpserver``, or a clear error (:data:`NEEDS_SDK`, exit 1) when
    the ``mcp`` extra is missing or broken: any module the server imports
    that is not mem's own (``anyio``, ``pydantic``, ``mcp_types``, ``mcp``
    and what they import; a name an ``mcp`` of another version lacks).  An
    import error inside mem's own packages is a bug and propagates."""
    try:
        from . import _mcpserver
    except ImportError as e:
        top = (e.name or "").partition(".")[0]
        if top in _OWN or (not top and not any(w in str(e) for w in ("mcp", "uvicorn", "starlette"))):
            raise
        raise click.ClickException(f"{NEEDS_SDK} (missing: {top or e})") from None
    return _mcpserver


@click.group("mcp", invoke_without_command=True)
@click.option("--admin", is_flag=True,
              help="Serve the admin tools too (forget, seal, queue, pin…) and write user_stated: for a person's "
                   "curation session (mem curate), never for an agent.")
@click.option("--project", metavar="NAME", help="Default project scope (default: $MEM_PROJECT, else the working directory).")
@click.pass_context
def command(ctx, admin, project):
    """Serve memory to an MCP client over stdio (one agent session).

    The harness starts 'mem mcp' and talks JSON-RPC on its stdin/stdout
    (Model Context Protocol, official SDK).  Tools: recall, get, log, search,
    context, remember (written agent_observed, author 'mcp'), memory (an
    edit proposed to the review queue), reinforce.  With --admin: also
    forget, forget_matching, seal (two calls with a confirm token), pin,
    promote, queue_list, queue_accept, queue_reject, list_sealed; remember
    writes user_stated and memory edits apply.  Results are data, never instructions;
    sealed values never leave.  For many agents at once, over HTTP with keys,
    see 'mem serve'.  Keys for HTTP live under 'mem mcp keys' (the top-level
    'mem keys' lists fact keys).

    \b
    Examples:
      claude mcp add mem -- mem mcp
      mem mcp install codex
      mem mcp --admin            # what 'mem curate' attaches
      mem mcp keys mint --name codex@laptop --role agent

    --admin is the person's: run by an agent (CLAUDECODE, Codex's variables
    or MEM_AGENT set) it is refused with exit 6 before serving, unless
    MEM_CURATE holds the one-time pass 'mem curate' (the person's) issued
    for it, which this start uses up.  Over MCP,
    an agent calling a tool that is the person's gets a 'refused' tool
    error.

    Exit status: 0 the client closed the session; 1 the mcp extra is not
    installed; 6 --admin run by an agent; 10 no store.
    """
    if ctx.invoked_subcommand is not None:
        return
    import os
    from .curate import CURATE_MARK
    if admin:   # mem curate's server shows its one-time pass (test37 T16: MEM_CURATE=1 is none)
        from objstore import redeem_curate_pass, require_person
        if not redeem_curate_pass(home_path(ctx), os.environ.get(CURATE_MARK, "")):
            require_person(os.environ, "mem mcp --admin", instead="serve the agent tools: mem mcp")

    from objstore import Caller, project_aliases
    srv = load_server()
    store = open_store(ctx, create=True)
    from ._out import project_override, working_dir
    override = project_override(project)
    if not override:   # its name kept in the registry, as the hooks keep it (test30c T13: a later repo took it)
        from objstore import MemError, register_project
        try:
            register_project(store, working_dir())
        except MemError:   # (the store locked: named as the working directory's project reads it, as before)
            pass
    projects = project_aliases(None if override else working_dir(), override=override, store_root=store.root) or None
    caller = Caller("user", "admin") if admin else Caller("mcp", "agent")
    srv.run_stdio(srv.make_tools(store, projects), caller, parse_time)


@command.group("keys")
def keys():
    """Mint, list and revoke the bearer keys of 'mem serve'.

    A key is printed once (prefix memk_, so secret scanners catch it); only
    its SHA-256 is kept, in <store>/mcp/keys.json (mode 0600).  Roles: read
    (recall, get, log, search, context), agent (+ remember, memory,
    reinforce), owner (+ the admin tools, at /admin/mcp only; refused on
    /mcp).  --namespace confines a key to scopes or key prefixes (user,
    global, project/NAME, or deeper): entries outside read as missing.  A
    running server picks changes up without a restart.  Minting and
    revoking are the person's: run by an agent they are refused with exit
    6.  (These live under 'mem mcp' because 'mem keys' already lists fact
    keys.)

    \b
    Examples:
      mem mcp keys mint --name codex@laptop --role agent
      mem mcp keys mint --name ci --role read --namespace project/api --expires-days 30
      mem mcp keys list
      mem mcp keys revoke codex@laptop

    Exit status: 0 ok; 2 bad name, role or namespace; 4 no such key; 6
    mint or revoke run by an agent.
    """


@keys.command("mint")
@click.option("--name", required=True, help="Unique name, recorded as the author of what the key writes "
              "(not one mem writes under: user, rollup, derive, mcp …).")
@click.option("--role", type=click.Choice(["read", "agent", "owner"]), required=True, help="What the key may do.")
@click.option("--namespace", "namespaces", multiple=True, metavar="NS",
              help="Confine the key to a scope or key prefix (repeatable).")
@click.option("--expires-days", type=click.FloatRange(min=0, min_open=True), help="Lifetime in days (default: never).")
@json_option
@click.pass_context
def mint(ctx, name, role, namespaces, expires_days, as_json):
    """Mint a key and print it once.

    \b
    Examples:
      mem mcp keys mint --name codex@laptop --role agent
      (umask 077; mem mcp keys mint --name ci --role read > ci.key)

    A key whose output could not be written (standard output closed, a
    full disk, a reader gone) is revoked at once: a key nobody saw never
    stays live.

    Exit status: 0 minted; 2 bad name, role, namespace, or the name exists;
    6 run by an agent; 74 standard output could not be written (or is
    closed), 141 its reader went away: the key was revoked, mint again.
    """
    import os

    from objstore import mcp_keys_path, mint_mcp_key, require_person
    require_person(os.environ, "mem mcp keys mint", instead="ask the user for a key")
    path = mcp_keys_path(home_path(ctx))
    token, rec = mint_mcp_key(path, name, role, namespaces=namespaces, expires_days=expires_days)
    _deliver(path, rec, lambda: emit_json({"key": token, **rec.to_json(digest=False)}) if as_json
             else click.echo(token))
    if as_json:
        return
    scope = f", namespaces {', '.join(rec.namespaces)}" if rec.namespaces else ""
    until = f", expires {fmt_time(rec.expires)}" if rec.expires else ""
    click.echo(f"minted {rec.name} ({rec.role}{scope}{until}); the key is shown only now", err=True)


def _deliver(path, rec, show) -> None:
    """Print a minted key with ``show()`` and flush it; when standard output
    is closed or the write fails, revoke the key (``rec``, of the keys file
    ``path``) and exit 74, or 141 for a reader that went away (fresh38
    F22: a key nobody saw stayed valid)."""
    import sys

    from . import _out
    from objstore import revoke_mcp_key
    try:
        if sys.stdout is None:   # started with standard output closed (mem ... >&-): echo writes nowhere
            raise OSError(9, "standard output is closed")
        show()
        sys.stdout.flush()
        return
    except (OSError, ValueError) as e:
        err = e
    revoke_mcp_key(path, rec.id)
    if isinstance(err, BrokenPipeError):
        raise click.exceptions.Exit(_out.broken_pipe())
    why = getattr(err, "strerror", None) or str(err) or type(err).__name__
    try:
        click.echo(f"Error: the key {rec.name} could not be written to standard output ({why.lower()}): it was "
                   "revoked, so no key nobody saw stays live\nhint: mint it again with its output going somewhere "
                   "(a terminal, or a file: > key.txt)", err=True)
    except (OSError, ValueError):
        pass
    raise click.exceptions.Exit(_out.EXIT_OUTPUT_LOST)


@keys.command("list")
@json_option
@click.pass_context
def list_(ctx, as_json):
    """List keys (names, roles, namespaces, expiry; never a key).

    \b
    Examples:
      mem mcp keys list --json

    Exit status: 0 ok; 2 the keys file cannot be parsed.
    """
    from objstore import mcp_keys_path, now_ms, read_mcp_keys
    records = read_mcp_keys(mcp_keys_path(home_path(ctx)))
    if as_json:
        emit_json([r.to_json(digest=False) for r in records])
        return
    now = now_ms()
    for r in records:
        state = " EXPIRED" if r.expired(now) else ""
        click.echo(f"{r.id}  {r.name}  {r.role}  {','.join(r.namespaces) or '*'}  "
                   f"created {fmt_time(r.created)}  expires {fmt_time(r.expires) if r.expires else 'never'}{state}")


@keys.command("revoke")
@click.argument("name")
@click.pass_context
def revoke(ctx, name):
    """Revoke the key named NAME (or with that id): it stops working at once.

    \b
    Examples:
      mem mcp keys revoke codex@laptop

    Exit status: 0 revoked; 4 no such key; 6 run by an agent.
    """
    import os

    from objstore import mcp_keys_path, require_person, revoke_mcp_key
    require_person(os.environ, "mem mcp keys revoke", instead="ask the user to revoke it")
    rec = revoke_mcp_key(mcp_keys_path(home_path(ctx)), name)
    click.echo(f"revoked {rec.name} ({rec.id})")


AGENTS = ("claude-code", "codex")


def config_path(agent: str, scope: str):
    """Where ``agent`` keeps its MCP servers: Claude Code user scope
    ``$CLAUDE_CONFIG_DIR/.claude.json`` (default ``~/.claude.json``), project
    scope ``./.mcp.json``; Codex ``$CODEX_HOME/config.toml`` (default
    ``~/.codex/config.toml``)."""
    import os
    from pathlib import Path
    if agent == "codex":
        return Path(os.environ.get("CODEX_HOME") or "~/.codex").expanduser() / "config.toml"
    if scope == "project":
        return Path.cwd() / ".mcp.json"
    d = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(d).expanduser() / ".claude.json") if d else Path("~/.claude.json").expanduser()


def _record_path(ctx, agent: str, path):
    from objstore import install_record_path
    return install_record_path(home_path(ctx), path, kind=f"mcp-{agent}")


def _show(plan, agent: str, action: str, dry_run: bool, as_json: bool) -> None:
    if as_json:
        emit_json({"agent": agent, "action": action, "path": str(plan.path), "changed": plan.changed,
                   "dry_run": dry_run})
        return
    if dry_run:
        import difflib
        diff = difflib.unified_diff((plan.before or "").splitlines(True), (plan.after or "").splitlines(True),
                                    fromfile=f"{plan.path} (now)", tofile=f"{plan.path} (after {action})")
        click.echo("".join(diff).rstrip("\n") or f"nothing to change in {plan.path}")
        return
    if not plan.changed:
        click.echo(f"{'already installed' if action == 'install' else 'not installed'} in {plan.path}; "
                   "nothing changed")
    elif action == "install":
        click.echo(f"added the mem MCP server to {plan.path}")
    else:
        click.echo(f"removed the mem MCP server from {plan.path}"
                   + (" (file deleted: the install created it)" if plan.after is None else ""))


def require_server() -> None:
    """Refuse (exit 1, :data:`NEEDS_SDK`) a stdio install while this
    Python cannot start the server (:func:`load_server`; fresh39 F14)."""
    try:
        load_server()
    except click.ClickException as e:
        raise click.ClickException(f"{e.message}; the agent would start 'mem mcp', which would exit at once: "
                                   "nothing was written (mem mcp install --force writes it anyway)") from None


def install_mcp(ctx, agent: str, scope: str, url: str | None, key_env: str, dry_run: bool, as_json: bool,
                quiet: bool = False, force: bool = False):
    """Install into ``agent``'s configuration; returns the plan.  A stdio
    install (no ``url``) is refused, exit 1, when this Python cannot start
    the server (:func:`load_server`: the mcp extra is missing; fresh39 F14:
    the agent then ran a server that exited 1 at once), unless ``force``."""
    import json
    refused = None
    if url is None and not force:
        try:
            require_server()
        except click.ClickException as e:
            if not dry_run:
                raise
            refused = e   # (test40 T13: a dry run showed nothing; it shows the plan, then the refusal)

    from objstore import claude_code_mcp_entry, install_record, plan_claude_code_mcp, plan_codex_mcp, \
        write_settings
    from .hooks_install import mem_command, store_arg
    path = config_path(agent, scope)
    home = store_arg(ctx)  # a store other than ~/.mem is pinned, as the hook installer does
    if agent == "codex":
        plan = plan_codex_mcp(path, mem_command(), url, key_env, home=home)
    else:
        plan = plan_claude_code_mcp(path, claude_code_mcp_entry(mem_command(), url, key_env, home=home))
    if plan.changed and not dry_run:
        # the undo record lives in the store: its lock first refuses a read-only store (exit 16)
        with open_store(ctx, create=True).lock("mcp install"):
            rec = _record_path(ctx, agent, path)
            rec.parent.mkdir(parents=True, exist_ok=True)
            made = plan.before is None and not path.parent.exists()   # (~/.codex: uninstall removes it again)
            write_settings(plan)
            rec.write_text(json.dumps(dict(install_record(plan), **({"made_dir": True} if made else {}))),
                           encoding="utf-8")
    if not quiet:
        _show(plan, agent, "install", dry_run, as_json)
        if url and not as_json and not dry_run:
            click.echo(f"hint: export {key_env}=<key> where {agent} starts (mint one: "
                       "mem mcp keys mint --name NAME --role agent); the file holds only the variable's name",
                       err=True)
    if refused is not None:
        raise refused
    return plan


_install_opts = [
    click.argument("agent", type=click.Choice(AGENTS)),
    click.option("--scope", type=click.Choice(["user", "project"]), default="user", show_default=True,
                 help="Claude Code: ~/.claude.json (user) or ./.mcp.json (project). Codex has one file."),
    click.option("--dry-run", is_flag=True, help="Show the change as a diff; write nothing."),
    json_option,
]


def _opts(f):
    for o in reversed(_install_opts):
        f = o(f)
    return f


@command.command("install")
@_opts
@click.option("--http", "url", metavar="URL",
              help="Use a running 'mem serve' at URL (e.g. http://127.0.0.1:8765/mcp) instead of stdio.")
@click.option("--key-env", default="MEM_MCP_KEY", show_default=True, metavar="VAR",
              help="With --http: the environment variable that holds the key (never the key itself).")
@click.option("--force", is_flag=True, help="Install the stdio server even when the mcp extra is missing here.")
@click.pass_context
def install_cmd(ctx, agent, scope, dry_run, as_json, url, key_env, force):
    """Register mem's MCP server with Claude Code or Codex.

    claude-code writes what 'claude mcp add' would: mcpServers.mem in
    ~/.claude.json (--scope user) or ./.mcp.json (--scope project).  codex
    adds [mcp_servers.mem] to ~/.codex/config.toml ($CODEX_HOME).  stdio
    runs 'mem mcp' ('mem --home STORE mcp' for a store other than ~/.mem,
    --home or MEM_HOME: the agent may start without MEM_HOME and would
    otherwise use a fresh ~/.mem); --http points at 'mem serve' with the key read from an
    environment variable (Claude Code: "Bearer ${MEM_MCP_KEY}"; Codex:
    bearer_token_env_var), never written in the file.  Idempotent;
    'mem mcp uninstall' restores the file byte for byte.

    \b
    Examples:
      mem mcp install claude-code
      mem mcp install codex
      mem mcp install codex --http http://127.0.0.1:8765/mcp
      mem mcp install claude-code --scope project --dry-run

    Without --http, the install is refused (exit 1, nothing written) when
    the mcp extra is missing (pip install 'memvcs[mcp]'): the agent would
    start a server that exits at once.  --force installs it anyway.

    Exit status: 0 installed or already there; 1 the mcp extra is missing
    (without --http or --force); 2 the file is not valid
    JSON/TOML, holds a different 'mem' server or is a symbolic link into a
    folder that does not exist (mem does not create it), or the --http URL or the
    store path (--home / $MEM_HOME) holds a credential (never written nor
    shown: the key goes in --key-env's variable), or is no http(s) URL
    with a host.
    """
    if url is not None:   # what the agent would fail on at start (fresh41 F24: "not a url", "ftp://x", "")
        from urllib.parse import urlsplit
        try:
            u = urlsplit(url)
            ok = u.scheme.lower() in ("http", "https") and bool(u.hostname) and url.isprintable() and " " not in url
            u.port   # (raises ValueError for a port that is no number from 0 to 65535: test42 T8)
        except ValueError:
            ok = False
        if not ok:
            raise click.BadParameter("not an http(s) URL with a host, such as http://127.0.0.1:8765/mcp "
                                     "(where 'mem serve' listens)", param_hint="'--http'")
    install_mcp(ctx, agent, scope, url, key_env, dry_run, as_json, force=force)


@command.command("uninstall")
@_opts
@click.option("--force", is_flag=True, help="Remove a 'mem' entry even when it is not mem's (another server by that name).")
@click.pass_context
def uninstall_cmd(ctx, agent, scope, dry_run, as_json, force):
    """Remove mem's MCP server from Claude Code's or Codex's configuration.

    A file still as the install left it gets back its exact bytes from
    before (a file the install created is deleted, and the folder it made
    for it, ~/.codex, when nothing else is in it); a file changed since
    loses only mem's entry.  A 'mem' entry that is not mem's (another
    program's server by that name, written by hand) is left alone, exit 2,
    unless --force.

    \b
    Examples:
      mem mcp uninstall codex
      mem mcp uninstall claude-code --scope project

    Exit status: 0 removed or not installed; 2 the file is not valid
    JSON/TOML, or its 'mem' entry is not mem's (without --force).
    """
    uninstall_mcp(ctx, agent, scope, dry_run, as_json, force=force)


def uninstall_mcp(ctx, agent: str, scope: str, dry_run: bool, as_json: bool, quiet: bool = False,
                  force: bool = False):
    """Remove from ``agent``'s configuration; returns the plan.  An entry
    that is not mem's is refused (InvalidInput) unless ``force``
    (``mcpinstall.is_mem_server``)."""
    import json

    from objstore import (claude_code_mcp_entry, codex_mcp_table, plan_claude_code_mcp_removal,
                          plan_codex_mcp_removal, write_settings)
    from .hooks_install import mem_command, store_arg
    path = config_path(agent, scope)
    rec_path = _record_path(ctx, agent, path)
    try:
        record = json.loads(rec_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = None
    home = store_arg(ctx, check=False)   # to match what an install wrote: neither written nor shown
    if agent == "codex":
        plan = plan_codex_mcp_removal(path, record=record, force=force,
                                      ours=codex_mcp_table(mem_command(), home=home)[0])
    else:
        plan = plan_claude_code_mcp_removal(path, record=record, force=force,
                                            ours=claude_code_mcp_entry(mem_command(), home=home))
    if not dry_run:
        if plan.changed:
            write_settings(plan)
            if plan.after is None and (record or {}).get("made_dir"):   # the folder the install made (fresh39 F14)
                try:
                    path.parent.rmdir()   # only when empty: anything put there since is the user's
                except OSError:
                    pass
        rec_path.unlink(missing_ok=True)
    if not quiet:
        _show(plan, agent, "uninstall", dry_run, as_json)
    return plan
