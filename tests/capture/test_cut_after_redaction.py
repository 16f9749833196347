"""A credential crossing a cut is redacted, never kept as a prefix (tester
finding T19 of session 17).  Tool results and tool inputs are cut to
``TOOL_RESULT_MAX_CHARS``, a sub-agent's summary to ``MAX_SUMMARY_CHARS``, a
long markdown note is split into ``MAX_PART_CHARS`` parts; each cut ran
before redaction, so a credential straddling it was stored as a prefix no
rule recognised (36 of 40 characters of an AWS secret key), or whole with its
label cut off.  Now the text is cut before a credential crossing the cut,
at a word's end (``redact.redact_cut``), and a long note is redacted whole
before it is split; real ``mem import`` and hook
processes on real files."""

from __future__ import annotations

import json
import shutil

from tests.hooks._util import asst, line, payload, run_hook_done, tool_result, tool_use, turns, user

AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9wPLmKEY"
DBPW = "Zq7mm9xQ!Lark#5521xyz"
GHP = "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"
OUTPUTS = ["a" * 3940 + f" aws_secret_access_key = {AWS}",
           "a" * 3970 + f" DB_PASSWORD={DBPW}",
           "a" * 3975 + f" {GHP} tail",
           f"{GHP} " + "c" * 5000]                           # one inside the head: the writer redacts it
WRITE = "a" * 3950 + f" AWS_SECRET_ACCESS_KEY={AWS}"
S = "14141414-2222-4333-8444-555555555555"


def leaked(text: str) -> list[str]:
    """Every 6-character piece of a secret value that ``text`` holds."""
    out = []
    for v in (AWS, DBPW, GHP[4:]):
        out += [v[i:i + 6] for i in range(len(v) - 5) if v[i:i + 6] in text]
    return out


def _claude(tmp_path):
    f = tmp_path / "claude" / "projects" / "-tmp-proj" / f"{S}.jsonl"
    f.parent.mkdir(parents=True)
    recs = [user("u0", "run it", sid=S)]
    for i, out in enumerate(OUTPUTS):
        recs += [asst(f"a{i}", f"m{i}", [tool_use(f"t{i}", command=f"cat creds{i}")], sid=S),
                 user(f"r{i}", [tool_result(f"t{i}", out)], sid=S)]
    recs.append(asst("a9", "m9", [tool_use("t9", "Write", file_path="/tmp/x", content=WRITE)], sid=S))
    f.write_bytes(b"".join(line(r) for r in recs))
    return f


def test_claude_code_import_keeps_no_prefix_of_a_credential_at_the_cut(mem, tmp_path, store_path):
    _claude(tmp_path)
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    r = mem("import", "claude-code", "--json", env=env).json
    assert r["turns_added"] == 10 and r["secrets_redacted"] == 1, r
    texts = [t for _s, _q, _r, t, _src in sorted(turns(store_path))]
    tools = [t for t in texts if t.startswith("aaa")]
    assert len(tools) == 3 and not leaked("\n".join(texts)), leaked("\n".join(texts))
    assert "[REDACTED:github-token] ccc" in "\n".join(texts)
    # each cut moved to the start of the credential crossing it (a word's end)
    assert tools[0].endswith(" aws_secret_access_key = …[cut 40 chars]"), tools[0][-80:]
    assert tools[1].endswith("a …[cut 33 chars]"), tools[1][-80:]
    assert tools[2].endswith("a …[cut 45 chars]"), tools[2][-80:]
    write = next(t for t in texts if t.startswith("[tool_use Write]"))
    assert write.endswith("a …[cut 87 chars]"), write[-120:]        # label=value is one word: dropped whole
    assert mem("search", "wJalrXUtnFEMI", env=env).stdout.count("wJalr") == 0
    # the one turn writer's dedup is by source id: reading the file again from its start (no
    # cursor) adds no turn, whatever text an earlier cut stored
    shutil.rmtree(store_path / "cache")   # every cache: the files are read again from their start
    r = mem("import", "claude-code", "--json", env=env).json
    assert r["turns_added"] == 0 and r["turns_already_stored"] == 10, r
    assert len(turns(store_path)) == 10


