"""A compressed request body through mem proxy (test26 V15): aiohttp's
server decodes a body sent with ``Content-Encoding: gzip`` (deflate, br,
zstd) before the proxy reads it, so the proxy forwards the body it has —
decoded, with the memory block spliced in — without that coding; the
upstream got plain JSON still labelled gzip and rejected it.  A coding the
server does not decode passes through as it came.  A real proxy process
and the loopback upstream of ``test_proxy.py``."""

from __future__ import annotations

import gzip
import json
import uuid

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from tests.integrations.test_proxy import KEY, eventually, raw, rig, turns_of  # noqa: E402,F401

H = {"x-api-key": KEY, "content-type": "application/json", "anthropic-version": "2023-06-01"}


def test_a_gzip_request_is_forwarded_decoded_without_its_coding_and_captured(rig):
    sid = f"reqgzip-{uuid.uuid4().hex[:8]}"
    body = json.dumps({"model": "m", "max_tokens": 5, "system": "Working directory: /home/dev/acme-api",
                       "messages": [{"role": "user", "content": "gzip body about quail-canyon"}]}).encode()
    st, _hd, got = raw(rig["url"] + "/v1/messages", "POST", gzip.compress(body),
                       {**H, "content-encoding": "gzip", "x-mem-session": sid, "x-test-answer": "quail noted"})
    assert st == 200 and json.loads(got)["content"][0]["text"] == "quail noted"
    path, headers, sent = rig["up"].requests[-1]
    assert path == "/v1/messages"
    assert "content-encoding" not in {k.lower() for k in headers}, headers
    doc = json.loads(sent)          # plain JSON, as labelled
    assert doc["messages"][0]["content"] == "gzip body about quail-canyon" and "<mem-context" in json.dumps(doc)
    turns = eventually(lambda: len(turns_of(rig, sid)) == 2 and turns_of(rig, sid))
    assert [t["text"] for t in turns] == ["gzip body about quail-canyon", "quail noted"]


def test_a_coding_the_server_does_not_decode_passes_through_as_it_came(rig):
    packed = b"\x1f\x9d" + b'{"model": "m"}'      # 'compress' (LZW): named only, nobody here decodes it
    st, _hd, _got = raw(rig["url"] + "/v1/messages", "POST", packed, {**H, "content-encoding": "compress"})
    _path, headers, sent = rig["up"].requests[-1]
    assert sent == packed and {k.lower(): v for k, v in headers.items()}["content-encoding"] == "compress"
    assert st == 400      # the loopback upstream cannot read it either: its answer is passed on


def test_expect_100_continue_is_not_forwarded_to_an_http10_upstream(tmp_path):
    """test26 V16: the proxy's server answers a client's ``Expect:
    100-continue`` and reads the body; forwarding the expectation made the
    proxy wait for a 100 that an HTTP/1.0 upstream (``http.server``) never
    sends: the request hung.  Now it is answered at once."""
    import http.server
    import os
    import subprocess
    import sys
    import threading

    from tests.integrations.test_proxy import REPO, start_proxy

    got: list[dict] = []

    class One(http.server.BaseHTTPRequestHandler):      # protocol_version stays HTTP/1.0
        def do_POST(self):
            n = int(self.headers.get("Content-Length", 0))
            self.rfile.read(n)
            got.append({k.lower(): v for k, v in self.headers.items()})
            body = json.dumps({"id": "m1", "type": "message", "role": "assistant", "model": "m",
                               "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                               "usage": {"input_tokens": 1, "output_tokens": 1}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), One)
    threading.Thread(target=srv.serve_forever, daemon=True).start()

    class Up:
        port = srv.server_address[1]

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(tmp_path / "s"), HOME=str(tmp_path / "home"))
    subprocess.run([sys.executable, "-m", "cmds", "init"], env=env, cwd=REPO, check=True, capture_output=True)
    proc, url = start_proxy(env, Up(), tmp_path / "trace.jsonl")
    try:
        body = json.dumps({"model": "m", "max_tokens": 5, "messages": [
            {"role": "user", "content": "expect a continue " + "x" * 200_000}]}).encode()
        st, _hd, out = raw(url + "/v1/messages", "POST", body, {**H, "expect": "100-continue"}, timeout=60)
        assert st == 200 and json.loads(out)["content"][0]["text"] == "ok"
        assert got and "expect" not in got[-1], got
    finally:
        proc.terminate()
        proc.wait(60)
        srv.shutdown()
