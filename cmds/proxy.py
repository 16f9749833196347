"""mem proxy: the Anthropic Messages API proxy (server entry point; the
request logic is objstore.integrations.proxy).  Needs the extra
``memvcs[proxy]`` (aiohttp)."""

from __future__ import annotations

import ipaddress
import json
import os
import sys
import time
from pathlib import Path

import click

from ._common import FiniteFloatRange, home_path, lock_timeout

DEFAULT_LISTEN = "127.0.0.1:7077"
DEFAULT_UPSTREAM = "https://api.anthropic.com"
#: the most bytes of a request body on another path than ``POST /v1/messages`` (forwarded as it came;
#: the Message Batches API takes up to 256 MB): 413 past it, read no further
MAX_BODY = 256 * 1024 * 1024

#: request fields not forwarded: hop-by-hop ones (RFC 9110 7.6.1), the length (the body may change), and
#: ``Expect``: the proxy answered a ``100-continue`` itself and holds the whole body, and an
#: HTTP/1.0 upstream never sends the 100 the client library would wait for (test26 V16: a hang)
HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
       "transfer-encoding", "upgrade", "host", "content-length", "expect"}


def browser_refusal(headers) -> str | None:
    """Why a request is refused before anything is read or forwarded, or
    None: one that carries ``Origin`` (test27 V20).  A browser sends
    ``Origin`` with every cross-site POST and with a CORS preflight, and a
    ``text/plain`` POST needs no preflight, so any page the person visits
    could otherwise plant "the person said …" turns through a proxy on
    loopback; an API client (the SDKs, Claude Code, curl) sends none."""
    origin = headers.get("Origin")
    if origin is None:
        return None
    return (f"mem proxy refuses requests from a web page (Origin: {origin[:100]}): it serves API clients on "
            "this machine, and a page must not write turns into your memory")


def capturable(headers) -> bool:
    """Whether a ``POST /v1/messages`` may be read for injection and
    capture: a JSON body (``Content-Type`` ``application/json`` or
    ``…+json``) with an API credential (``x-api-key`` or
    ``Authorization``): the requests the Messages API can accept.  Any
    other goes upstream unchanged and nothing of it is stored (test27 V20:
    a page's keyless ``text/plain`` POST, rejected 401 upstream, was stored
    as the person's turn)."""
    ctype = headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
    json_body = ctype == "application/json" or (ctype.startswith("application/") and ctype.endswith("+json"))
    return json_body and bool(headers.get("x-api-key") or headers.get("Authorization"))


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port); only loopback addresses (127.0.0.0/8,
    ::1, localhost).  Raises click.BadParameter."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise click.BadParameter(f"{text!r} is not HOST:PORT", param_hint="--listen")
    try:
        loop = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loop = False
    if not loop:
        raise click.BadParameter(f"{host} is not a loopback address: the proxy sees your API credentials and "
                                 "your conversations, so it only listens on 127.0.0.1 or ::1",
                                 param_hint="--listen")
    return host, int(port)


@click.group("proxy", invoke_without_command=True)
@click.option("--listen", default=DEFAULT_LISTEN, show_default=True, metavar="HOST:PORT",
              help="Loopback address to listen on (any other address is refused).")
@click.option("--upstream", default=DEFAULT_UPSTREAM, show_default=True, metavar="URL",
              help="Where requests go (the Anthropic API; another URL for a gateway or tests).")
@click.option("--trace", "trace", type=click.Path(dir_okay=False), metavar="FILE",
              help="Append one JSON line per request: roles, injected ids, rejected candidates (never values).")
@click.option("--no-capture", is_flag=True, help="Inject memory but store no turns.")
@click.option("--timeout", type=FiniteFloatRange(1, 3600), default=600, show_default=True, metavar="SECONDS",
              help="How long to wait for the upstream's answer.")
