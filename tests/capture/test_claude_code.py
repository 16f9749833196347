"""Tests for objstore.capture.claude_code (Claude Code transcript parsing, agent-formats §2).

Real files only: fixtures are written to tmp_path, and the real transcripts under
../shared/data/transcripts are used where present (skipped cleanly otherwise).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from objstore.capture.claude_code import (
    MAX_LINE_BYTES,
    TOOL_RESULT_MAX_CHARS,
    CapturedTurn,
    ParseStats,
    discover,
    parse_file,
)

# tests/capture/<this file> -> repo root is parents[2]; ../shared sits next to the repo.
SHARED = Path(__file__).resolve().parents[2].parent / "shared"
TRANSCRIPTS = SHARED / "data" / "transcripts"
PROJECTS = TRANSCRIPTS / "claude-code-log" / "projects"


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"shared data not present: {path}")
    return path


def _line(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n"


def _write(path: Path, *lines) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(l if isinstance(l, bytes) else _line(l) for l in lines))
    return path


def _parse(path: Path) -> tuple[list[CapturedTurn], ParseStats]:
    stats = ParseStats()
    return list(parse_file(path, stats)), stats


def user(uuid, content, sid="S1", **kw):
    rec = {"type": "user", "uuid": uuid, "sessionId": sid, "cwd": "/home/u/proj",
           "timestamp": "2025-06-14T11:00:00.250Z", "message": {"role": "user", "content": content}}
    rec.update(kw)
    return rec


def asst(uuid, msg_id, blocks, sid="S1", ts="2025-06-14T11:00:01Z", **kw):
    rec = {"type": "assistant", "uuid": uuid, "sessionId": sid, "cwd": "/home/u/proj",
           "timestamp": ts, "requestId": "req_1",
           "message": {"id": msg_id, "role": "assistant", "content": blocks}}
    rec.update(kw)
    return rec


def tool_result(tool_id, content, **kw):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **kw}


# --------------------------------------------------------------------------- bad lines

def test_bad_lines_are_skipped_and_counted(tmp_path):
    """A line that is not a JSON object is skipped and counted; one bad
    character (invalid UTF-8, NUL, lone surrogate) costs only that character,
    replaced by U+FFFD (issue 21 item 11: the hook path does the same)."""
    p = _write(
        tmp_path / "S1.jsonl",
        user("u1", "first valid"),
        b"this is not json\n",
        b"[1, 2, 3]\n",
        b"42\n",
        b'{"type": "user", "uuid": "u-trunc", "message": {"content": "trunc\n',
        b'{"type": "user", "uuid": "u-nul", "message": {"content": "a\x00b"}}\n',
        b'{"type": "user", "uuid": "u-sur", "message": {"content": "half \\ud83d emoji"}}\n',
        b'{"type": "user", "uuid": "u-ff", "message": {"content": "bad \xff byte"}}\n',
        b"\n",
        b"   \t\r\n",
        asst("a1", "m1", [{"type": "text", "text": "second valid"}]),
    )
    turns, stats = _parse(p)
    assert [t.text for t in turns] == ["first valid", "a\ufffdb", "half \ufffd emoji", "bad \ufffd byte",
                                       "second valid"]
    assert stats.files == 1
    assert stats.lines == 11
    assert stats.lines_skipped == 6
    assert stats.records_ignored == 0


def test_surrogate_anywhere_in_value_is_replaced_and_pairs_are_fine(tmp_path):
    p = _write(
        tmp_path / "S1.jsonl",
        # lone surrogate in a field we never read, and in a key: replaced, the line is kept
        b'{"type": "user", "uuid": "x1", "junk": {"deep": ["\\udc00"]}, "message": {"content": "no"}}\n',
        b'{"type": "user", "uuid": "x2", "\\ud800key": 1, "message": {"content": "no"}}\n',
        b'{"type": "user", "uuid": "x3", "message": {"content": "nul \\u0000 escape"}}\n',
        # a proper pair decodes to one code point; an escaped backslash is literal text
        b'{"type": "user", "uuid": "ok1", "message": {"content": "pair \\ud83d\\ude00"}}\n',
        b'{"type": "user", "uuid": "ok2", "message": {"content": "literal \\\\ud83d"}}\n',
    )
    turns, stats = _parse(p)
    assert [t.text for t in turns] == ["no", "no", "nul \ufffd escape", "pair \U0001F600", "literal \\ud83d"]
    assert stats.lines_skipped == 0
    for t in turns:
        t.text.encode("utf-8")  # never raises


@pytest.mark.parametrize("fast", [False, True])
def test_pathological_json_and_line_endings(tmp_path, fast):
    """The same turns and counts with the standard library's decoder and with
    msgspec's (q20: the integer of 10,000 digits was a skipped line with the
    one and an ignored record with the other, so this test failed after a test
    that had switched msgspec on for the process)."""
    from objstore.capture import transcript
    if fast:
        pytest.importorskip("msgspec")
    p = _write(
        tmp_path / "S1.jsonl",
        b"\xef\xbb\xbf" + _line(user("u0", "after BOM")),
        b"[" * 100_000 + b"]" * 100_000 + b"\n",          # RecursionError inside json
        b'{"type": "user", "uuid": "big", "n": ' + b"9" * 10_000 + b"}\n",  # int digit limit
        _line(user("u1", "crlf line")).rstrip(b"\n") + b"\r\n",
        json.dumps(user("u2", "no trailing newline")).encode(),
    )
    was = transcript._fast_decode is not None
    try:
        assert transcript.enable_fast_json(fast) is fast
        turns, stats = _parse(p)
    finally:
        transcript.enable_fast_json(was)
    assert [t.text for t in turns] == ["after BOM", "crlf line", "no trailing newline"]
    assert (stats.lines_skipped, stats.records_ignored) == (1, 1)   # the nesting; the big int's record has no message


def test_line_longer_than_limit_is_skipped_without_losing_neighbours(tmp_path):
    p = tmp_path / "S1.jsonl"
    with open(p, "wb") as f:
        f.write(_line(user("u1", "before")))
        f.write(b'{"type": "user", "uuid": "huge", "message": {"content": "')
        chunk = b"x" * (1 << 20)
        for _ in range(MAX_LINE_BYTES // len(chunk) + 1):
            f.write(chunk)
        f.write(b'"}}\n')
        f.write(_line(user("u2", "after")))
    turns, stats = _parse(p)
    assert [t.text for t in turns] == ["before", "after"]
    assert (stats.lines, stats.lines_skipped) == (3, 1)


def test_wrong_types_never_crash_and_count_as_absent(tmp_path):
    p = _write(
        tmp_path / "S1.jsonl",
        {"type": "user", "uuid": 5, "sessionId": {"x": 1}, "cwd": ["/a"], "timestamp": 1700000000,
         "message": {"content": "odd types"}},
        {"type": "user", "uuid": "u2", "message": "error"},
        {"type": "user", "uuid": "u3", "message": {"content": 12}},
        {"type": "user", "uuid": "u4", "message": {"content": [None, 3, {"type": "text", "text": 7},
                                                                "bare string block"]}},
        {"type": "assistant", "uuid": "a1", "message": {"id": 9, "content": [
            {"type": "text", "text": ["x"]}, {"type": "tool_use", "name": None, "input": {"k": 1}},
            "junk"]}},
        {"type": "assistant", "uuid": "a2", "message": {"id": "m2", "content": "plain string reply"}},
        {"type": ["user"], "uuid": "t"},
        {"no": "type"},
        {"type": "user", "uuid": "u5", "timestamp": "not a date", "message": {"content": [
            {"type": "tool_result", "content": {"unexpected": "dict"}}]}},
    )
    turns, stats = _parse(p)
    texts = [t.text for t in turns]
    assert texts == ["odd types", "bare string block", '[tool_use ] {"k": 1}', "plain string reply"]
    first = turns[0]
    assert first.session == "S1"  # file stem: sessionId had the wrong type
    assert first.source.startswith("cc:h:")  # uuid had the wrong type: hash of the raw line
    assert (first.timestamp, first.cwd, first.project) == (0, "", "")
    assert turns[2].source == "cc:a1"  # message.id had the wrong type
    assert stats.records_ignored == 5
    for t in turns:
        assert all(isinstance(getattr(t, f), str) for f in ("session", "source", "role", "text"))
        assert isinstance(t.timestamp, int)


# --------------------------------------------------------------------------- assistant grouping

def _split_fixture(path: Path) -> Path:
    return _write(
        path,
        user("u1", "please list files"),
        asst("a1", "msg_A", [{"type": "thinking", "thinking": "plan it", "signature": "sig"}],
             ts="2025-06-14T11:00:01.500Z"),
        {"type": "progress", "uuid": "p1", "data": {"type": "hook_progress"}},
        asst("a2", "msg_A", [{"type": "text", "text": "Listing now."}], ts="2025-06-14T11:00:02Z"),
        {"type": "attachment", "uuid": "at1", "attachment": {"type": "hook_success", "content": "x"}},
        asst("a3", "msg_A", [{"type": "redacted_thinking", "data": "zz"},
                             {"type": "tool_use", "id": "t1", "name": "Bash",
                              "input": {"command": "ls", "description": "List"}}]),
        user("u2", [tool_result("t1", "a.txt\nb.txt")]),
        asst("a4", "msg_A", [{"type": "tool_use", "id": "t2", "name": "Read",
                              "input": {"file_path": "/a.txt"}}]),
        asst("a5", "msg_A", [{"type": "text", "text": "and more"}]),
        asst("a6", "msg_B", [{"type": "text", "text": "Done."}]),
        asst("a7", "msg_E", [{"type": "text", "text": "API Error: overloaded"}], isApiErrorMessage=True),
        asst("a8", "msg_R", [{"type": "redacted_thinking", "data": "only redacted"}]),
    )


def test_split_assistant_records_form_one_turn(tmp_path):
    turns, stats = _parse(_split_fixture(tmp_path / "S1.jsonl"))
    assert [(t.role, t.source) for t in turns] == [
        ("user", "cc:u1"),
        ("assistant", "cc:msg:msg_A"),
        ("tool", "cc:u2:tool:0"),
        ("assistant", "cc:msg:msg_A:a4"),
        ("assistant", "cc:msg:msg_B"),
    ]
    first = turns[1]
    assert first.text == ('[thinking] plan it\nListing now.\n'
                          '[tool_use Bash] {"command": "ls", "description": "List"}')
    assert first.timestamp == 1749898801500  # of the first record of the group
    assert (first.cwd, first.project, first.session) == ("/home/u/proj", "proj", "S1")
    assert turns[3].text == '[tool_use Read] {"file_path": "/a.txt"}\nand more'
    assert "zz" not in first.text and "only redacted" not in "".join(t.text for t in turns)
    assert not any("API Error" in t.text for t in turns)
    # progress, attachment, api error, redacted-only record
    assert stats.records_ignored == 4


def test_reparse_is_identical(tmp_path):
    p = _split_fixture(tmp_path / "S1.jsonl")
    a, sa = _parse(p)
    b, sb = _parse(p)
    assert a == b and sa == sb
    assert len({t.source for t in a}) == len(a)


def test_message_id_groups_are_per_session(tmp_path):
    # inline sidechain record with the same message id must not merge into the main turn
    p = _write(
        tmp_path / "S1.jsonl",
        asst("a1", "msg_X", [{"type": "text", "text": "main"}]),
        asst("a2", "msg_X", [{"type": "text", "text": "side"}], isSidechain=True),
    )
    turns, _ = _parse(p)
    assert [(t.session, t.text) for t in turns] == [("S1", "main"), ("S1.sidechain", "side")]


# --------------------------------------------------------------------------- user / tool content

def test_user_text_and_tool_result_in_one_record(tmp_path):
    p = _write(
        tmp_path / "S1.jsonl",
        user("u1", [tool_result("t1", [{"type": "text", "text": "out1"},
                                       {"type": "image", "source": {"data": "AAAA"}},
                                       {"type": "text", "text": "out2"}]),
                    {"type": "text", "text": "hello"},
                    {"type": "image", "source": {"data": "BBBB"}},
                    {"type": "text", "text": "world"},
                    tool_result("t2", "boom", is_error=True),
                    tool_result("t3", "")]),
    )
    turns, _ = _parse(p)
    assert [(t.role, t.source, t.text) for t in turns] == [
        ("user", "cc:u1", "hello\nworld"),
        ("tool", "cc:u1:tool:0", "out1\n[image]\nout2"),
        ("tool", "cc:u1:tool:1", "[error] boom"),
    ]
    assert all(t.timestamp == 1749898800250 for t in turns)


def test_long_tool_result_and_tool_input_are_cut(tmp_path):
    n = TOOL_RESULT_MAX_CHARS
    p = _write(
        tmp_path / "S1.jsonl",
        asst("a1", "m1", [{"type": "tool_use", "id": "t1", "name": "Write",
                           "input": {"content": "y" * (2 * n)}}]),
        user("u1", [tool_result("t1", "x" * (n + 1234))]),
        user("u2", [tool_result("t2", "z" * n)]),
    )
    turns, _ = _parse(p)
    use, cut, exact = turns
    assert cut.text == "x" * n + "…[cut 1234 chars]"
    assert exact.text == "z" * n
    body = use.text[len("[tool_use Write] "):]
    assert use.text.startswith("[tool_use Write] ") and body.endswith(" chars]")
    assert body[:n] == ('{"content": "' + "y" * (2 * n))[:n]
    assert body[n:] == f"…[cut {2 * n + 15 - n} chars]"


def test_attachments_meta_and_mem_context_never_become_turns(tmp_path):
    secret = "MEMORY-SECRET-42"
    p = _write(
        tmp_path / "S1.jsonl",
        {"type": "attachment", "uuid": "at1", "sessionId": "S1",
         "attachment": {"type": "hook_additional_context", "content": [secret]}},
        {"type": "attachment", "uuid": "at2", "sessionId": "S1",
         "attachment": {"type": "hook_success", "stdout": json.dumps({"additionalContext": secret})}},
        user("m1", f"<system-reminder>{secret}</system-reminder>", isMeta=True),
        user("c1", f"This session is being continued... {secret}", isCompactSummary=True,
             isVisibleInTranscriptOnly=True),
        {"type": "system", "subtype": "compact_boundary", "content": secret, "uuid": "sy"},
        {"type": "summary", "summary": secret, "leafUuid": "x"},
        {"type": "queue-operation", "operation": "enqueue", "content": secret},
        {"type": "file-history-snapshot", "messageId": "x", "snapshot": {}},
        {"type": "last-prompt", "lastPrompt": secret}, {"type": "ai-title", "aiTitle": secret},
        {"type": "permission-mode", "permissionMode": "plan"}, {"type": "future-kind", "x": secret},
        user("u1", f'<mem-context source="mem" n=3>\n{secret}\nline2\n</mem-context>\nreal question'),
        user("u2", [{"type": "text", "text": f"<MEM-CONTEXT>{secret}</mem-context >"}]),
        user("u3", f'keep this <mem-context kind="prompt" note="stored memory: data, not instructions">{secret} '
                   '(unclosed, runs to end'),
        user("u4", [tool_result("t1", f"ok <mem-context>{secret}</mem-context> done")]),
        asst("a1", "m1", [{"type": "text", "text": f"echo <mem-context>{secret}</mem-context>"}]),
    )
    turns, stats = _parse(p)
    assert not any(secret in t.text for t in turns)
    assert [(t.source, t.text) for t in turns] == [
        ("cc:u1", "real question"),
        ("cc:u3", "keep this"),
        ("cc:u4:tool:0", "ok  done"),
        ("cc:msg:m1", "echo"),
    ]
    assert stats.records_ignored == 13  # 12 non-turn records + u2 (nothing left after stripping)


# --------------------------------------------------------------------------- subagent layouts

def test_subagent_layouts_and_discover(tmp_path):
    proj = tmp_path / "projects" / "-home-u-proj"
    # layout <=1.0.x: inline sidechains in the main file
    _write(proj / "S1.jsonl",
           user("u1", "main prompt", sid="S1"),
           user("s1", "sidechain prompt", sid="S1", isSidechain=True),
           asst("s2", "ms", [{"type": "text", "text": "agent says"}], sid="S1",
                isSidechain=True, agentId="abcd"))
    # layout 2.0.x: agent-<id>.jsonl next to sessions, sessionId = parent
    _write(proj / "S2.jsonl", user("u2", "second main", sid="S2"))
    _write(proj / "agent-3430b97e.jsonl",
           asst("w1", "mw", [{"type": "text", "text": "warmup"}], sid="S2", isSidechain=True,
                agentId="3430b97e"))
    # layout >=2.1.2: <session>/subagents/agent-<id>.jsonl, records lacking sessionId
    sub = proj / "S3" / "subagents"
    _write(proj / "S3.jsonl", user("u3", "third main", sid="S3"))
    rec = user("n1", "nested task", isSidechain=True)
    del rec["sessionId"]
    _write(sub / "agent-a1.jsonl", rec)
    (sub / "agent-a1.meta.json").write_text('{"agentType": "general-purpose"}')
    wf = sub / "workflows" / "wf_01"
    rec2 = asst("n2", "mn", [{"type": "text", "text": "workflow agent"}], isSidechain=True,
                agentId="wfa")
    del rec2["sessionId"]
    _write(wf / "agent-wfa.jsonl", rec2)
    _write(wf / "journal.jsonl", {"type": "journal", "x": 1})
    (proj / "S3" / "tool-results").mkdir()
    (proj / "S3" / "tool-results" / "big.txt").write_text("spilled output")

    found = list(discover([tmp_path / "projects"]))
    rel = [p.relative_to(proj).as_posix() for p in found]
    assert rel == ["S1.jsonl", "S2.jsonl", "S3.jsonl", "S3/subagents/agent-a1.jsonl",
                   "S3/subagents/workflows/wf_01/agent-wfa.jsonl", "agent-3430b97e.jsonl"]
    # deterministic, and overlapping inputs are not yielded twice
    assert list(discover([tmp_path / "projects", proj, proj / "S1.jsonl"])) == found

    stats = ParseStats()
    got = [(t.session, t.text) for p in found for t in parse_file(p, stats)]
    assert got == [
        ("S1", "main prompt"), ("S1.sidechain", "sidechain prompt"), ("S1.agent-abcd", "agent says"),
        ("S2", "second main"), ("S3", "third main"),
        ("S3.agent-a1", "nested task"), ("S3.agent-wfa", "workflow agent"),
        ("S2.agent-3430b97e", "warmup"),
    ]
    assert stats.files == 6


def test_discover_single_file_and_missing_path(tmp_path):
    f = _write(tmp_path / "one.jsonl", user("u", "hi"))
    assert list(discover([str(f)])) == [f]
    missing = tmp_path / "nope"
    with pytest.raises(FileNotFoundError):
        discover([f, missing])  # raised eagerly, before iteration
    assert list(discover([])) == []


def test_layout2_without_session_id_and_stem_fallback(tmp_path):
    rec = asst("x1", "m", [{"type": "text", "text": "orphan"}])
    del rec["sessionId"]
    _write(tmp_path / "agent-ff00.jsonl", rec)
    _write(tmp_path / "S9.jsonl", rec)
    turns = [t for p in discover([tmp_path]) for t in parse_file(p, ParseStats())]
    assert [t.session for t in turns] == ["S9", "agent-ff00"]


# --------------------------------------------------------------------------- property

_json_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
_json = st.recursive(_json_leaf, lambda c: st.lists(c, max_size=4)
                     | st.dictionaries(st.sampled_from(
                         ["type", "message", "content", "id", "uuid", "text", "sessionId",
                          "isMeta", "isSidechain", "agentId", "timestamp", "cwd", "input",
                          "name", "thinking", "tool_use_id", "is_error"]), c, max_size=5),
                     max_leaves=25)
_record = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "attachment", "system"]), "message": _json},
    optional={"uuid": _json, "sessionId": _json, "timestamp": _json, "isSidechain": _json,
              "cwd": _json, "isMeta": _json})


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(recs=st.lists(_record, max_size=8), junk=st.lists(st.binary(max_size=40), max_size=4))
def test_fuzz_never_raises(tmp_path, recs, junk):
    p = tmp_path / "fuzz.jsonl"
    p.write_bytes(b"".join(_line(r) for r in recs) + b"\n".join(junk))
    turns, stats = _parse(p)
    assert stats.lines_skipped + stats.records_ignored <= stats.lines
    for t in turns:
        assert t.text.strip() and t.role in ("user", "assistant", "tool")
        assert t.source.startswith("cc:") and isinstance(t.timestamp, int)
        t.text.encode("utf-8")


# --------------------------------------------------------------------------- real transcripts

def test_every_shared_transcript_parses():
    root = _need(TRANSCRIPTS)
    files = sorted(root.rglob("*.jsonl"))
    assert files
    for f in files:
        a, sa = _parse(f)
        b, _ = _parse(f)
        assert a == b, f  # deterministic
        assert len({(t.session, t.source) for t in a}) == len(a), f  # sources unique per file
        assert sa.lines_skipped + sa.records_ignored <= sa.lines
        for t in a:
            assert t.text.strip() and t.source.startswith("cc:")


def test_shared_projects_tree():
    root = _need(PROJECTS)
    expected = {p for p in root.rglob("*.jsonl") if p.name != "journal.jsonl"}
    found = list(discover([root]))
    assert len(found) == len(set(found)) and set(found) == expected
    assert any("subagents" in p.parts for p in found)          # layout >= 2.1.2
    assert any(p.parent.name.startswith("-") and p.name.startswith("agent-") for p in found)  # 2.0.x
    stats = ParseStats()
    turns = [t for p in found for t in parse_file(p, stats)]
    sessions = {t.session for t in turns}
    assert any(".agent-" in s for s in sessions)
    assert "7acd37a8-2745-4b58-a8a9-46164b22ad9e.agent-3430b97e" in sessions            # 2.0.x
    assert "29ccd257-68b1-427f-ae5f-6524b7cb6f20.agent-a2271d1" in sessions             # 2.1.x
    clmail = [t for t in turns if t.session == "03eb5929-52b3-4b13-ada3-b93ae35806b8"
              and "clmail" in t.text.lower()]
    assert clmail
    # the worktrees session echoes a SessionStart hook ("clmail ... session registered")
    # only through attachment records: it must not come back as a turn
    wt = [t for t in turns if t.session.startswith("ef958aa1-0e93-49f0-bb71-150f63befcd1")]
    assert wt and not any("session registered" in t.text for t in wt)
    assert stats.files == len(found)


def test_shared_malformed_and_edge_cases():
    mal = _need(TRANSCRIPTS / "seamless-claude" / "malformed.jsonl")
    turns, stats = _parse(mal)
    assert [t.text for t in turns] == ["valid line", "also valid"]
    assert (stats.lines, stats.lines_skipped) == (4, 2)
    edge = _need(TRANSCRIPTS / "claude-code-log" / "synthetic" / "edge_cases.jsonl")
    turns, stats = _parse(edge)
    assert stats.lines_skipped == 3  # "massive error", 42, [1]
    assert any("café" in t.text for t in turns)


def test_shared_compaction_summary_is_skipped():
    f = _need(TRANSCRIPTS / "slopometry" / "transcript.jsonl")
    turns, stats = _parse(f)
    assert turns and stats.records_ignored > 0
    assert not any("This session is being continued" in t.text for t in turns)
    assert all(t.timestamp > 1_600_000_000_000 for t in turns)
    assert {t.project for t in turns} == {"slopometry"}


def test_shared_codex_file_does_not_crash():
    files = sorted(_need(TRANSCRIPTS / "agent-sessions").glob("*.jsonl"))
    if not files:
        pytest.skip("no codex sample")
    for f in files:
        _parse(f)  # not Claude Code format: whatever it yields, it must not raise
