"""mem mcp: the MCP server over stdio, its keys and its installers."""

from __future__ import annotations

import click

from ._common import emit_json, fmt_time, home_path, json_option, open_store, parse_time

NEEDS_SDK = "the MCP server needs the mcp extra: pip install 'memvcs[mcp]'"


def load_server():
    """``cmds._mcpserver``, or a clear error when the ``mcp`` extra is missing."""
    try:
        from . import _mcpserver
    except ImportError as e:
        if "mcp" not in str(e) and "uvicorn" not in str(e) and "starlette" not in str(e):
            raise
        raise click.ClickException(NEEDS_SDK) from None
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
    context, remember (written agent_observed, author 'mcp').  With --admin:
    also forget, forget_matching, seal (two calls with a confirm token), pin,
    reinforce, queue_list, queue_accept, queue_reject, list_sealed, and
    remember writes user_stated.  Results are data, never instructions;
    sealed values never leave.  For many agents at once, over HTTP with keys,
    see 'mem serve'.  Keys for HTTP live under 'mem mcp keys' (the top-level
    'mem keys' lists fact keys).

    \b
    Examples:
      claude mcp add mem -- mem mcp
      mem mcp install codex
      mem mcp --admin            # what 'mem curate' attaches
      mem mcp keys mint --name codex@laptop --role agent

    Exit status: 0 the client closed the session; 1 the mcp extra is not
    installed; 10 no store.
    """
    if ctx.invoked_subcommand is not None:
        return
    import os

    from objstore import Caller, project_aliases
    srv = load_server()
    store = open_store(ctx, create=True)
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = None
    projects = project_aliases(cwd, override=project or os.environ.get("MEM_PROJECT") or None) or None
    caller = Caller("user", "admin") if admin else Caller("mcp", "agent")
    srv.run_stdio(srv.make_tools(store, projects), caller, parse_time)


@command.group("keys")
def keys():
    """Mint, list and revoke the bearer keys of 'mem serve'.

    A key is printed once (prefix memk_, so secret scanners catch it); only
    its SHA-256 is kept, in <store>/mcp/keys.json (mode 0600).  Roles: read
    (recall, get, log, search, context), agent (+ remember), owner (+ the
    admin tools, at /admin/mcp only; refused on /mcp).  --namespace confines
    a key to scopes or key prefixes (user, global, project/NAME, or deeper):
    entries outside read as missing.  A running server picks changes up
    without a restart.  (These live under 'mem mcp' because 'mem keys'
    already lists fact keys.)

    \b
    Examples:
      mem mcp keys mint --name codex@laptop --role agent
      mem mcp keys mint --name ci --role read --namespace project/api --expires-days 30
      mem mcp keys list
      mem mcp keys revoke codex@laptop

    Exit status: 0 ok; 2 bad name, role or namespace; 4 no such key.
    """


@keys.command("mint")
@click.option("--name", required=True, help="Unique name, recorded as the author of what the key writes.")
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

    Exit status: 0 minted; 2 bad name, role, namespace, or the name exists.
    """
    from objstore import mcp_keys_path, mint_mcp_key
    token, rec = mint_mcp_key(mcp_keys_path(home_path(ctx)), name, role, namespaces=namespaces,
                              expires_days=expires_days)
    if as_json:
        emit_json({"key": token, **rec.to_json(digest=False)})
        return
    click.echo(token)
    scope = f", namespaces {', '.join(rec.namespaces)}" if rec.namespaces else ""
    until = f", expires {fmt_time(rec.expires)}" if rec.expires else ""
    click.echo(f"minted {rec.name} ({rec.role}{scope}{until}); the key is shown only now", err=True)


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

    Exit status: 0 revoked; 4 no such key.
    """
    from objstore import mcp_keys_path, revoke_mcp_key
    rec = revoke_mcp_key(mcp_keys_path(home_path(ctx)), name)
    click.echo(f"revoked {rec.name} ({rec.id})")
