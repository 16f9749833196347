"""Tests for objstore.capture.codex (Codex CLI rollout parsing, agent-formats §3.1).

Real files only: the fixture tree under tests/data/codex (current format with a subagent
thread and a compacted record, plus a legacy-format rollout), files written to tmp_path,
and the real sanitized 0.146 sample under ../shared (skipped cleanly where absent).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from objstore.capture import claude_code, transcript
from objstore.capture.codex import (
    MAX_LINE_BYTES,
    TOOL_RESULT_MAX_CHARS,
    CapturedTurn,
    ParseStats,
    discover,
    parse_file,
)

# tests/capture/<this file> -> repo root is parents[2]; ../shared sits next to the repo.
SHARED = Path(__file__).resolve().parents[2].parent / "shared"
SAMPLE = SHARED / "data" / "transcripts" / "agent-sessions" / "codex-0.146-sanitized.jsonl"
DATA = Path(__file__).resolve().parents[1] / "data" / "codex"
DAY = DATA / "sessions" / "2026" / "03" / "02"
A = "0199a1b2-5c3d-7e10-8f00-00000000000a"
B = "0199a1b2-5c3d-7e10-8f00-00000000000b"
L = "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
MAIN = DAY / f"rollout-2026-03-02T10-00-00-{A}.jsonl"
SUB = DAY / f"rollout-2026-03-02T10-03-01-{B}.jsonl"
LEGACY = DATA / "legacy" / f"rollout-2025-05-07T17-24-21-{L}.jsonl"


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


def env(kind, payload, ts="2026-03-02T10:00:00Z"):
    return {"timestamp": ts, "type": kind, "payload": payload}


def meta(tid="T1", **kw):
    return env("session_meta", {"id": tid, "cwd": "/home/u/proj", "source": "cli", **kw})


def umsg(text):
    return env("response_item", {"type": "message", "role": "user",
                                 "content": [{"type": "input_text", "text": text}]})


def amsg(text):
    return env("response_item", {"type": "message", "role": "assistant",
                                 "content": [{"type": "output_text", "text": text}]})


def uevent(text):
    return env("event_msg", {"type": "user_message", "message": text})


def aevent(text):
    return env("event_msg", {"type": "agent_message", "message": text})


def call(call_id, name="exec_command", args='{"cmd":"ls"}'):
    return env("response_item", {"type": "function_call", "name": name, "arguments": args,
                                 "call_id": call_id})


def output(call_id, out):
    return env("response_item", {"type": "function_call_output", "call_id": call_id, "output": out})


def rollout(tmp_path, name="rollout-2026-03-02T10-00-00-x.jsonl"):
    return tmp_path / "sessions" / "2026" / "03" / "02" / name


# --------------------------------------------------------------------------- real sample

def test_real_sample_parses_with_plausible_turns():
    turns, stats = _parse(_need(SAMPLE))
    for t in turns[:6]:  # visible with -s
        print(f"{t.role:9} {t.source:32} {t.text[:70]!r}")
    assert (stats.files, stats.lines, stats.lines_skipped) == (1, 118, 0)
    assert stats.records_ignored < stats.lines
    # one thread per file: the first session_meta names it, later ones (shape samples
    # of subagent/forked metas) do not split the file
    assert {t.session for t in turns} == {"019fc8be-3658-7ca3-9e29-000000000000"}
    first = turns[:6]
    assert [t.role for t in first] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert first[0].text == "List the files"
    assert first[0].source.startswith("cx:u:")
    assert first[1].text.splitlines() == [
        "[thinking] [trimmed for fixture]",
        '[tool_use shell] {"command":["ls"]}',
        '[tool_use shell] {"command":["ls"]}',
    ]
    assert first[1].source == "cx:rs:rs-1"
    assert (first[2].text, first[2].source) == ("a.txt\n", "cx:out:call-2")
    assert first[3].text.startswith('[tool_use tool_search] {"query": "example"}\n[tool_use web_search] ')
    assert (first[4].text, first[4].source) == ("a.txt\nb.txt\n", "cx:out:call-1")
    assert first[5].text == "Found 2 files."
    assert first[0].cwd == "/tmp/repo" and first[0].project == "repo"
    assert first[0].timestamp == 1785754136000      # 2026-08-03T10:48:56Z
    # the prompt is logged twice (event_msg then response_item): captured once;
    # the answer likewise (response_item then event_msg agent_message)
    assert sum(t.text == "List the files" for t in turns) == 1
    assert sum(t.text == "Found 2 files." for t in turns) == 1
    # the developer message, world_state, turn_context, compacted (with its replacement
    # history) and the many event_msg kinds give no turn; encrypted reasoning is dropped
    assert not any("encrypted" in t.text for t in turns)
    assert any(t.text.startswith("[agent_message from [trimmed for fixture]]") for t in turns)
    assert any(t.text == "[trimmed for fixture]\n[trimmed for fixture]\n[image]" for t in turns)
    assert len({t.source for t in turns}) == len(turns)
    for t in turns:
        assert t.text.strip() and t.source.startswith("cx:") and t.role in ("user", "assistant", "tool")
        assert t.timestamp > 0


def test_real_sample_parses_identically_twice():
    a, sa = _parse(_need(SAMPLE))
    b, sb = _parse(SAMPLE)
    assert a == b and sa == sb


# --------------------------------------------------------------------------- fixture tree

def test_discover_tree_single_file_and_missing_path(tmp_path):
    found = list(discover([DATA]))
    assert found == sorted([LEGACY, MAIN, SUB], key=lambda p: p.as_posix())   # not history.jsonl
    again = list(discover([DAY / ".." / "02", MAIN]))                          # same files, other spelling
    assert [p.name for p in again] == [MAIN.name, SUB.name]                     # duplicates dropped
    other = _write(tmp_path / "exported.jsonl", meta())
    assert list(discover([other])) == [other]                                   # named file, any name
    with pytest.raises(FileNotFoundError):
        discover([DATA, tmp_path / "nope"])


def test_fixture_main_thread():
    turns, stats = _parse(MAIN)
    assert {t.session for t in turns} == {A}
    assert [(t.role, t.text.splitlines()[0]) for t in turns] == [
        ("user", "Why does test_parse fail on empty input?"),
        ("assistant", "[thinking] **Inspecting the parser**"),
        ("tool", "Exit code: 0"),
        ("assistant", "[tool_use apply_patch] *** Begin Patch"),
        ("tool", "Success. Updated the following files:"),
        ("assistant", "parse() indexed the split result without checking for an empty string; "
                      "fixed in src/widget/parse.py."),
        ("user", "Now run the test suite"),
        ("assistant", '[tool_use local_shell] {"command": ["pytest", "-q"], "timeout_ms": 120000, "type": "exec"}'),
        ("tool", "[error] F..........."),
        ("assistant", "One test still fails: test_unicode."),
        ("user", "Spawn a helper to check test_unicode"),
        ("assistant", '[tool_use spawn_agent] {"message": "Find why test_unicode fails", "agent_type": "explorer"}'),
        ("tool", '{"agent_id": "0199a1b2-5c3d-7e10-8f00-00000000000b", "nickname": "Darwin"}'),
        ("user", "[agent_message from /root/darwin] test_unicode feeds input with a leading BOM; parse() keeps it."),
        ("assistant", "The helper found it: parse() must strip a leading BOM."),
    ]
    assert turns[1].text == ("[thinking] **Inspecting the parser**\n\nI should read parse.py first.\n"
                             '[tool_use exec_command] {"cmd": "sed -n 1,40p src/widget/parse.py", '
                             '"workdir": "/home/dev/projects/widget"}')
    assert turns[4].text == "Success. Updated the following files:\nM src/widget/parse.py\n"   # JSON unwrapped
    assert turns[10].text == "Spawn a helper to check test_unicode"                             # <mem-context> gone
    joined = "\n".join(t.text for t in turns)
    for never in ("AGENTS.md", "<environment_context>", "permissions instructions", "Summary: fixed",
                  "mem-context", "user prefers", "gAAAA"):
        assert never not in joined
    assert [t.source for t in turns if t.role == "tool"] == \
        ["cx:out:call_x1", "cx:out:call_x2", "cx:out:call_x3", "cx:out:call_x4"]
    assert turns[3].source == "cx:call:call_x2" and turns[1].source == "cx:rs:rs_1"
    assert {t.cwd for t in turns} == {"/home/dev/projects/widget"} and {t.project for t in turns} == {"widget"}
    assert turns[0].timestamp == 1772445601300     # 2026-03-02T10:00:01.300Z, the response_item
    assert turns[-1].timestamp == 1772445811000
    assert stats.lines == 42 and stats.lines_skipped == 0
    assert stats.records_ignored == 42 - 16        # 16 records contributed to the 15 turns


def test_fixture_subagent_thread_and_tree():
    turns, _ = _parse(SUB)
    assert {t.session for t in turns} == {f"{A}.agent-{B}"}
    assert [t.role for t in turns] == ["user", "assistant", "tool", "assistant"]
    assert turns[0].text == "Find why test_unicode fails"
    assert turns[2].text == "E   AssertionError: assert '\ufeffa' == 'a'"
    stats = ParseStats()
    everything = [t for p in discover([DATA / "sessions"]) for t in parse_file(p, stats)]
    assert {t.session for t in everything} == {A, f"{A}.agent-{B}"}
    assert stats.files == 2


def test_fixture_legacy_format():
    turns, stats = _parse(LEGACY)
    assert {t.session for t in turns} == {L}
    assert [(t.role, t.text) for t in turns] == [
        ("user", "add a --verbose flag to the CLI"),
        ("assistant", '[thinking] Looking for the argparse setup\n'
                      '[tool_use shell] {"command": ["grep", "-rn", "argparse", "."]}'),
        ("tool", "./cli.py:3:import argparse\n"),
        ("assistant", '[tool_use shell] {"command": ["python", "cli.py", "--verbose"]}'),
        ("tool", "[exit 2] usage: cli.py [-h]\ncli.py: error: unrecognized arguments: --verbose\n"),
        ("assistant", "Added --verbose to the parser in cli.py."),
    ]
    # no per-record timestamps: every turn gets the header's; cwd from the context block
    assert {t.timestamp for t in turns} == {1746638661123}    # 2025-05-07T17:24:21.123Z
    assert {t.cwd for t in turns} == {"/home/dev/legacy-app"} and {t.project for t in turns} == {"legacy-app"}
    assert [t.source for t in turns] == ["cx:u:3a842dcd5cd46948b4f59553", "cx:rs:rs_1", "cx:out:call_L1",
                                        "cx:call:call_L2", "cx:out:call_L2", "cx:a:254ba66778f04a04a2ccaa73"]
    assert (stats.lines, stats.lines_skipped, stats.records_ignored) == (12, 0, 5)


def test_fixture_parses_identically_twice():
    for p in (MAIN, SUB, LEGACY):
        a, sa = _parse(p)
        b, sb = _parse(p)
        assert a == b and sa == sb
        assert len({t.source for t in a}) == len(a)


# --------------------------------------------------------------------------- dedupe and sources

def test_user_prompt_twins_are_captured_once_in_either_order(tmp_path):
    p = _write(rollout(tmp_path), meta(),
               uevent("event first"), umsg("event first"), amsg("ok 1"), aevent("ok 1"),
               umsg("item first"), uevent("item first"), aevent("ok 2"), amsg("ok 2"),
               uevent("event only"), call("c1"), output("c1", "out"),
               umsg("item only"), amsg("ok 3"),
               umsg("same"), uevent("same"), amsg("a"), umsg("same"), uevent("same"), amsg("b"))
    turns, stats = _parse(p)
    assert [(t.role, t.text) for t in turns] == [
        ("user", "event first"), ("assistant", "ok 1"), ("user", "item first"), ("assistant", "ok 2"),
        ("user", "event only"), ("assistant", '[tool_use exec_command] {"cmd":"ls"}'), ("tool", "out"),
        ("user", "item only"), ("assistant", "ok 3"),
        ("user", "same"), ("assistant", "a"), ("user", "same"), ("assistant", "b")]
    # a repeated prompt is two turns with distinct sources
    same = [t.source for t in turns if t.text == "same"]
    assert same[1] == same[0] + ":1"
    assert stats.records_ignored == 1 + 6   # session_meta + the six dropped twins


def test_event_and_item_give_the_same_source(tmp_path):
    """If a capture catches the event twin alone (file cut before the response_item),
    the later full file yields the same source, so the store does not duplicate it."""
    cut = _parse(_write(tmp_path / "a" / "rollout-x.jsonl", meta(), uevent("fix the bug")))[0]
    full = _parse(_write(tmp_path / "b" / "rollout-x.jsonl", meta(), uevent("fix the bug"),
                         umsg("fix the bug"), amsg("done")))[0]
    assert [t.text for t in cut] == ["fix the bug"]
    assert cut[0].source == full[0].source
    only_item = _parse(_write(tmp_path / "c" / "rollout-x.jsonl", meta(), umsg("fix the bug")))[0]
    assert only_item[0].source == cut[0].source


def test_context_and_developer_messages_are_not_turns(tmp_path):
    p = _write(rollout(tmp_path), meta(),
               env("response_item", {"type": "message", "role": "developer",
                                     "content": [{"type": "input_text", "text": "sandbox rules"}]}),
               umsg("<user_instructions>\nbe terse\n</user_instructions>"),
               umsg("<environment_context>\n  <cwd>/srv/other-proj</cwd>\n</environment_context>"),
               umsg("# AGENTS.md instructions for /srv\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>"),
               umsg("<skill>\n<name>pdf</name>\n</skill>"),
               umsg("<turn_aborted>\nThe user interrupted.\n</turn_aborted>"),
               umsg("<user_shell_command>\nls\n</user_shell_command>"),
               uevent("<environment_context>old versions logged it as an event too</environment_context>"),
               env("event_msg", {"type": "user_message", "message": "be terse", "kind": "user_instructions"}),
               env("response_item", {"type": "message", "role": "user", "content": [
                   {"type": "input_text", "text": "<image name=[Image #1]>"},
                   {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
                   {"type": "input_text", "text": "</image>"},
                   {"type": "input_text", "text": "what is in [Image #1]? <b>bold</b>"}]}),
               amsg("a cat"))
    turns, stats = _parse(p)
    assert [(t.role, t.text) for t in turns] == [("user", "what is in [Image #1]? <b>bold</b>"),
                                                 ("assistant", "a cat")]
    assert turns[0].cwd == "/srv/other-proj" and turns[0].project == "other-proj"
    assert stats.records_ignored == 10


def test_tool_output_and_arguments_are_cut_at_the_limit(tmp_path):
    big = "x" * (TOOL_RESULT_MAX_CHARS + 6000)
    p = _write(rollout(tmp_path), meta(), umsg("go"),
               call("c1", args=json.dumps({"cmd": big})),
               output("c1", big),
               env("response_item", {"type": "custom_tool_call_output", "call_id": "c2",
                                     "output": [{"type": "input_text", "text": "y" * TOOL_RESULT_MAX_CHARS}]}))
    turns, _ = _parse(p)
    tool = [t for t in turns if t.role == "tool"]
    assert tool[0].text == "x" * TOOL_RESULT_MAX_CHARS + "…[cut 6000 chars]"
    assert tool[0].text == transcript.cut_text(big)            # the Claude Code reader's cut, suffix and all
    assert tool[1].text == "y" * TOOL_RESULT_MAX_CHARS       # exactly at the limit: not cut
    use = turns[1].text
    assert use.startswith('[tool_use exec_command] {"cmd": "xxx') and use.endswith("…[cut 6011 chars]")


def test_resumed_and_forked_rollouts_keep_sources(tmp_path):
    orig, _ = _parse(MAIN)
    lines = MAIN.read_bytes().splitlines(keepends=True)
    # resume: Codex appends to the same file; earlier turns are unchanged
    resumed = _write(tmp_path / MAIN.name, *lines, uevent("and now?"), umsg("and now?"), amsg("all green"))
    r, _ = _parse(resumed)
    assert r[:len(orig)] == orig and [t.text for t in r[len(orig):]] == ["and now?", "all green"]
    # fork: a new thread whose file copies the records (re-stamped) after its own session_meta
    fork_id = "0199a1b2-5c3d-7e10-8f00-0000000000ff"
    copied = []
    for raw in lines:
        rec = json.loads(raw)
        rec["timestamp"] = "2026-03-03T09:00:00.000Z"
        copied.append(rec)
    fork = _write(tmp_path / f"rollout-2026-03-03T09-00-00-{fork_id}.jsonl",
                  meta(fork_id, forked_from_id=A, cwd="/home/dev/projects/widget"), *copied,
                  umsg("try another approach"), amsg("ok"))
    f, _ = _parse(fork)
    assert {t.session for t in f} == {fork_id}
    assert [t.source for t in f[:len(orig)]] == [t.source for t in orig]
    assert [t.text for t in f[:len(orig)]] == [t.text for t in orig]
    assert f[len(orig)].text == "try another approach"


def test_session_id_conventions_and_fallbacks(tmp_path):
    u = "11111111-2222-3333-4444-555555555555"
    # subagent through the top-level parent_thread_id (older metas)
    p = _write(rollout(tmp_path, f"rollout-2026-03-02T10-00-00-{u}.jsonl"),
               meta("child", parent_thread_id="parent", source={"subagent": {"other": "x"}}), umsg("hi"))
    assert _parse(p)[0][0].session == "parent.agent-child"
    # a fork is its own thread, not a subagent
    p = _write(rollout(tmp_path, "rollout-f.jsonl"), meta("forked", forked_from_id="orig"), umsg("hi"))
    assert _parse(p)[0][0].session == "forked"
    # no session_meta before the first turn: the uuid in the file name
    p = _write(rollout(tmp_path, f"rollout-2026-03-02T10-00-01-{u}.jsonl"), umsg("hi"), meta("late"))
    assert _parse(p)[0][0].session == u
    # an id unusable as a session ref segment: file name uuid, else the stem
    p = _write(rollout(tmp_path, f"rollout-2026-03-02T10-00-02-{u}.jsonl"), meta("../etc"), umsg("hi"))
    assert _parse(p)[0][0].session == u
    p = _write(tmp_path / "plain-name.jsonl", meta("a/b"), umsg("hi"))
    assert _parse(p)[0][0].session == "plain-name"


# --------------------------------------------------------------------------- bad lines

BAD_LINES = [
    b"this is not json\n",
    b"[1, 2, 3]\n",
    b"42\n",
    b'{"type": "response_item", "payload": {"type": "message", "role": "user", "content": "trunc\n',
    b'{"type": "event_msg", "payload": {"type": "user_message", "message": "a\x00b"}}\n',
    b'{"type": "event_msg", "payload": {"type": "user_message", "message": "half \\ud83d emoji"}}\n',
    b'{"type": "event_msg", "junk": {"\\udc00": 1}, "payload": {}}\n',
    b'{"type": "event_msg", "payload": {"type": "user_message", "message": "nul \\u0000"}}\n',
    b'{"type": "event_msg", "payload": {"type": "user_message", "message": "bad \xff byte"}}\n',
    b"[" * 100_000 + b"]" * 100_000 + b"\n",
    b"\n",
    b"   \t\r\n",
]


def test_bad_lines_are_skipped_and_counted_like_claude_code(tmp_path):
    p = _write(rollout(tmp_path), b"\xef\xbb\xbf" + _line(meta()), uevent("first valid"),
               *BAD_LINES, amsg("second valid"),
               json.dumps(umsg("pair \ud83d\ude00 and no trailing newline")).encode())
    turns, stats = _parse(p)
    # one bad character costs that character (U+FFFD), not the line (issue 21 item 11)
    assert [t.text for t in turns] == ["first valid", "a\ufffdb", "half \ufffd emoji", "nul \ufffd",
                                       "bad \ufffd byte", "second valid", "pair \U0001F600 and no trailing newline"]
    assert (stats.files, stats.lines, stats.lines_skipped, stats.records_ignored) == (1, 16, 7, 2)
    cc = claude_code.ParseStats()
    list(claude_code.parse_file(p, cc))                       # same file through the Claude Code reader
    assert (cc.lines, cc.lines_skipped) == (stats.lines, stats.lines_skipped)


def test_line_longer_than_limit_is_skipped_without_losing_neighbours(tmp_path):
    p = rollout(tmp_path)
    p.parent.mkdir(parents=True)
    with open(p, "wb") as f:
        f.write(_line(meta()) + _line(umsg("before")))
        f.write(b'{"type": "response_item", "payload": {"type": "message", "role": "user", "content": "')
        chunk = b"x" * (1 << 20)
        for _ in range(MAX_LINE_BYTES // len(chunk) + 1):
            f.write(chunk)
        f.write(b'"}}\n')
        f.write(_line(umsg("after")))
    turns, stats = _parse(p)
    assert [t.text for t in turns] == ["before", "after"]
    assert (stats.lines, stats.lines_skipped) == (4, 1)


def test_wrong_types_never_crash(tmp_path):
    p = _write(rollout(tmp_path),
               {"timestamp": 5, "type": "session_meta", "payload": {"id": 7, "cwd": ["x"], "source": "cli"}},
               {"type": "session_meta", "payload": "nope"},
               {"type": "response_item", "payload": {"type": "message", "role": "user", "content": {"a": 1}}},
               {"type": "response_item", "payload": {"type": "function_call", "name": 3, "arguments": None,
                                                     "call_id": {"x": 1}}},
               {"type": "response_item", "payload": {"type": "function_call_output", "call_id": None,
                                                     "output": {"content": 5, "success": False}}},
               {"type": "response_item", "payload": {"type": "reasoning", "summary": "x", "content": 3}},
               {"type": "event_msg", "payload": {"type": "user_message", "message": ["x"]}},
               {"type": "turn_context", "payload": {"cwd": 3}},
               {"record_type": "state"}, {"id": ["x"]}, {"type": None}, {},
               {"type": "message", "role": "user", "content": [{"type": "input_text", "text": 5}, "str"]},
               umsg("still fine"))
    turns, stats = _parse(p)
    assert [(t.role, t.text) for t in turns] == [("assistant", "[tool_use ] "), ("tool", "[error]"),
                                                 ("user", "still fine")]
    assert {t.session for t in turns} == {"rollout-2026-03-02T10-00-00-x"}
    assert stats.lines_skipped == 0 and stats.records_ignored == 14 - 3


# --------------------------------------------------------------------------- property

@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(lines=st.lists(st.binary(max_size=200), max_size=12))
def test_arbitrary_byte_lines_never_raise(tmp_path, lines):
    p = tmp_path / "rollout-fuzz.jsonl"
    p.write_bytes(b"\n".join(lines))
    turns, stats = _parse(p)
    assert stats.lines_skipped + stats.records_ignored <= stats.lines
    for t in turns:
        assert t.text.strip() and t.source.startswith("cx:")


_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
_json = st.recursive(_leaf, lambda c: st.lists(c, max_size=4)
                     | st.dictionaries(st.sampled_from(
                         ["type", "role", "content", "text", "id", "call_id", "name", "arguments", "input",
                          "output", "summary", "message", "kind", "cwd", "source", "subagent", "thread_spawn",
                          "parent_thread_id", "success", "author", "namespace", "action"]), c, max_size=5),
                     max_leaves=25)
_payload_type = st.sampled_from(["message", "reasoning", "function_call", "function_call_output",
                                 "custom_tool_call", "custom_tool_call_output", "local_shell_call",
                                 "agent_message", "user_message", "task_complete", "web_search_call"])
_record = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["session_meta", "turn_context", "response_item",
                                                    "event_msg", "compacted", "world_state"]),
                           "payload": st.one_of(_json, st.fixed_dictionaries(
                               {"type": _payload_type, "role": st.sampled_from(["user", "assistant", "developer"])},
                               optional={"content": _json, "message": _json, "output": _json, "call_id": _json,
                                         "summary": _json, "id": _json, "source": _json}))},
                          optional={"timestamp": _json}),
    st.fixed_dictionaries({"type": _payload_type}, optional={"role": _json, "content": _json, "id": _json}),
    _json)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(recs=st.lists(_record, max_size=10), junk=st.lists(st.binary(max_size=40), max_size=3))
def test_fuzz_records_never_raise_and_are_deterministic(tmp_path, recs, junk):
    p = tmp_path / "rollout-fuzz.jsonl"
    p.write_bytes(b"".join(_line(r) for r in recs) + b"\n".join(junk))
    turns, stats = _parse(p)
    assert _parse(p) == (turns, stats)
    assert stats.lines_skipped + stats.records_ignored <= stats.lines
    assert len({t.source for t in turns}) == len(turns)
    for t in turns:
        assert t.text.strip() and t.role in ("user", "assistant", "tool")
        assert t.source.startswith("cx:") and isinstance(t.timestamp, int)
        assert "/" not in t.session and t.session == t.session.strip()
        t.text.encode("utf-8")
