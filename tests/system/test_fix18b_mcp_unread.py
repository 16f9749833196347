"""Lane fix18b (tester finding U5): ``mem mcp`` (stdio) answers every
request with an id, also one the SDK's transport cannot parse — a string
holding a lone surrogate (``\\ud800``: JSON by RFC 8259, refused by the
SDK's strict parser) gets ``bad_input``; a line that is not JSON gets
``-32700`` and a batch ``-32600``, with ``id`` null — and serves on.  A real
``mem mcp`` process fed raw lines (the SDK client cannot write such a
string)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading

import pytest

pytest.importorskip("mcp")

from mcp_helpers import REPO, call, mem_cmd, rpc  # noqa: E402


def test_stdio_answers_every_request_it_cannot_parse_and_serves_on(store_path, mem):
    mem("remember", "project/api/db", "postgres 16")
    p = subprocess.Popen(mem_cmd("mcp"), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=REPO, text=True, bufsize=1)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in iter(p.stdout.readline, "")], daemon=True).start()
    try:
        def send(text: str) -> None:
            p.stdin.write(text + "\n")
            p.stdin.flush()

        def recv() -> dict:
            return json.loads(lines.get(timeout=60))

        send(json.dumps(rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                           "clientInfo": {"name": "t", "version": "0"}}, id=0)))
        assert "result" in recv()
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        # json.dumps writes a lone surrogate as the escape \ud800, as a client in another language may
        send(json.dumps(call("get", {"key": "project/api/\ud800"}, id=8)))
        r = recv()
        assert r["id"] == 8 and r["result"]["isError"], r
        assert r["result"]["content"][0]["text"].startswith("bad_input:") and "Unicode" in r["result"]["content"][0]["text"]
        send(json.dumps(rpc("tools/list", {"cursor": "\udfff"}, id="s9")))
        r = recv()
        assert r["id"] == "s9" and r["error"]["code"] == -32602, r
        send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"\\ud800"}}')   # never answered
        send("{this is not json")
        assert recv() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
        send("[1,2]")
        r = recv()
        assert r["id"] is None and r["error"]["code"] == -32600, r
        send('{"jsonrpc":"2.0","id":5}')
        r = recv()
        assert r["id"] == 5 and r["error"]["code"] == -32600, r
        send(json.dumps(call("get", {"key": "project/api/db"}, id=10)))
        r = recv()
        assert r["id"] == 10 and not r["result"].get("isError") and "postgres 16" in r["result"]["content"][0]["text"]
        assert lines.empty()                  # one reply per request, none for the notification
    finally:
        p.stdin.close()
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)
    err = p.stderr.read()
    assert "ud800" not in err and "this is not json" not in err, err   # the log names outcomes, never the line
