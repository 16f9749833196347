"""Incremental transcript sync and prompt capture (objstore.capture.sync, objstore.capture.live):
cursors, torn lines, replaced files, split messages, idempotence from every
side, exclusions.  Real files, a real store, the real reader."""

from __future__ import annotations

import json
import os
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest

from objstore.capture import live, sync
from objstore.capture.claude_code import prompt_alias
from objstore.capture.importer import import_transcripts
from objstore.memory.sessions import load_session
from objstore.memory.opening import open_store
from tests.conftest import shared_path
from tests.hooks._util import asst, attachment, bag, chains_ok, line, text, tool_result, tool_use, turns, user

SID = "5d1e6f0a-0000-4000-8000-000000000001"


def _session(sid: str = SID, prompts=("fix the flaky test", "yes", "yes")) -> list[bytes]:
    """A small session: per prompt, an assistant message split over three
    records (thinking, text, tool_use), a tool result, a final answer."""
    out: list[bytes] = []
    for i, p in enumerate(prompts):
        out.append(line(user(f"u{i}", p, sid)))
        out.append(line(asst(f"a{i}a", f"msg_{sid[:4]}_{i}", [{"type": "thinking", "thinking": f"think {i}"}], sid)))
        out.append(line(attachment(f"x{i}", sid, type="hook_success", stdout="{}")))
        out.append(line(asst(f"a{i}b", f"msg_{sid[:4]}_{i}", [text(f"running step {i}")], sid)))
        out.append(line(asst(f"a{i}c", f"msg_{sid[:4]}_{i}", [tool_use(f"toolu_{i}", command=f"pytest -k t{i}")], sid)))
        out.append(line(user(f"r{i}", [tool_result(f"toolu_{i}", f"{i} passed")], sid)))
        out.append(line(asst(f"a{i}d", f"msg_{sid[:4]}_{i}_end", [text(f"done with step {i}")], sid)))
    return out


def _fresh_import(tmp: Path, *files: Path):
    """What a plain 'mem import' of the files stores, in another store."""
    other = tmp / "fresh-store"
    shutil.rmtree(other, ignore_errors=True)
    with open_store(other, create=True) as s:
        import_transcripts(s, "claude-code", files)
    return bag(other)


def _sync(store, path, **kw):
    return sync.sync_files(store, [path], **kw)


def test_chunked_sync_equals_import_and_import_adds_nothing(store, store_path, tmp_path):
    src = b"".join(_session())
    t = tmp_path / "p" / f"{SID}.jsonl"
    t.parent.mkdir()
    rng = random.Random(7)
    cuts = sorted(rng.sample(range(1, len(src)), 25))   # mostly mid-line
    for c in cuts:
        t.write_bytes(src[:c])
        _sync(store, t)                                  # Stop: hold_tail
    t.write_bytes(src)
    _sync(store, t, final=True)                          # SessionEnd
    assert bag(store_path) == _fresh_import(tmp_path, t)
    assert chains_ok(store_path)
    r = import_transcripts(store, "claude-code", [t])
    assert r.turns_added == 0 and r.turns_seen == sum(bag(store_path).values())


def test_torn_last_line_is_not_consumed(store, store_path, tmp_path):
    lines = _session(prompts=("one",))
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(lines[0] + lines[1][:-20])            # the assistant record is half written
    [r] = _sync(store, t, final=True)
    assert r.offset == len(lines[0])                     # cursor stops before the torn line
    assert [x[2] for x in turns(store_path)] == ["user"]
    t.write_bytes(b"".join(lines))
    _sync(store, t, final=True)
    assert bag(store_path) == _fresh_import(tmp_path, t)


def test_split_message_across_stops_is_one_turn(store, store_path, tmp_path):
    lines = _session(prompts=("one",))
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(lines[:2]))                   # Stop fires after the thinking record only
    _sync(store, t)
    assert [x[2] for x in turns(store_path)] == ["user"]  # the message is held back
    t.write_bytes(b"".join(lines))
    _sync(store, t)
    got = [(r, x) for _s, _q, r, x, _src in sorted(turns(store_path), key=lambda z: z[1])]
    assert ("assistant", "[thinking] think 0\nrunning step 0\n[tool_use Bash] {\"command\": \"pytest -k t0\"}") in got
    assert sum(1 for r, _x in got if r == "assistant") == 1   # the final answer is still held back
    _sync(store, t, final=True)
    assert bag(store_path) == _fresh_import(tmp_path, t)


