"""mem proxy and the names its headers carry (tester findings T3 and T4 of
session 17), with the official anthropic SDK against a real proxy process
and a loopback upstream (the rig of ``test_proxy.py``).

A session header (``X-Mem-Session``, Claude Code's
``x-claude-code-session-id``) or an ``X-Mem-Project`` holding a credential
is ignored as if absent, by the one name rule: nothing the proxy writes
(trace, state under ``cache/proxy``, refs, turns) holds it, the turns are
stored under the ``px-`` session a request without the header gets, and
injection works (the project of the working directory)."""

from __future__ import annotations

import hashlib
import json

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from tests.integrations.test_proxy import SYSTEM, client, eventually, rig, turns_of  # noqa: E402,F401

GH = "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"
SLACK = "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
AWS = "AKIAIOSFODNN7EXAMPLE"


def _thread(msg: dict) -> str:
    """The proxy's thread of a conversation (a hash of its first message)."""
    return hashlib.sha256(json.dumps(msg, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def _trace_line(rig, thread: str) -> dict:
    def find():
        if not rig["trace"].exists():
            return None
        got = [json.loads(x) for x in rig["trace"].read_text().splitlines()]
        return next((x for x in got if x.get("thread") == thread), None)
    return eventually(find)


def _nowhere(rig, *secrets: str) -> None:
    for p in rig["home"].rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            for s in secrets:
                assert s.encode() not in data, p
                assert s.encode() not in p.name.encode(), p


@pytest.mark.parametrize("header, value", [("X-Mem-Session", f"sess-{GH}"),
                                           ("x-claude-code-session-id", f"cc-{SLACK}")])
def test_a_session_header_holding_a_credential_is_ignored(rig, header, value):
    msg = {"role": "user", "content": f"hello proxy, the session header is {header.lower()}"}
    r = client(rig, **{header: value}).messages.create(model="m", max_tokens=10, messages=[msg],
                                                       extra_headers={"x-test-answer": "hello back"})
    assert r.content[0].text == "hello back"
    line = _trace_line(rig, _thread(msg))
    assert line["session"].startswith("px-") and line["ignored"] == [header.lower()]
    assert "error" not in line and line["captured"] == 2
    # stored, as a request without the header is: under its px- session (before: silently dropped)
    turns = eventually(lambda: (lambda ts: ts if len(ts) == 2 else None)(turns_of(rig, line["session"])))
    assert [t["role"] for t in turns] == ["user", "assistant"]
    _nowhere(rig, value, value[3:], value[5:])


def test_a_project_header_holding_a_credential_is_ignored(rig):
    msg = {"role": "user", "content": "hello proxy two, which postgres version does our db run?"}
    client(rig, **{"X-Mem-Project": f"proj-{AWS}", "x-mem-session": "named-project-1"}).messages.create(
        model="m", max_tokens=10, system=SYSTEM, messages=[msg])
    sent = rig["up"].requests[-1][2].decode()
    line = _trace_line(rig, _thread(msg))
    assert "error" not in line and line["ignored"] == ["x-mem-project"]
    # the block of the working directory's project (acme-api), as without the header; no "unreadable" file
    assert "Postgres 16 on port 5433" in sent and "unreadable" not in sent and AWS not in sent
    assert line["pinned_ids"]
    turns = eventually(lambda: (lambda ts: ts if len(ts) == 2 else None)(turns_of(rig, "named-project-1")))
    assert all(t.get("project") in ("acme-api", "", None) for t in turns), turns
    _nowhere(rig, AWS)