@click.pass_context
def command(ctx, listen, upstream, trace, no_capture, timeout):
    """Run the Anthropic Messages API proxy: memory in every request, every turn captured.

    Point a harness at it (ANTHROPIC_BASE_URL=http://127.0.0.1:7077) and
    every POST /v1/messages gets the session's memory block appended to
    its system prompt and, on prompts that need it, a recall block in the
    newest user message; user and assistant turns are stored as they pass.
    Existing bytes are never changed, so prompt caching keeps working.
    Every other path is forwarded unchanged; headers (API keys, OAuth
    bearers, anthropic-beta) pass through and are never stored.  A request
    from a web page (an Origin header) is refused with 403: a page must not
    write turns into your memory.  See docs/proxy.md.  Needs: pip install 'memvcs[proxy]' (from a clone of mem: '.[proxy]').

    \b
    Examples:
      mem proxy
      mem proxy --listen 127.0.0.1:7100 --trace ~/.mem/logs/proxy.trace
      mem proxy install          # a user service that keeps it running
      mem proxy health           # exit 0 when a proxy answers

    Exit status: 0 stopped; 1 the extra is missing or the port is taken;
    2 a non-loopback --listen, or an --upstream URL holding a credential
    (user:password@, ?key=; not shown); 10 no store.
    """
    if ctx.invoked_subcommand is not None:
        return
    host, port = parse_listen(listen)
    from objstore import check_name   # a credential in the URL is never echoed nor kept (test29 P12)
    check_name(upstream, "--upstream URL", where="the proxy's start line, its health answer and its traces",
               hint="give the URL without user:password@ or ?key=; the client's own key header goes through",
               url=True)
    if not upstream.lower().startswith(("http://", "https://")):
        raise click.BadParameter(f"{upstream!r} is not an http(s) URL", param_hint="--upstream")
    require_aiohttp()
    from objstore import open_store
    store = open_store(home_path(ctx), create=True, lock_timeout=lock_timeout(ctx))
    ctx.call_on_close(store.close)
    serve(store, host, port, upstream.rstrip("/"), trace=trace, capture=not no_capture, timeout=timeout)