def test_stop_before_final_message_then_later_sync(store, store_path, tmp_path):
    lines = _session(prompts=("one",))
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(lines[:-1]))                  # the final answer is not written yet
    _sync(store, t)
    t.write_bytes(b"".join(lines))
    _sync(store, t, final=True)
    assert "done with step 0" in {x[3] for x in turns(store_path)}
    assert bag(store_path) == _fresh_import(tmp_path, t)


@pytest.mark.parametrize("how", ["shrunk", "replaced", "rewritten"])
def test_shrunk_replaced_or_rewritten_file_is_read_again_without_duplicates(store, store_path, tmp_path, how):
    lines = _session()
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(lines))
    _sync(store, t, final=True)
    before = bag(store_path)
    if how == "shrunk":
        t.write_bytes(b"".join(lines[:5]))
    elif how == "replaced":
        t2 = tmp_path / "new.jsonl"
        t2.write_bytes(b"".join(lines) + line(user("u9", "one more thing", SID)))
        os.replace(t2, t)                                # new inode
    else:
        with open(t, "r+b") as f:                        # same inode, same size, other first bytes
            data = f.read()
            f.seek(0)
            f.write(data.replace(b'"u0"', b'"uX"', 1))
    [r] = _sync(store, t, final=True)
    assert r.reset
    after = bag(store_path)
    if how == "replaced":
        assert after - before == {(SID, "user", "one more thing"): 1}
    else:
        assert after == before          # a prompt is known by its text and place, not its record id
    assert chains_ok(store_path)


def test_replayed_history_in_the_same_file_is_stored_once(store, store_path, tmp_path):
    lines = _session()
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(lines))
    _sync(store, t, final=True)
    before = bag(store_path)
    t.write_bytes(b"".join(lines) * 2)                   # a cold resume re-appends everything verbatim
    _sync(store, t, final=True)
    assert bag(store_path) == before
    r = import_transcripts(store, "claude-code", [t])
    assert r.turns_added == 0


def _copy_as(lines: list[bytes], new_sid: str, *, remap: bool) -> list[bytes]:
    out = []
    for b in lines:
        rec = json.loads(b)
        rec["sessionId"] = new_sid
        if remap and "uuid" in rec:
            rec["uuid"] = "fork-" + rec["uuid"]
        out.append(line(rec))
    return out


@pytest.mark.parametrize("remap", [False, True], ids=["resume-keeps-uuids", "fork-new-uuids"])
@pytest.mark.parametrize("path", ["hook", "import"])
def test_resumed_or_forked_session_stores_copied_records_once(store, store_path, tmp_path, remap, path):
    a_lines = _session()
    b_sid = "5d1e6f0a-0000-4000-8000-0000000000b2"
    b_new = [line(user("b1", "now add a changelog entry", b_sid)),
             line(asst("b2", "msg_b_new", [text("added the entry")], b_sid))]
    b_lines = _copy_as(a_lines, b_sid, remap=remap) + b_new
    ta = tmp_path / "proj" / f"{SID}.jsonl"
    tb = tmp_path / "proj" / f"{b_sid}.jsonl"
    ta.parent.mkdir()
    ta.write_bytes(b"".join(a_lines))
    tb.write_bytes(b"".join(b_lines))
    if path == "hook":
        _sync(store, ta, final=True)
        _sync(store, tb, final=True)
    else:
        import_transcripts(store, "claude-code", [ta.parent])
    got = bag(store_path)
    assert got == _fresh_import(tmp_path, ta) + Counter({(b_sid, "user", "now add a changelog entry"): 1,
                                                         (b_sid, "assistant", "added the entry"): 1})
    # and the other side: the import after the hooks, or the hooks after the import, add nothing
    if path == "hook":
        assert import_transcripts(store, "claude-code", [ta.parent]).turns_added == 0
    else:
        _sync(store, tb, final=True)
    assert bag(store_path) == got