def test_codex_import_keeps_no_prefix_of_a_credential_at_the_cut(mem, tmp_path, store_path):
    sid = "0199a1b2-5c3d-7e10-8f00-0000000000c9"
    d = tmp_path / "codex" / "sessions" / "2026" / "03" / "02"
    d.mkdir(parents=True)
    ts = "2026-03-02T10:00:00.000Z"
    recs = [{"timestamp": ts, "type": "session_meta", "payload": {"id": sid, "timestamp": ts, "cwd": "/tmp/proj"}},
            {"timestamp": ts, "type": "response_item",
             "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}},
            {"timestamp": ts, "type": "response_item",
             "payload": {"type": "function_call", "name": "exec_command", "call_id": "c1",
                         "arguments": json.dumps({"cmd": "cat creds"})}},
            {"timestamp": ts, "type": "response_item",
             "payload": {"type": "function_call_output", "call_id": "c1",
                         "output": "a" * 3945 + f" aws_secret_access_key = {AWS}"}}]
    f = d / f"rollout-2026-03-02T10-00-00-{sid}.jsonl"
    f.write_bytes(b"".join(line(r) for r in recs))
    r = mem("import", "codex", str(tmp_path / "codex" / "sessions"), "--json").json
    assert r["turns_added"] >= 2, r
    texts = "\n".join(t for _s, _q, _r, t, _src in turns(store_path))
    assert not leaked(texts), texts[-200:]
    assert "aws_secret_access_key = …[cut 40 chars]" in texts, texts[-200:]
    shutil.rmtree(store_path / "cache")   # every cache: the files are read again from their start
    r = mem("import", "codex", str(tmp_path / "codex" / "sessions"), "--json").json
    assert r["turns_added"] == 0 and r["turns_already_stored"] >= 2, r


def test_subagent_summary_cut_keeps_no_prefix_of_a_token(store_path, tmp_path):
    from objstore.capture.rollup import summary_key
    from objstore.memory.facts import versions
    from objstore.memory.opening import open_store
    final = "b" * 19990 + f" {GHP} and the rest of the summary"
    main = tmp_path / "projects" / "-home-u-proj" / f"{S}.jsonl"
    sub = main.with_suffix("") / "subagents" / "agent-adelta04.jsonl"
    sub.parent.mkdir(parents=True)
    main.write_bytes(line(user("u1", "look into it", sid=S)))
    sub.write_bytes(line(user("b1", "check it", sid=S, isSidechain=True, agentId="adelta04")))
    ev = payload("SubagentStop", S, main, agent_id="adelta04", agent_type="general-purpose",
                 agent_transcript_path=str(sub), last_assistant_message=final, stop_hook_active=False)
    rc, out, err, _t = run_hook_done(store_path, ev)
    assert rc == 0, err
    with open_store(store_path) as s:
        vs = versions(s, summary_key(f"{S}.agent-adelta04", "proj"))
    body = vs[0].fact.body
    assert len(body) <= 20_000 and not leaked(body), body[-80:]
    assert body.endswith("b …"), body[-80:]     # cut before the token, not inside it


def test_markdown_split_redacts_the_whole_note_first(mem, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "long.md").write_text("word " * 19996 + f"{GHP} and more words after")
    (notes / "long2.md").write_text("x" * 99985 + f" AWS_SECRET_ACCESS_KEY={AWS} tail")
    mem("import", "markdown", str(notes))
    got = {k: mem("get", f"user/notes/notes/{k}").stdout for k in ("long/part-1", "long/part-2",
                                                                    "long2/part-1", "long2/part-2")}
    assert not leaked("\n".join(got.values())), got
    assert "[REDACTED:github-token]" in got["long/part-1"] + got["long/part-2"]
    assert "AWS_SECRET_ACCESS_KEY=[REDACTED:" in got["long2/part-2"], got["long2/part-2"][:120]


def test_a_long_remember_that_statement_keeps_no_prefix_of_a_token(store_path):
    """The "remember that …" statement is cut to ``statements.MAX_CHARS``
    (600): it stored ``… the deploy key is ghp_Q9w`` before."""
    from objstore.capture.statements import statement_of
    s = statement_of("remember that " + "word " * 115 + f"the deploy key is {GHP} for ci")
    assert s is not None and len(s) <= 600 and s.endswith("the deploy key is"), s[-60:]
    assert "ghp_" not in s and not leaked(s)


def test_a_cut_never_falls_inside_a_marker_nor_a_word():
    from objstore.core.redact import cut_point, redact_cut
    marked = "x " * 10 + "[REDACTED:github-token] tail"
    assert cut_point(marked, 30) == 20 and marked[:20].endswith("x ")   # moved to the marker's start
    assert cut_point("word " * 3 + "abcdefgh", 18) == 15               # after the last blank
    assert cut_point("y" * 600, 500) == 500                           # no break within 256: where it is
    # a credential crossing the cut: the head ends before it, raw (the writer redacts the head)
    text = f"{GHP} " + "z " * 1970 + f"{GHP} tail"       # the second token spans characters 3981-4020
    head, n = redact_cut(text, 4000)
    assert head == f"{GHP} " + "z " * 1970 and n == 45



def test_a_tail_starts_after_a_marker_a_word_and_a_crossing_credential():
    # the mirror image, for a text kept as its tail (sessions.cap_turn_text: red18)
    from objstore.core.redact import cut_point, redact_cut
    marked = "head [REDACTED:github-token] x y"
    assert cut_point(marked, 10, tail=True) == 29 and marked[29:] == "x y"   # moved past the marker
    assert cut_point("abcdefgh word word", 3, tail=True) == 9                 # after the next blank
    assert cut_point("y" * 600, 100, tail=True) == 100 and cut_point("ab", 0, tail=True) == 0
    text = f"head {GHP}," + "z," * 1970 + f"{GHP} tail"   # the first token spans characters 5-45
    tail, n = redact_cut(text, len(text) - 20, tail=True)
    assert tail == "z," * 1970 + f"{GHP} tail" and n == 46 and tail == text[n:]
    assert redact_cut("short", 10, tail=True) == ("short", 0)


def test_the_stop_hook_capture_keeps_no_prefix_of_a_credential_at_the_cut(store_path, tmp_path):
    f = _claude(tmp_path)
    rc, _out, err, _t = run_hook_done(store_path, payload("Stop", S, f, stop_hook_active=False))
    assert rc == 0, err
    texts = "\n".join(t for _s, _q, _r, t, _src in turns(store_path))
    # the four tool results (the last record, the Write, may wait for the next capture)
    assert texts.count("…[cut ") >= 4 and not leaked(texts), texts[-300:]
    assert " aws_secret_access_key = …[cut 40 chars]" in texts
