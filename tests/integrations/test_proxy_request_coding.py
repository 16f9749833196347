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