def test_prompt_hook_then_transcript_then_import_store_each_prompt_once(store, store_path, tmp_path):
    lines = _session()                                    # prompts: "fix the flaky test", "yes", "yes"
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"")
    at = 0
    for i, p in enumerate(("fix the flaky test", "yes", "yes")):
        r = live.capture_prompt(store, session_id=SID, prompt=p, cwd="/home/u/proj", transcript=t)
        # the second "yes" repeats the transcript's last prompt before its record is written:
        # the hook cannot tell it from a late delivery of the first, so the sync stores it
        assert r.status == ("known" if i == 2 else "captured"), r
        block = lines[i * 7:(i + 1) * 7]
        t.write_bytes(t.read_bytes() + b"".join(block))   # the transcript gets the record afterwards
        _sync(store, t)
        at += 1
    _sync(store, t, final=True)
    users = [x for x in turns(store_path) if x[2] == "user"]
    assert sorted(x[3] for x in users) == ["fix the flaky test", "yes", "yes"]
    assert import_transcripts(store, "claude-code", [t]).turns_added == 0
    assert bag(store_path) == _fresh_import(tmp_path, t)


def test_prompt_already_in_transcript_is_not_stored_twice(store, store_path, tmp_path):
    lines = _session(prompts=("one", "two"))
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(lines[:7]) + lines[7])        # the record of prompt "two" is written first
    _sync(store, t)
    # the reader keeps the prompt back with the open answer before it (fix12b: it follows that
    # answer once read), so the hook stores it, under the key the reader gives it
    r = live.capture_prompt(store, session_id=SID, prompt="two", cwd="/x", transcript=t)
    assert r.status == "captured"
    assert live.capture_prompt(store, session_id=SID, prompt="two", cwd="/x", transcript=t).status == "known"
    _sync(store, t, final=True)
    assert sum(1 for x in turns(store_path) if x[3] == "two") == 1
    assert bag(store_path) == _fresh_import(tmp_path, t)


def test_hook_registered_twice(store, store_path, tmp_path):
    lines = _session(prompts=("one",))
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"")
    a = live.capture_prompt(store, session_id=SID, prompt="one", transcript=t)
    b = live.capture_prompt(store, session_id=SID, prompt="one", transcript=t)
    assert (a.status, b.status) == ("captured", "known")
    t.write_bytes(b"".join(lines))
    _sync(store, t)
    _sync(store, t)
    _sync(store, t, final=True)
    _sync(store, t, final=True)
    assert bag(store_path) == _fresh_import(tmp_path, t)


def test_prompt_alias_counts_repeats():
    counts: dict = {}
    a, b = prompt_alias("yes", counts), prompt_alias("  yes ", counts)
    assert a != b and a.rsplit(":", 1)[0] == b.rsplit(":", 1)[0]
    slash = prompt_alias("<command-name>/review</command-name>\n<command-message>review</command-message>\n"
                         "<command-args>src/</command-args>", {})
    assert slash == prompt_alias("/review src/", {})


def test_own_injection_is_never_captured(store, store_path, tmp_path):
    inj = "<mem-context source=\"mem\">project/api/port = 5433</mem-context>"
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(line(user("u1", f"{inj}\nwhat port?", SID))
                  + line(attachment("x1", SID, type="hook_additional_context", content=[inj]))
                  + line(attachment("x2", SID, type="hook_success",
                                    stdout=json.dumps({"hookSpecificOutput": {"additionalContext": inj}})))
                  + line(asst("a1", "msg_1", [text("It is 5433.")], SID)))
    _sync(store, t, final=True)
    live.capture_prompt(store, session_id=SID, prompt=f"{inj} and the host?", transcript=None)
    texts = " ".join(x[3] for x in turns(store_path))
    assert "5433</mem-context>" not in texts and "project/api/port" not in texts
    assert "what port?" in texts and "and the host?" in texts