def serve(store, host: str, port: int, upstream: str, *, trace: str | None, capture: bool, timeout: float) -> None:
    """Run the aiohttp server until interrupted."""
    import asyncio

    import aiohttp
    from aiohttp import web

    from objstore import (PROXY_MAX_ANSWER, PROXY_MAX_REQUEST, ProxyTooLarge, proxy_decode_body, proxy_drain_spool,
                          proxy_not_decoded, proxy_prepare, proxy_rejected, proxy_response_turns,
                          proxy_spool_turns)

    writer = CaptureWriter(store, proxy_spool_turns, proxy_drain_spool)

    def write_trace(rec: dict) -> None:
        if trace:
            with open(trace, "a", encoding="utf-8") as f:
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")

    async def on_startup(app):
        app["http"] = aiohttp.ClientSession(auto_decompress=False,
                                            timeout=aiohttp.ClientTimeout(total=None, sock_connect=30,
                                                                          sock_read=timeout))

    async def on_cleanup(app):
        await app["http"].close()
        await asyncio.to_thread(writer.close)

    async def health(_request):
        return web.json_response({"ok": True, "service": "mem proxy", "upstream": upstream})

    def limit_of(request: web.Request) -> int:
        return PROXY_MAX_REQUEST if request.method == "POST" and request.path == "/v1/messages" else MAX_BODY

    def too_large(limit: int):
        resp = _error(413, f"mem proxy: the request body is over {limit >> 20} MiB", "request_too_large")
        resp.force_close()      # the rest of the body is not read: the connection cannot carry another request
        return resp

    async def expect(request: web.Request):
        # a length over the bound is refused before "100 Continue", so the client sends no body (test26b W9)
        if (request.content_length or 0) > limit_of(request):
            return too_large(limit_of(request))
        if request.version != aiohttp.HttpVersion11:    # then as aiohttp's own expect handler does
            return None
        if request.headers.get("Expect", "").lower() == "100-continue":
            await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            request.writer.output_size = 0
            return None
        raise web.HTTPExpectationFailed(text="Unknown Expect")

    async def read_body(request: web.Request, limit: int) -> bytes:
        """The body as it came; ProxyTooLarge past ``limit`` bytes, read no further."""
        if (request.content_length or 0) > limit:
            raise ProxyTooLarge(limit)
        parts, n = [], 0
        while True:             # bounded: every read brings bytes, and at most ``limit`` of them are taken
            chunk = await request.content.readany()
            if not chunk:
                return b"".join(parts)
            n += len(chunk)
            if n > limit:
                raise ProxyTooLarge(limit)
            parts.append(chunk)

    async def handle(request: web.Request):
        t0 = time.perf_counter()
        refused = browser_refusal(request.headers)
        if refused:   # before the body is read: nothing forwarded, nothing stored
            write_trace({"time": int(time.time() * 1000), "path": request.path, "status": 403,
                         "error": "refused: the request came from a web page (Origin)"})
            return _error(403, refused)
        try:
            raw = await read_body(request, limit_of(request))
        except ProxyTooLarge as e:
            return too_large(e.limit)
        prep = None
        body = raw
        coded = request.headers.get("Content-Encoding", "")
        decoded = raw
        note = ""
        if request.method == "POST" and request.path == "/v1/messages" and capturable(request.headers):
            try:
                if coded.strip():   # decoded here, never past the bound (aiohttp's server does not: test26b W8, W9)
                    decoded = await asyncio.to_thread(proxy_decode_body, raw, coded, PROXY_MAX_REQUEST)
            except ProxyTooLarge as e:
                return too_large(e.limit)
            if decoded is None:     # a coding nobody here reads, or a body damaged or cut short
                note = proxy_not_decoded(coded) + ": forwarded as it came"
            else:
                try:
                    prep = await asyncio.to_thread(proxy_prepare, store, decoded, dict(request.headers),
                                                   capture=capture)
                    if prep.body is not decoded:
                        body = prep.body    # changed: goes on decoded, so without its coding (test26 V15)
                except Exception as e:  # noqa: BLE001 - the request goes through whatever happens here
                    prep = None
                    note = f"prepare failed: {type(e).__name__}"
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
        if body is not raw:
            headers = {k: v for k, v in headers.items() if k.lower() != "content-encoding"}
        headers["Accept-Encoding"] = "identity"  # bytes pass through as they are; capture can read them
        url = upstream + request.rel_url.path_qs
        try:
            up = await request.app["http"].request(request.method, url, data=body, headers=headers,
                                                   allow_redirects=False)
        except asyncio.TimeoutError:
            await not_taken(prep)
            return _error(504, "mem proxy: the upstream did not answer in time")
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError):
            await not_taken(prep)
            # the upstream dropped the connection: drop the client's the same way
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=502)
        except (aiohttp.ClientError, ValueError, OSError) as e:   # ValueError: a request aiohttp refuses to send
            await not_taken(prep)
            return _error(502, f"mem proxy: cannot reach the upstream ({type(e).__name__})")
        if prep is not None and 200 <= up.status < 300:
            # the request's turns only once the API took it (test27b X8: a request it rejected, 401 with a
            # made-up key or any 4xx/5xx, stored its user turn as the person's); before its answer's turns
            writer.put(prep.pending)
        else:
            await not_taken(prep)
        resp = web.StreamResponse(status=up.status, reason=up.reason)
        for k, v in up.headers.items():
            if k.lower() not in HOP:
                resp.headers.add(k, v)
        streamed = "text/event-stream" in up.headers.get("Content-Type", "")
        await resp.prepare(request)
        # kept for capture up to PROXY_MAX_ANSWER bytes; past it dropped (not captured: the trace says so),
        # while the client still gets every chunk as it comes
        keep = prep is not None and capture and up.status == 200
        got, over = bytearray(), False
        ok = True
        try:
            async for chunk in up.content.iter_any():
                if keep:
                    if len(got) + len(chunk) <= PROXY_MAX_ANSWER:
                        got += chunk
                    else:
                        keep, over, got = False, True, bytearray()
                await resp.write(chunk)
        except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionResetError):
            ok = False  # the upstream dropped: so does the client's connection
        finally:
            up.release()
        if not ok:
            request.transport.close() if request.transport else None
            return resp
        await resp.write_eof()
        answer = []
        if prep is not None and capture and up.status == 200:
            try:
                # off the event loop (a large or many-framed compressed answer is CPU work: test25b U2)
                answer = await asyncio.to_thread(proxy_response_turns, prep, None if over else bytes(got),
                                                 streamed=streamed,
                                                 # several fields are one list (RFC 9110 5.3; test25b U5)
                                                 encoding=", ".join(up.headers.getall("Content-Encoding", [])))
                writer.put(answer)
            except Exception:  # noqa: BLE001 - never costs the answer
                pass
        if (prep is not None or note) and trace:
            write_trace({"time": int(time.time() * 1000), "path": request.path, "status": up.status,
                         "ms": round((time.perf_counter() - t0) * 1000, 1),
                         "captured": prep.turns + len(answer) if prep is not None else 0,
                         **(prep.trace if prep is not None else {"error": note})})
        return resp

    async def not_taken(prep) -> None:
        """The upstream did not take the request: none of its turns is stored, and its conversation's
        state is set back so that the client's retry captures them (``proxy_rejected``)."""
        if prep is not None:
            try:
                await asyncio.to_thread(proxy_rejected, prep)
            except OSError:   # the state stays ahead: the retry's turns are not captured, the answer goes on
                pass

    def _error(status: int, message: str, kind: str = "api_error"):
        return web.json_response({"type": "error", "error": {"type": kind, "message": message}}, status=status)

    app = web.Application(client_max_size=MAX_BODY)
    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)
    app.router.add_get("/mem/health", health)
    app.router.add_route("*", "/{tail:.*}", handle, expect_handler=expect)
    shown = f"[{host}]" if ":" in host else host

    import socket
    try:   # bound here, so a taken port never prints "on …" and port 0 is said as the port it got (test28 Y4)
        sock = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as e:
        raise click.ClickException(f"cannot listen on {shown}:{port}: {e.strerror}") from None
    bound = sock.getsockname()[1]

    async def announce(_app):
        click.echo(f"mem proxy on http://{shown}:{bound} -> {upstream} (store {store.root})", err=True)

    app.on_startup.append(announce)
    # the server decodes no request coding: the handler does, bounded (test26b W8, W9)
    web.run_app(app, sock=sock, print=None, handle_signals=True, auto_decompress=False)


