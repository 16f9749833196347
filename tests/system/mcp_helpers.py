"""Helpers of the MCP system tests: real server processes (``mem mcp`` over
stdio, ``mem serve`` on 127.0.0.1) driven by the official SDK's client."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def mem_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "cmds", *args]


@contextlib.contextmanager
def serve(*extra: str, env: dict | None = None, timeout: float = 30, listen: str = "127.0.0.1:0"):
    """Run ``mem serve --listen LISTEN`` and yield ``(base_url, log)``;
    ``log`` is a list collecting its stderr lines."""
    e = {**os.environ, **(env or {})}
    p = subprocess.Popen(mem_cmd("serve", "--listen", listen, *extra), stderr=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, text=True, env=e, cwd=REPO)
    log: list[str] = []
    url = None
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            line = p.stderr.readline()
            if not line:
                break
            log.append(line)
            m = re.search(r"listening on (http://\S+)/mcp", line)
            if m:
                url = m.group(1)
                break
        assert url, "".join(log)
        t = threading.Thread(target=lambda: log.extend(iter(p.stderr.readline, "")), daemon=True)
        t.start()
        yield url, log
        assert p.poll() is None, "the server died:\n" + "".join(log)
    finally:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)


def post(url: str, body, key: str | None = None, *, raw: bytes | None = None, headers: dict | None = None):
    """POST JSON to ``url``: ``(status, headers, parsed body or text)``."""
    data = raw if raw is not None else json.dumps(body).encode()
    h = {"content-type": "application/json", "accept": "application/json, text/event-stream",
         "mcp-protocol-version": "2025-06-18", **(headers or {})}
    if key:
        h["authorization"] = f"Bearer {key}"
    req = urllib.request.Request(url, data=data, headers=h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            status, hdrs, text = r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        status, hdrs, text = e.code, dict(e.headers), e.read().decode()
    try:
        return status, hdrs, json.loads(text)
    except ValueError:
        return status, hdrs, text


def rpc(method: str, params: dict | None = None, id: int = 1) -> dict:
    m = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        m["params"] = params
    return m


def call(name: str, args: dict, id: int = 1) -> dict:
    return rpc("tools/call", {"name": name, "arguments": args}, id)


@contextlib.asynccontextmanager
async def http_session(url: str, key: str):
    """An initialized SDK ``ClientSession`` over streamable HTTP."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    client = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    async with client, streamable_http_client(url, http_client=client) as streams:
        async with ClientSession(streams[0], streams[1]) as s:
            await s.initialize()
            yield s


def stdio_params(*args: str):
    from mcp import StdioServerParameters
    return StdioServerParameters(command=sys.executable, args=["-m", "cmds", "mcp", *args],
                                 env=dict(os.environ), cwd=str(REPO))


@contextlib.asynccontextmanager
async def stdio_session(*args: str):
    """An initialized SDK ``ClientSession`` on a ``mem mcp`` child process."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client
    async with stdio_client(stdio_params(*args)) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            yield s
