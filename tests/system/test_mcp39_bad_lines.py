"""Lane mcp39 (tester finding test39 T3): no line kills ``mem mcp`` (stdio).
JSON nested past the parsers (5,000 levels: Python's ``json`` raised
RecursionError and the server exited 1, its read requests unanswered),
nested past the SDK's parser only (its ``id`` kept), integers too long to
read, invalid UTF-8, NUL bytes and a 50 MB line (read in bounded pieces) each get one answer and the
server serves on; over HTTP (``mem serve``) the nested body gets a JSON-RPC
error, not a bare 500.  Real processes fed raw bytes."""

from __future__ import annotations

import json
import queue
import re
from pathlib import Path
import subprocess
import threading

import pytest

pytest.importorskip("mcp")

from mcp_helpers import REPO, call, mem_cmd, post, rpc, serve  # noqa: E402

DEEP = b"[" * 5000 + b"]" * 5000


def _get(rid, key: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"get","arguments":{"key":%s}}}' % (
        json.dumps(rid).encode(), key)


def test_stdio_answers_each_bad_line_and_serves_on(store_path, mem):
    mem("remember", "project/x/db", "pg 16")
    p = subprocess.Popen(mem_cmd("mcp"), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=REPO)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in iter(p.stdout.readline, b"")], daemon=True).start()
    try:
        def send(raw: bytes) -> None:
            p.stdin.write(raw + b"\n")
            p.stdin.flush()

        def recv() -> dict:
            return json.loads(lines.get(timeout=120))

        send(json.dumps(rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                           "clientInfo": {"name": "t", "version": "0"}}, id=0)).encode())
        assert "result" in recv()
        send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        bad = [(_get(2, DEEP), None, -32700),                           # past Python's parser: id unreadable
               (_get(3, b"[" * 300 + b"]" * 300), 3, -32700),           # past the SDK's parser only
               (_get(4, b"9" * 5000), None, -32700),                    # an int past Python's 4,300 digits
               (_get(5, b'"a\x00b"'), None, -32700),                    # a raw NUL in a string
               (b"\x00\x00\x00", None, -32700),
               (_get(6, b'"' + b"b" * 50_000_000), None, -32700)]       # 50 MB, unterminated
        for raw, rid, code in bad:
            send(raw)
            r = recv()
            assert r["id"] == rid and r["error"]["code"] == code, r
        send(_get(7, b'"project/\xff\xfe"'))                           # invalid UTF-8: read as U+FFFD
        r = recv()
        assert r["id"] == 7 and r["result"]["isError"] and r["result"]["content"][0]["text"].startswith("bad_input")
        send(_get(8, b'"' + b"a" * 50_000_000 + b'"'))                   # 50 MB of JSON: never held whole
        r = recv()
        assert r["id"] is None and r["error"]["message"] == "Parse error: a line over 33554432 characters", r
        send(_get(10, b'"' + b"a" * 20_000_000 + b'"'))                     # under the line bound, over a call's
        r = recv()
        assert r["id"] == 10 and r["result"]["isError"] and "262144" in r["result"]["content"][0]["text"]
        send(json.dumps(call("get", {"key": "project/x/db"}, id=9)).encode())
        r = recv()
        assert r["id"] == 9 and "pg 16" in r["result"]["content"][0]["text"], r
        assert lines.empty()
        peak_kib = int(re.search(r"VmHWM:\s*(\d+)", Path(f"/proc/{p.pid}/status").read_text()).group(1))
        assert peak_kib < 200_000, peak_kib   # two 50 MB lines read in 32 MiB pieces (held whole: ~280 MB)
    finally:
        p.stdin.close()
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)
    assert p.returncode == 0, p.stderr.read()[-2000:]


def test_stdio_answers_requests_around_a_deep_line_written_at_once(store_path, mem):
    """The tester's pipeline: all lines written, then stdin closed."""
    mem("remember", "project/x/db", "pg 16")
    init = json.dumps(rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": "t", "version": "0"}}, id=0)).encode()
    feed = b"\n".join([init, b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
                       _get(1, b'"project/x/db"'), _get(2, DEEP), _get(3, b'"project/x/db"')]) + b"\n"
    p = subprocess.run(mem_cmd("mcp"), input=feed, capture_output=True, cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    got = {r["id"]: r for r in map(json.loads, p.stdout.splitlines())}
    assert sorted(got, key=str) == [0, 1, 3, None]
    assert got[None]["error"]["code"] == -32700 and "pg 16" in got[3]["result"]["content"][0]["text"]


def test_http_deep_body_gets_a_json_rpc_error(store, store_path):
    key = subprocess.run(mem_cmd("mcp", "keys", "mint", "--name", "a", "--role", "agent"), capture_output=True,
                         text=True, cwd=REPO, timeout=60).stdout.strip()
    with serve() as (base, log):
        status, _, body = post(base + "/mcp", None, key, raw=_get(2, DEEP))
        assert status == 400 and isinstance(body, dict) and body["error"]["code"] == -32700, (status, body)
        status, _, body = post(base + "/mcp", rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                                                 "clientInfo": {"name": "t", "version": "0"}}), key)
        assert status == 200
    assert "Traceback" not in "".join(log)