class CaptureWriter:
    """One background thread that stores captured turns in arrival order,
    a batch at a time, so no request waits for the store.  Each batch is
    first put in the spool on disk (``spool``: redacted, no lock), then the
    spool is stored (``drain``: one store lock, one index commit for what
    waits; ``objstore.integrations.proxyspool``).  While the store lock
    cannot be had (an import or a ``gc`` holding it) the spool is tried
    again every ``RETRY_S`` seconds for up to ``RETRY_FOR_S`` seconds, and
    the batches that arrive meanwhile are spooled behind it between tries
    (test27 V19: a proxy-only harness has no transcript to import it from
    later; test28 Y9: a proxy killed meanwhile loses none of them).  What
    is still locked out then, or at ``close``, stays in the spool for the
    next proxy started on this store, which stores it first."""

    #: seconds a try waits for the store lock (at most; the store's lock timeout when shorter): the
    #: batches that arrive meanwhile are in memory only until the try ends
    RETRY_S = 1.0
    #: seconds a locked-out spool is tried for before it is left to the next proxy
    RETRY_FOR_S = 600.0
    #: tries of a spool whose store fails for another reason than the lock, ``RETRY_S`` apart, before it
    #: waits for the next batch
    FAIL_TRIES = 3

    def __init__(self, store, spool, drain) -> None:
        import queue
        import threading
        self.store, self.spool, self.drain = store, spool, drain
        self.q: queue.Queue = queue.Queue()
        self.closing = threading.Event()
        self.stop = False
        self.t = threading.Thread(target=self._run, name="mem-proxy-capture", daemon=True)
        self.t.start()

    def put(self, turns: list) -> None:
        if turns:
            self.q.put(list(turns))

    def _run(self) -> None:
        self._drain_retrying()     # what a proxy stopped before it stored it left in the spool
        while not self.stop:
            item = self.q.get()
            if item is None:
                return
            self._spool(item)
            self._spool_queued()
            self._drain_retrying()

    def _spool(self, turns: list) -> None:
        try:
            self.spool(self.store, turns)
        except Exception as e:  # noqa: BLE001 - test25 T1: one request's failure never costs the others'
            self._failed(e, len(turns))

    def _spool_queued(self) -> None:
        """Spool every batch queued now, in order (a ``None``: stop after this)."""
        import queue
        while True:
            try:
                item = self.q.get_nowait()
            except queue.Empty:
                return
            if item is None:
                self.stop = True
                return
            self._spool(item)

    def _drain_retrying(self) -> None:
        """Store the spool; while the store lock is held by another process
        (StoreLocked after a try of at most ``RETRY_S`` seconds), spool what
        arrived and try again, for up to ``RETRY_FOR_S`` seconds (not past
        ``close``'s own wait); then leave the spool to the next proxy.  A
        store that fails otherwise is tried ``FAIL_TRIES`` times in all,
        ``RETRY_S`` apart, then again with the next batch."""
        import time

        from objstore import StoreLocked, proxy_spool_waiting
        give_up = time.monotonic() + self.RETRY_FOR_S
        failures = 0
        while True:
            t0 = time.monotonic()
            try:
                res = self.drain(self.store, lock_timeout=min(self.store.lock_timeout, self.RETRY_S))
            except StoreLocked:
                self.closing.wait(max(0.0, self.RETRY_S - (time.monotonic() - t0)))   # (a lock timeout of 0)
                self._spool_queued()
                if time.monotonic() >= give_up or self.closing.is_set():
                    batches, turns = proxy_spool_waiting(self.store.root)
                    click.echo(f"mem proxy: the store stayed locked; {turns} turn(s) of {batches} batch(es) "
                               "kept in cache/proxy-spool: the next mem proxy started on this store stores "
                               "them", err=True)
                    return
                continue
            except Exception as e:  # noqa: BLE001 - a failed write is logged, the proxy goes on
                # tried again a few times (a conversation's last answer has no next batch to carry it)
                failures += 1
                last = failures >= self.FAIL_TRIES or self.closing.is_set()
                click.echo(f"mem proxy: capture failed ({type(e).__name__}); the spooled turns are tried "
                           + ("again with the next batch" if last else f"again in {self.RETRY_S:g} s"), err=True)
                if last:
                    return
                self.closing.wait(self.RETRY_S)
                self._spool_queued()
                continue
            for n, name in res.failed:
                self._failed(name, n)
            return

    @staticmethod
    def _failed(e, n: int) -> None:
        name = e if isinstance(e, str) else type(e).__name__
        click.echo(f"mem proxy: capture failed ({name}); {n} turn(s) not stored", err=True)

    def close(self) -> None:
        self.q.put(None)
        self.t.join(60)
        if self.t.is_alive():   # still locked out: the next try is its last (the spool keeps the rest)
            self.closing.set()
            self.t.join(60)


