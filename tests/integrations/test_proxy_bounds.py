"""mem proxy's bounds on what it keeps of an answer for capture (lane
mend26), with a real proxy process and the loopback upstream of
``test_proxy.py``: an answer past ``PROXY_MAX_ANSWER`` bytes reaches the
client whole and unchanged but is not kept (before, every byte of it was
held, then copied); a gzip answer of several members is captured whole."""

from __future__ import annotations

import hashlib
import http.client
import json
import uuid

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from objstore import PROXY_MAX_ANSWER  # noqa: E402
from tests.integrations.test_proxy import (KEY, Upstream, _trace_of, eventually, raw, rig,  # noqa: E402,F401
                                           start_proxy, turns_of)

H = {"x-api-key": KEY, "content-type": "application/json", "anthropic-version": "2023-06-01"}


def _peak_rss_kib(pid: int) -> int:
    """The peak resident size of process ``pid`` (``VmHWM``, KiB)."""
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


def test_an_answer_past_the_bound_streams_whole_and_is_not_kept(rig, tmp_path):
    """A 3 x PROXY_MAX_ANSWER (192 MiB) stream reaches the client byte for
    byte; the proxy's peak memory stays below the answer's size (it held it
    all, and a copy, before); the request's turn is captured, the answer is
    not, and the trace says why."""
    mib = 3 * (PROXY_MAX_ANSWER >> 20)
    up = Upstream()
    proc, url = start_proxy(rig["env"] | {"MEM_HOME": str(tmp_path / "store")}, up, tmp_path / "trace.jsonl")
    try:
        sid = f"huge-{uuid.uuid4().hex[:8]}"
        body = json.dumps({"model": "m", "max_tokens": 5, "stream": True,
                           "messages": [{"role": "user", "content": "a very long answer please"}]}).encode()
        c = http.client.HTTPConnection(url.removeprefix("http://"), timeout=120)
        c.request("POST", "/v1/messages", body=body, headers={**H, "x-test-mode": "huge", "x-test-mib": str(mib),
                                                             "x-test-tag": sid, "x-mem-session": sid})
        r = c.getresponse()
        sha, n = hashlib.sha256(), 0
        for _ in range(100_000):                     # bounded: 192 MiB in reads of up to 1 MiB
            part = r.read(1 << 20)
            if not part:
                break
            sha.update(part)
            n += len(part)
        c.close()
        assert r.status == 200 and n > mib << 20 and sha.digest() == up.sent[sid]   # unchanged, whole
        rig_here = {**rig, "env": rig["env"] | {"MEM_HOME": str(tmp_path / "store")},
                    "trace": tmp_path / "trace.jsonl"}
        trace = eventually(lambda: _trace_of(rig_here, sid))
        assert trace["answer"] == f"not captured: the answer is over {PROXY_MAX_ANSWER >> 20} MiB"
        assert trace["captured"] == 1
        assert [t["role"] for t in eventually(lambda: turns_of(rig_here, sid))] == ["user"]
        assert _peak_rss_kib(proc.pid) < mib << 10, "the proxy held the whole answer"
    finally:
        proc.terminate()
        proc.wait(120)
        up.stop()


def test_a_gzip_answer_of_several_members_is_captured_whole(rig):
    """Only the first member of a gzip body was read: the answer's JSON was
    cut after 7 bytes and nothing was captured."""
    sid = f"gzm-{uuid.uuid4().hex[:8]}"
    word = "gzip-members-answer-iota"
    body = json.dumps({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "in pieces"}]})
    st, hd, got = raw(rig["url"] + "/v1/messages", "POST", body.encode(),
                      {**H, "x-test-mode": "gzipmembers", "x-test-answer": word, "x-test-tag": sid,
                       "x-mem-session": sid})
    assert st == 200 and got == rig["up"].sent[sid] and hd.get("Content-Encoding") == "gzip"   # bytes unchanged
    turns = eventually(lambda: len(turns_of(rig, sid)) == 2 and turns_of(rig, sid))
    assert turns[1]["role"] == "assistant" and word in json.dumps(turns[1])
    assert "answer" not in _trace_of(rig, sid)
