"""mem serve: the MCP server over streamable HTTP."""

from __future__ import annotations

import ipaddress

import click

from ._common import home_path, open_store, parse_time


def _listen(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise click.BadParameter(f"{value!r}: want HOST:PORT, e.g. 127.0.0.1:8765")
    return host.strip("[]") or "127.0.0.1", int(port)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.command("serve")
@click.option("--listen", default="127.0.0.1:8765", show_default=True, metavar="HOST:PORT",
              help="Address to bind (port 0: any free port, printed on stderr).")
@click.option("--allow-remote", is_flag=True, help="Allow a non-loopback address (keys are always required).")
@click.option("--rate", type=click.IntRange(1), default=240, show_default=True, help="Requests per minute per key.")
@click.option("--write-rate", type=click.IntRange(1), default=60, show_default=True, help="Writes per minute per key.")
@click.option("--max-body", type=click.IntRange(1024), default=1_048_576, show_default=True,
              help="Largest request body in bytes (413 above).")
@click.option("--create", is_flag=True, help="Create the store when there is none at --home (default: exit 10).")
@click.pass_context
def command(ctx, listen, allow_remote, rate, write_rate, max_body, create):
    """Serve memory over MCP streamable HTTP, for many agents at once.

    Stateless, JSON responses, at /mcp for read and agent keys and at
    /admin/mcp for owner keys.  Every request needs 'Authorization: Bearer
    <key>' (mint keys with 'mem mcp keys mint'): no, unknown, revoked or
    expired key -> 401; a role that may not use the endpoint or tool -> 403;
    over a per-key rate -> 429 with Retry-After; a body over --max-body ->
    413.  Keys are re-read when the keys file changes.  Binds loopback only
    unless --allow-remote; then put TLS in front (a reverse proxy), since
    keys travel in the clear otherwise.  One JSON line per call on stderr
    (tool, key name, outcome, ms; never a value or a query).

    \b
    Examples:
      mem serve
      mem serve --listen 127.0.0.1:0
      mem serve --listen 0.0.0.0:8765 --allow-remote   # behind TLS

    A server is long-lived and started by scripts: it never creates a store
    on its own (a mistyped --home would serve an empty memory, and every
    agent's writes would go there); --create makes one.

    Exit status: 0 stopped; 1 the mcp extra is missing or the port is
    taken; 2 a non-loopback address without --allow-remote; 6 no keys
    with --allow-remote; 10 no store at --home (and no --create).
    """
    import sys

    from objstore import KeyRing, Limits, Refused, mcp_keys_path
    from .mcp import load_server
    host, port = _listen(listen)
    if not _loopback(host) and not allow_remote:
        raise click.UsageError(f"{host} is not a loopback address: add --allow-remote (and put TLS in front)")
    srv = load_server()
    from objstore import StoreNotFound
    try:
        store = open_store(ctx, create=create)   # (test38 T9.10: a path with no store was made a new one, silently)
    except StoreNotFound as e:
        raise StoreNotFound(f"{e.message}: mem serve does not create one",
                            hint="run 'mem init' first, add --create, or point --home / MEM_HOME at a store") from None
    ring = KeyRing(mcp_keys_path(home_path(ctx)))
    if not _loopback(host):
        if not ring.records():
            raise Refused("--allow-remote needs keys: mint one with mem mcp keys mint")
        click.echo("warning: serving beyond this machine without TLS: put a TLS reverse proxy in front", err=True)
    if ring.world_readable():
        click.echo(f"warning: {ring.path} is readable by other users (chmod 600 it)", err=True)
    limits = Limits(requests_per_minute=rate, writes_per_minute=write_rate, max_body_bytes=max_body)

    def ready(server):
        for s in server.servers:
            for sock in s.sockets:
                h, p = sock.getsockname()[:2]
                h = f"[{h}]" if ":" in h else h   # an IPv6 address in a URL (test32 X11)
                click.echo(f"mem serve: listening on http://{h}:{p}/mcp", err=True)
        sys.stderr.flush()

    srv.run_http(srv.make_tools(store, None), ring, limits, parse_time, host, port, not _loopback(host), ready)