def test_exclusions_config_marker_and_no_capture(store, store_path, tmp_path):
    (store_path / "config.toml").write_text('[capture]\nexclude = ["/home/u/secret"]\n')
    cfg = sync.load_config(store_path)
    assert sync.path_excluded(cfg, "/home/u/secret") and sync.path_excluded(cfg, "/home/u/secret/sub")
    assert not sync.path_excluded(cfg, "/home/u/secretive")
    assert live.capture_prompt(store, session_id=SID, prompt="x", cwd="/home/u/secret/a").status == "excluded"
    assert live.capture_prompt(store, session_id=SID, prompt="  #nomem my password is hunter2").status == "marked"
    # the marked prompt and the answer to it stay out of transcript capture too
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(line(user("u1", "#nomem what is my ssn", SID)) + line(asst("a1", "m1", [text("it is 123")], SID))
                  + line(user("u2", "hello", SID)) + line(asst("a2", "m2", [text("hi")], SID)))
    _sync(store, t, final=True)
    assert sorted(x[3] for x in turns(store_path)) == ["hello", "hi"]
    assert import_transcripts(store, "claude-code", [t]).turns_added == 0
    # MEM_NO_CAPTURE=1 marks the session: catch-up and import skip it
    other = "5d1e6f0a-0000-4000-8000-0000000000c3"
    sync.mark_no_capture(store, other)
    t2 = tmp_path / f"{other}.jsonl"
    t2.write_bytes(b"".join(_session(other)))
    _sync(store, t2, final=True)
    assert live.capture_prompt(store, session_id=other, prompt="p").status == "no-capture"
    r = import_transcripts(store, "claude-code", [t2])
    assert r.turns_added == 0
    assert not any(x[0] == other for x in turns(store_path))


def test_bad_config_stops_capture(store, store_path):
    from objstore.core.errors import InvalidInput
    (store_path / "config.toml").write_text("[capture\nexclude = 3")
    with pytest.raises(InvalidInput):
        sync.load_config(store_path)
    (store_path / "config.toml").write_text('[capture]\nexclude = "not a list"\n')
    with pytest.raises(InvalidInput):
        sync.load_config(store_path)


def test_corrupt_lines_anywhere(store, store_path, tmp_path):
    good = _session(prompts=("one", "two"))
    two_on_one = good[0].rstrip(b"\n") + good[1]          # two records on one line
    junk = [b"\x00" * 300 + b"\n", b'{"type":"user","message":{"content":"\\ud83d"}}\n',
            b"\xff\xfe not utf-8\n", two_on_one]
    u2028 = line(user("u-ls", "line\u2028separator inside", SID))
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(junk[0] + good[0] + junk[1] + b"".join(good[1:7]) + junk[2] + u2028 + junk[3]
                  + b"".join(good[7:]))
    _sync(store, t, final=True)
    texts = [x[3] for x in turns(store_path)]
    assert "line\u2028separator inside" in texts
    assert bag(store_path) == _fresh_import(tmp_path, t)


def test_big_file_is_read_in_bounded_steps(store, store_path, tmp_path):
    t = tmp_path / f"{SID}.jsonl"
    blob = "x" * 200_000
    recs = []
    for i in range(60):
        recs.append(line(user(f"u{i}", f"prompt {i}", SID)))
        recs.append(line(asst(f"a{i}", f"msg_{i}", [text(f"answer {i}")], SID)))
        recs.append(line(user(f"r{i}", [tool_result(f"t{i}", blob)], SID)))
    t.write_bytes(b"".join(recs))                         # ~12 MB
    steps = 0
    while True:
        [r] = sync.sync_files(store, [t], final=True, max_bytes=1 << 20)
        steps += 1
        if not r.more:
            break
    assert steps >= 10
    assert bag(store_path) == _fresh_import(tmp_path, t)


def test_one_line_longer_than_the_budget_still_progresses(store, store_path, tmp_path):
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(line(user("u1", "p", SID)) + line(user("r1", [tool_result("t", "y" * 3_000_000)], SID)))
    for _ in range(3):
        [r] = sync.sync_files(store, [t], final=True, max_bytes=1 << 20)
        if not r.more:
            break
    assert not r.more and len(turns(store_path)) == 2


def test_subagent_layouts_and_orphans(store, store_path, tmp_path):
    proj = tmp_path / "proj"
    main = proj / f"{SID}.jsonl"
    sub = proj / SID / "subagents" / "agent-a1b2.jsonl"
    wf = proj / SID / "subagents" / "workflows" / "wf_1" / "agent-c3d4.jsonl"
    orphan = proj / "0rphan00-0000-4000-8000-000000000000" / "subagents" / "agent-e5f6.jsonl"
    for p in (main, sub, wf, orphan):
        p.parent.mkdir(parents=True, exist_ok=True)
    main.write_bytes(b"".join(_session(prompts=("go",))))
    for p, aid in ((sub, "a1b2"), (wf, "c3d4"), (orphan, "e5f6")):
        p.write_bytes(line(user(f"s-{aid}", f"task {aid}", SID if p is not orphan else "", isSidechain=True,
                                agentId=aid))
                      + line(asst(f"sa-{aid}", f"msg_{aid}", [text(f"result {aid}")], SID if p is not orphan else "",
                                  isSidechain=True, agentId=aid)))
    assert sync.subagent_files(main) == sorted([sub, wf])
    sync.sync_files(store, [main, *sync.subagent_files(main), orphan], final=True)
    sessions = {x[0] for x in turns(store_path)}
    assert {SID, f"{SID}.agent-a1b2", f"{SID}.agent-c3d4",
            "0rphan00-0000-4000-8000-000000000000.agent-e5f6"} <= sessions
    assert import_transcripts(store, "claude-code", [proj]).turns_added == 0


