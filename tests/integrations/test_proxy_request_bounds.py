"""A request body through mem proxy bounded and honestly coded (test26b W8,
W9): the proxy, not its HTTP server, decodes a ``POST /v1/messages`` body,
never past ``PROXY_MAX_REQUEST`` (a gzip bomb is refused 413 and never
decoded whole); a ``Content-Length`` over the bound is refused before
``100 Continue``; a body that does not decode goes upstream as it came,
its coding kept, and the trace says so; ``x-gzip`` is gzip (RFC 9110
8.4.1.3); an answer past the 64 MiB decode bound is traced as that bound.
A real proxy process and the loopback upstream of ``test_proxy.py``; what
is asserted is what was forwarded, the status and the trace (the memory
figures are ``bench/proxy_request_rss.py``'s)."""

from __future__ import annotations

import gzip
import json
import socket
import uuid
import zlib

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from objstore import PROXY_MAX_REQUEST  # noqa: E402
from tests.integrations.test_proxy import KEY, _trace_of, eventually, raw, rig, turns_of  # noqa: E402,F401

H = {"x-api-key": KEY, "content-type": "application/json", "anthropic-version": "2023-06-01"}


def _request(text: str) -> bytes:
    return json.dumps({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": text}]}).encode()


def _bomb() -> bytes:
    """A gzip request of a few KB that decodes to 1 MiB past the bound."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [c.compress(b'{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"')]
    out += [c.compress(b"a" * (1 << 20)) for _ in range((PROXY_MAX_REQUEST >> 20) + 1)]
    return b"".join(out + [c.compress(b'"}]}'), c.flush()])


def test_a_gzip_bomb_is_refused_413_and_never_forwarded(rig):
    n = len(rig["up"].requests)
    bomb = _bomb()
    assert len(bomb) < 1 << 20
    st, _hd, got = raw(rig["url"] + "/v1/messages", "POST", bomb, {**H, "content-encoding": "gzip"}, timeout=120)
    assert st == 413, got
    assert json.loads(got)["error"]["type"] == "request_too_large"
    assert f"over {PROXY_MAX_REQUEST >> 20} MiB" in json.loads(got)["error"]["message"]
    assert len(rig["up"].requests) == n
    # the proxy goes on serving
    st, _hd, _got = raw(rig["url"] + "/v1/messages", "POST", _request("after the bomb"), H)
    assert st == 200 and len(rig["up"].requests) == n + 1


def test_a_length_over_the_bound_is_refused_before_100_continue(rig):
    host, port = rig["url"].removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall((f"POST /v1/messages HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {PROXY_MAX_REQUEST + 1}\r\nExpect: 100-continue\r\n\r\n").encode())
        first = s.makefile("rb").readline()
    assert first.split()[1] == b"413", first       # before: "100 Continue", then 273 MB read


def test_a_length_over_the_bound_is_refused_without_reading_the_body(rig):
    n = len(rig["up"].requests)
    host, port = rig["url"].removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall((f"POST /v1/messages HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {PROXY_MAX_REQUEST + 1}\r\n\r\n").encode() + b"{" * 1000)
        first = s.makefile("rb").readline()
    assert first.split()[1] == b"413", first
    assert len(rig["up"].requests) == n


def test_a_cut_short_gzip_request_goes_upstream_as_it_came_and_the_trace_says_so(rig):
    sid = f"cutgzip-{uuid.uuid4().hex[:8]}"
    cut = gzip.compress(_request("cut short about marten-ridge"))[:-10]
    st, _hd, _got = raw(rig["url"] + "/v1/messages", "POST", cut, {**H, "content-encoding": "gzip",
                                                                    "x-mem-session": sid})
    path, headers, sent = rig["up"].requests[-1]
    assert path == "/v1/messages" and sent == cut          # before: decoded, cut, unlabelled
    assert {k.lower(): v for k, v in headers.items()}["content-encoding"] == "gzip"
    assert st == 400        # the loopback upstream cannot read it either: its answer is passed on
    def traced():     # the proxy writes its trace line after the answer's last byte: polled, not read once
        lines = [json.loads(x) for x in rig["trace"].read_text().splitlines()]
        return any(x.get("error") == "content-encoding gzip not decoded: forwarded as it came"
                   and x.get("status") == 400 for x in lines)
    assert eventually(traced, rig=rig)
    assert turns_of(rig, sid) == []


def test_an_x_gzip_request_is_read_as_gzip(rig):
    sid = f"xgzip-{uuid.uuid4().hex[:8]}"
    st, _hd, got = raw(rig["url"] + "/v1/messages", "POST", gzip.compress(_request("x-gzip about lynx-hollow")),
                       {**H, "content-encoding": "x-gzip", "x-mem-session": sid, "x-test-answer": "lynx noted"})
    assert st == 200 and json.loads(got)["content"][0]["text"] == "lynx noted"
    _path, headers, sent = rig["up"].requests[-1]
    assert "content-encoding" not in {k.lower() for k in headers}
    assert json.loads(sent)["messages"][0]["content"] == "x-gzip about lynx-hollow"
    turns = eventually(lambda: len(turns_of(rig, sid)) == 2 and turns_of(rig, sid))
    assert [t["text"] for t in turns] == ["x-gzip about lynx-hollow", "lynx noted"]


def test_a_gzip_request_left_unchanged_goes_upstream_compressed_as_it_came(rig):
    packed = gzip.compress(b'{"model": "m", "max_tokens": 5, "messages": []}')     # no messages: nothing to add
    st, _hd, _got = raw(rig["url"] + "/v1/messages", "POST", packed, {**H, "content-encoding": "gzip"})
    _path, headers, sent = rig["up"].requests[-1]
    assert sent == packed and {k.lower(): v for k, v in headers.items()}["content-encoding"] == "gzip"


def test_an_answer_past_the_decode_bound_is_traced_as_the_bound(rig):
    sid = f"ansbomb-{uuid.uuid4().hex[:8]}"
    st, _hd, got = raw(rig["url"] + "/v1/messages", "POST", _request("a huge compressed answer"),
                       {**H, "x-test-mode": "gzipbomb", "x-test-tag": sid, "x-mem-session": sid}, timeout=120)
    assert st == 200 and got == rig["up"].sent[sid]         # the client has the bytes as they came
    trace = eventually(lambda: _trace_of(rig, sid).get("answer") and _trace_of(rig, sid))
    assert trace["answer"] == "not captured: the answer decodes to over 64 MiB"     # before: "gzip not decoded"
