"""Credentials are redacted on every capture path before anything reaches disk."""

from __future__ import annotations

import json

from objstore.memory import facts
from objstore.memory.forget import scan_store
from objstore.capture.importer import import_claude_code

GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
AWS = "AKIA" + "IOSFODNN7EXAMPLF"


def test_remember_and_import_redact(store, store_path, tmp_path):
    r = facts.remember(store, "project/p/ci", f"the CI token is {GH}")
    assert "[REDACTED:github-token]" in facts.current(store, "project/p/ci").fact.body
    rec = {"type": "user", "uuid": "u1", "sessionId": "s-red", "cwd": "/w/p", "timestamp": "2026-01-01T00:00:00Z",
           "message": {"role": "user", "content": f"export AWS_ACCESS_KEY_ID={AWS} and push with {GH}"}}
    f = tmp_path / "s-red.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    res = import_claude_code(store, [f])
    assert res.turns_added == 1 and res.secrets_redacted == 2
    assert scan_store(store_path, [GH.encode(), AWS.encode()]) == []
    assert r.written