def test_compaction_summary_is_not_a_prompt(store, store_path, tmp_path):
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(_session(prompts=("one",)))
                  + line({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
                          "uuid": "cb", "sessionId": SID, "compactMetadata": {"trigger": "auto"}})
                  + line(user("cs", "This session is being continued from a previous conversation ...", SID,
                              isCompactSummary=True, isVisibleInTranscriptOnly=True))
                  + line(user("u2", "after compaction", SID)))
    _sync(store, t, final=True)
    texts = [x[3] for x in turns(store_path)]
    assert "after compaction" in texts and not any("being continued" in x for x in texts)


def test_real_compacted_transcript_incrementally(store, store_path, tmp_path):
    src = shared_path("data", "transcripts", "slopometry", "transcript.jsonl").read_bytes()
    t = tmp_path / "a3f2c1d4-compacted.jsonl"
    for frac in (0.31, 0.5, 0.77):
        t.write_bytes(src[:int(len(src) * frac)])
        _sync(store, t)
    t.write_bytes(src)
    _sync(store, t, final=True)
    assert bag(store_path) == _fresh_import(tmp_path, t)
    assert chains_ok(store_path)


def test_session_state_cache_follows_other_writers(store, store_path, tmp_path):
    t = tmp_path / f"{SID}.jsonl"
    lines = _session()
    t.write_bytes(b"".join(lines[:7]))
    _sync(store, t, final=True)
    # an import moves the ref behind the cache's back
    t2 = tmp_path / "copy" / f"{SID}.jsonl"
    t2.parent.mkdir()
    t2.write_bytes(b"".join(lines))
    import_transcripts(store, "claude-code", [t2])
    st = load_session(store, SID)
    assert st.next_seq == len(turns(store_path)) and st.head == store.refs.read(f"sessions/{SID}")
    t.write_bytes(b"".join(lines))
    _sync(store, t, final=True)
    assert bag(store_path) == _fresh_import(tmp_path, t)
    assert chains_ok(store_path)


def test_prompt_and_transcript_capture_redact_credentials(store, store_path, tmp_path):
    key = "AKIA" + "Q3EGRJ7TZNPW2XVA"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    live.capture_prompt(store, session_id=SID, prompt=f"deploy with {key} please")
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(line(user("u1", "and the token?", SID))
                  + line(asst("a1", "m1", [text(f"use {token}")], SID)))
    _sync(store, t, final=True)
    texts = " ".join(x[3] for x in turns(store_path))
    assert key not in texts and token not in texts
    assert "[REDACTED:aws-access-key-id]" in texts and "[REDACTED:github-token]" in texts
    raw = b"".join(p.read_bytes() for p in (store_path / "objects").rglob("*") if p.is_file())
    import zlib
    assert key.encode() not in raw
    for p in (store_path / "objects").rglob("*"):
        if p.is_file() and "pack" not in p.parts:
            assert key.encode() not in zlib.decompress(p.read_bytes())


def test_forgotten_session_and_record_never_come_back_through_a_sync(store, store_path, tmp_path):
    from objstore.memory.forget import forget
    t = tmp_path / f"{SID}.jsonl"
    lines = _session()
    t.write_bytes(b"".join(lines[:7]))
    _sync(store, t, final=True)
    forget(store, session=SID)
    assert not any(x[0] == SID for x in turns(store_path))
    t.write_bytes(b"".join(lines))                      # the transcript grows, is re-read, is replaced
    _sync(store, t, final=True)
    t2 = tmp_path / "new.jsonl"
    t2.write_bytes(b"".join(lines))
    os.replace(t2, t)
    _sync(store, t, final=True)
    live.capture_prompt(store, session_id=SID, prompt="after forget", transcript=t)
    assert not any(x[0] == SID and x[3] for x in turns(store_path))