@command.command("health")
@click.option("--url", default=f"http://{DEFAULT_LISTEN}", show_default=True, help="The proxy's address.")
@click.option("--timeout", type=float, default=1.0, show_default=True, help="Seconds to wait.")
def health_cmd(url, timeout):
    """Exit 0 when a mem proxy answers at URL within the timeout, else 1.

    \b
    Examples:
      mem proxy health && export ANTHROPIC_BASE_URL=http://127.0.0.1:7077

    Exit status: 0 a proxy answered; 1 none did.
    """
    import urllib.request
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/mem/health", timeout=timeout) as r:
            ok = r.status == 200 and json.loads(r.read()).get("service") == "mem proxy"
    except (OSError, ValueError):
        ok = False
    if not ok:
        click.echo(f"mem: no mem proxy answers at {url} (start one: mem proxy)", err=True)
    raise click.exceptions.Exit(0 if ok else 1)


UNIT = """[Unit]
Description=mem proxy: memory for the Anthropic Messages API
After=network.target

[Service]
ExecStart={exe} proxy --listen {listen}
Environment=MEM_HOME={home}
Restart=on-failure
RestartSec=2
StandardOutput=append:{log}
StandardError=append:{log}

[Install]
WantedBy=default.target
"""

PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>dev.memvcs.proxy</string>
  <key>ProgramArguments</key><array><string>{exe}</string><string>proxy</string><string>--listen</string><string>{listen}</string></array>
  <key>EnvironmentVariables</key><dict><key>MEM_HOME</key><string>{home}</string></dict>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><true/>
  <key>StandardOutPath</key><string>{log}</string>
  <key>StandardErrorPath</key><string>{log}</string>
