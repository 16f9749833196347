"""test16 F13: ``mem import claude-code FILE`` given a Codex rollout (or
``import codex`` given a Claude Code transcript) exited 0 with "imported 0
new turns".  Now it exits 2 (docs/exit-codes.md: nothing given is a
transcript of the harness) and says which harness the file is of, with the
command that imports it.  Real ``mem`` processes on real files."""

from __future__ import annotations

import json

import pytest

CODEX = "\n".join(json.dumps(r) for r in (
    {"timestamp": "2026-03-02T10:00:00.000Z", "type": "session_meta",
     "payload": {"id": "0199a1b2-5c3d-7e10-8f00-00000000000d", "cwd": "/tmp/p", "originator": "codex_cli_rs"}},
    {"timestamp": "2026-03-02T10:00:01.000Z", "type": "response_item",
     "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the build"}]}},
)) + "\n"
CLAUDE = "\n".join(json.dumps(r) for r in (
    {"type": "user", "sessionId": "a3e1d7b0-1c2f-4b8a-9e55-7c6d0f9b2e34", "uuid": "6df243bd-aee9-5107-bc0d-3d941d46e439",
     "timestamp": "2026-03-02T09:00:00.000Z", "cwd": "/tmp/p", "message": {"role": "user", "content": "fix the build"}},
)) + "\n"


@pytest.mark.parametrize("harness, other, body", [("claude-code", "codex", CODEX), ("codex", "claude-code", CLAUDE)])
def test_the_other_harness_transcript_exits_2_naming_it(mem, tmp_path, harness, other, body):
    home, f = str(tmp_path / "s"), tmp_path / "session.jsonl"
    f.write_text(body)
    r = mem("--home", home, "import", harness, str(f), exit_code=2)
    assert f"nothing given is a {harness} transcript" in r.stderr, r.stderr
    assert f"it is a {other} transcript" in r.stderr and f"mem import {other} FILE" in r.stderr, r.stderr
    # and the command it names imports it
    out = json.loads(mem("--home", home, "import", other, str(f), "--json").stdout)
    assert out["turns_added"] >= 1, out


def test_a_file_of_neither_harness_gets_no_such_hint(mem, tmp_path):
    home, f = str(tmp_path / "s"), tmp_path / "x.jsonl"
    f.write_text('{"x":1}\n')
    r = mem("--home", home, "import", "claude-code", str(f), exit_code=2)
    assert "it is a codex" not in r.stderr and "mem import codex" not in r.stderr, r.stderr
