"""Import of real and bundled transcripts, sessions, search through the CLI."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from tests.conftest import shared_path

SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects"))


def test_bundled_sample_import_is_idempotent(invoke):
    r = invoke("import", "claude-code", str(SAMPLE), "--json").json
    assert r["sessions"] == 3 and r["turns_added"] > 10 and r["lines_skipped"] == 1
    again = invoke("import", "claude-code", str(SAMPLE), "--json").json
    assert again["turns_added"] == 0
    sessions = invoke("sessions", "--json").json
    assert {s["id"] for s in sessions} == {
        "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11", "a3e1d7b0-1c2f-4b8a-9e55-7c6d0f9b2e33",
        "a3e1d7b0-1c2f-4b8a-9e55-7c6d0f9b2e33.agent-a7c41e9d2b0f3e6a1"}
    assert sum(s["turns"] for s in sessions) == r["turns_added"]
    shown = invoke("show", "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11", "--json").json
    seqs = [t["seq"] for t in shown["turns"]]
    assert seqs == list(range(len(seqs)))
    text = "\n".join(t["text"] for t in shown["turns"])
    assert "never capture this" not in text  # our own injection, echoed as an attachment
    assert "[tool_use Read]" in text and "conftest.py" in text
    hits = invoke("search", "flaky", "fixture", "--json").json
    assert hits and hits[0]["session"] == "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11"
    assert invoke("fsck").stdout.startswith("ok:")


def test_search_query_syntax_is_plain_text(invoke):
    invoke("remember", "project/p/notes", 'Fix auth.py: don\'t re-index (see "café" and 日本語のテキスト) a AND b NOT c *')
    for q in ['"unbalanced', "fn(x)", "std::vector", "http://a.b/c?d=e", "AND", "NOT", "OR", "*", "a:b",
              "re-index", "auth.py", "don't", "café", "CAFE", "日本語", "(", "-", "+x"]:
        if q in ("*", "(", "-"):   # punctuation alone: no searchable word, refused as recall refuses it
            assert "no searchable word" in invoke("search", q, "--json", exit_code=2).stderr
            continue
        r = invoke("search", q, "--json")
        hits = r.json
        if q in ("auth.py", "re-index", "don't", "café", "CAFE", "日本語", "AND", "NOT"):
            assert hits and hits[0]["key"] == "project/p/notes", q
    assert invoke("search", "* zzzz", "--json").json == []
    assert invoke("search", "nothing-like-this-zzz", "--exit-code", exit_code=1).stdout == ""


def test_search_resolves_to_current_version(invoke):
    invoke("remember", "project/p/db", "mysql eight")
    invoke("remember", "project/p/db", "postgres sixteen")
    old = invoke("search", "mysql", "--json").json  # the old value matches; the current one is shown
    assert [h["snippet"] for h in old] == ["postgres sixteen"] and old[0]["resolved_from"]
    hits = invoke("search", "postgres", "--json").json
    assert [h["snippet"] for h in hits] == ["postgres sixteen"]


def test_import_real_claude_code_projects(invoke):
    projects = shared_path("data", "transcripts", "claude-code-log", "projects")
    first = invoke("import", "claude-code", str(projects), "--json").json
    files = [p for p in projects.rglob("*.jsonl")]
    assert first["files"] == len(files)
    assert first["turns_added"] > 500
    sessions = invoke("sessions", "--json").json
    ids = {s["id"] for s in sessions}
    assert any(".agent-" in s for s in ids)
    main_files = {p.stem for p in projects.glob("*/*.jsonl") if not p.name.startswith("agent-") and p.stat().st_size}
    assert {m for m in main_files if any(i.startswith(m) for i in ids)} >= main_files - {"4e27c414-a885-46a0-b5c8-d58e1417377d"}
    again = invoke("import", "claude-code", str(projects), "--json").json
    assert again["turns_added"] == 0
    hits = invoke("search", "clmail project", "--json").json
    assert any(h["kind"] == "turn" and h["session"].startswith("03eb5929") for h in hits[:3])
    assert invoke("fsck").stdout.startswith("ok:")


def test_import_every_shared_transcript_file(invoke):
    root = shared_path("data", "transcripts")
    codex = 0
    for f in sorted(root.rglob("*.jsonl")):
        r = invoke("import", "claude-code", str(f), "--json", exit_code=None)
        if r.exit_code == 2 and "it is a codex transcript" in r.stdout + r.stderr:   # test16 F13: said, not 0 turns
            codex += 1
            r = invoke("import", "codex", str(f), "--json")
        assert r.exit_code == 0, f
        assert set(json.loads(r.stdout)) >= {"sessions", "turns_added", "lines_skipped"}
    assert codex >= 1, codex        # the shared set holds a Codex rollout among Claude Code transcripts
    assert invoke("fsck").stdout.startswith("ok:")


def test_bad_lines_are_skipped_not_fatal(invoke, tmp_path):
    good = {"type": "user", "uuid": "u1", "sessionId": "s-bad", "cwd": "/w/p", "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "valid words here"}}
    lines = [b"not json", b"[1,2]", b'{"type":"user","message":{"content":"trunc', b'{"a":"\x00"}',
             b'{"type":"user","uuid":"u2","sessionId":"s-bad","message":{"content":"\\ud83d"}}',
             b"\xff\xfe{}", json.dumps(good).encode()]
    f = tmp_path / "s-bad.jsonl"
    f.write_bytes(b"\n".join(lines) + b"\n")
    r = invoke("import", "claude-code", str(f), "--json").json
    # a lone surrogate costs the character, not the line (issue 21 item 11); {"a": NUL} is a record, not a turn
    assert r["turns_added"] == 2 and r["lines_skipped"] == 4
    invoke("import", "claude-code", str(tmp_path / "missing.jsonl"), exit_code=4)  # a missing file is not found (docs/exit-codes.md)