</dict>
</plist>
"""


def require_aiohttp(hint: str = "") -> None:
    """Raise ClickException (exit 1) when the proxy extra (aiohttp) is not
    installed in this Python: ``mem proxy`` cannot run, and a service
    written for it would restart a failing process every 2 s (fresh42 F20)."""
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        raise click.ClickException("mem proxy needs aiohttp: pip install 'memvcs[proxy]' "
                                   "(from a clone of mem: pip install '.[proxy]' in it)" + hint) from None


@command.command("install")
@click.option("--listen", default=DEFAULT_LISTEN, show_default=True, metavar="HOST:PORT")
@click.option("--dry-run", is_flag=True, help="Print the file instead of writing it.")
@click.option("--force", is_flag=True, help="Write the service even when the proxy extra is missing here.")
@click.pass_context
def install_cmd(ctx, listen, dry_run, force):
    """Write a user service that keeps the proxy running (systemd on Linux, launchd on macOS).

    The service runs 'mem proxy' with this store and restarts it when it
    stops; its log is <store>/logs/proxy.log.  The command to start it is
    printed; nothing is started for you.

    \b
    Examples:
      mem proxy install
      mem proxy install --dry-run

    Without the proxy extra (pip install 'memvcs[proxy]') the service is
    not written (exit 1): it would start a 'mem proxy' that exits at once;
    --force writes it anyway.

    Exit status: 0 written (or printed); 1 the proxy extra is missing (not
    with --dry-run or --force); 2 a non-loopback --listen, or a store path
    holding a credential (never shown).
    """
    parse_listen(listen)
    if not (dry_run or force):
        require_aiohttp("; nothing was written ('--force' writes the service anyway)")
    import shutil

    from .hooks_install import store_arg
    store_arg(ctx, where="the proxy's service file")   # test18b V6: a path holding a credential is refused, unshown
    home = home_path(ctx).resolve()
    exe = shutil.which("mem") or str(Path(sys.argv[0]).resolve())
    log = home / "logs" / "proxy.log"
    if sys.platform == "darwin":
        path = Path("~/Library/LaunchAgents/dev.memvcs.proxy.plist").expanduser()
        text = PLIST.format(exe=exe, listen=listen, home=home, log=log)
        start = f"launchctl load -w {path}"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or "~/.config").expanduser()
        path = base / "systemd" / "user" / "mem-proxy.service"
        text = UNIT.format(exe=exe, listen=listen, home=home, log=log)
        start = "systemctl --user daemon-reload && systemctl --user enable --now mem-proxy"
    if dry_run:
        click.echo(f"# {path}\n{text}")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    click.echo(f"wrote {path}\nstart it with: {start}\nthen: export ANTHROPIC_BASE_URL=http://{listen}")
