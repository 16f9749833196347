"""After ``mem forget --match TEXT --scrub-sources`` a live session goes on
appending to its transcript; the next import read the rewritten file again
and captured the scrubbed record as a new turn (a prompt's key is its
text's hash, and the scrub changed the text): all of the forgotten turn but
TEXT came back (lane fix16, defect 1).  The scrub now names the records it
rewrites first (a scrubbed-record tombstone), so they stay the stored turn,
while the session's new records are still captured."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "cmds" / "data" / "sample-projects" / "-home-dev-acme-api" / "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11.jsonl"
CODEX = REPO / "tests" / "data" / "codex" / "sessions" / "2026" / "03" / "02"
SECRET = "zebrafinchorchard"
REST = "quixoticplatypus"      # the forgotten turn's other words


def _claude_transcript(tmp_path: Path) -> Path:
    out = []
    for line in SAMPLE.read_text().splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        c = r.get("message", {}).get("content") if isinstance(r.get("message"), dict) else None
        if r.get("type") == "user" and isinstance(c, str) and "flaky" in c:
            r["message"]["content"] = c + f" The codename is {SECRET} and the other word is {REST}."
        out.append(json.dumps(r))
    f = tmp_path / "claude" / "projects" / "-home-dev-acme-api" / SAMPLE.name
    f.parent.mkdir(parents=True)
    f.write_text("\n".join(out) + "\n")
    return f


def _search(mem, word: str, env) -> str:
    return mem("search", word, env=env).stdout


def test_a_scrubbed_prompt_does_not_come_back_when_its_session_goes_on(mem, tmp_path, store_path):
    from objstore import scan_store
    f = _claude_transcript(tmp_path)
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    mem("import", "claude-code", env=env)
    assert REST in _search(mem, REST, env)
    mem("forget", "--match", SECRET, "--scrub-sources", "--yes", env=env)
    assert SECRET not in f.read_text() and REST in f.read_text()
    # the live session appends a new prompt; the next import reads the rewritten file again
    rec = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/home/dev/acme-api",
           "sessionId": f.stem, "version": "2.1.42", "timestamp": "2026-03-02T10:00:00.000Z", "type": "user",
           "message": {"role": "user", "content": "a later prompt about gerbilnovel"},
           "uuid": "11111111-2222-4333-8444-555555555555"}
    with open(f, "a") as fh:
        fh.write(json.dumps(rec) + "\n")
    r = mem("import", "claude-code", "--json", env=env).json
    assert r["turns_added"] == 1, r                         # the new record only
    assert "gerbilnovel" in _search(mem, "gerbilnovel", env)
    assert REST not in _search(mem, REST, env)
    mem("gc", "--prune=now", env=env)
    assert scan_store(store_path, [REST.encode(), SECRET.encode()]) == []
    # read whole again (--reread), and by a hook's catch-up path: still not back
    r = mem("import", "claude-code", "--reread", "--json", env=env).json
    assert r["turns_added"] == 0, r
    assert scan_store(store_path, [REST.encode(), SECRET.encode()]) == []
    # scan and the dry run agree: nothing holds it any more
    mem("scan", SECRET, "--no-remotes", env=env)
    dry = mem("forget", "--match", SECRET, "--scrub-sources", "--dry-run", env=env)
    assert "would scrub 0 transcript files" in dry.stdout, dry.stdout


def test_a_scrubbed_codex_message_does_not_come_back(mem, tmp_path, store_path):
    from objstore import scan_store
    home = tmp_path / "codex"
    day = home / "sessions" / "2026" / "03" / "02"
    day.mkdir(parents=True)
    src = sorted(CODEX.glob("rollout-*.jsonl"))[0]
    lines = src.read_text().splitlines()
    out, done = [], False
    for line in lines:
        r = json.loads(line)
        p = r.get("payload") or {}
        if not done and r.get("type") == "response_item" and p.get("type") == "message" and p.get("role") == "user":
            for part in p["content"]:
                if part.get("type") == "input_text" and not part["text"].startswith("<"):
                    part["text"] += f" The codename is {SECRET} and the other word is {REST}."
                    done = True
                    break
        out.append(json.dumps(r))
    assert done
    f = day / src.name
    f.write_text("\n".join(out) + "\n")
    env = {"CODEX_HOME": str(home)}
    mem("import", "codex", env=env)
    assert REST in _search(mem, REST, env)
    mem("forget", "--match", SECRET, "--scrub-sources", "--yes", env=env)
    assert SECRET not in f.read_text()
    with open(f, "a") as fh:
        fh.write(json.dumps({"timestamp": "2026-03-02T11:00:00.000Z", "type": "response_item",
                             "payload": {"type": "message", "role": "user",
                                         "content": [{"type": "input_text", "text": "later about gerbilnovel"}]}})
                 + "\n")
    r = mem("import", "codex", "--json", env=env).json
    assert r["turns_added"] == 1, r
    assert REST not in _search(mem, REST, env)
    mem("gc", "--prune=now", env=env)
    assert scan_store(store_path, [REST.encode(), SECRET.encode()]) == []


def test_the_stop_hook_of_a_live_session_does_not_bring_a_scrubbed_prompt_back(mem, tmp_path, store_path):
    """Tester test16 F1: the hooks captured the session, ``forget --match
    --scrub-sources`` emptied and scrubbed the prompt, the session went on
    and its next Stop hook (which reads the rewritten file again) stored the
    prompt's rest as a new turn."""
    from tests.hooks._util import (asst, line, payload, run_hook, run_hook_done, text, turns, user,
                                   wait_store_processes_gone)
    sid = "22222222-2222-3333-4444-555555555555"
    t = tmp_path / "home" / ".claude" / "projects" / "-tmp-proj" / f"{sid}.jsonl"
    t.parent.mkdir(parents=True)
    t.write_bytes(line(user("u1", f"the deploy box is called {SECRET} near {REST}", sid=sid))
                  + line(asst("a1", "msg_1", [text("Noted.")], sid=sid)) + line(user("u2", "thanks", sid=sid,
                                                                                  ts="2026-01-05T10:00:02Z")))
    assert run_hook_done(store_path, payload("SessionEnd", sid, t))[0] == 0   # (again if it met its budget)
    wait_store_processes_gone(store_path)          # a hook's capture may finish in a detached child
    assert any(REST in x[3] for x in turns(store_path))
    mem("forget", "--match", SECRET, "--scrub-sources", "--yes")
    assert SECRET not in t.read_text() and REST in t.read_text()
    with open(t, "ab") as fh:
        fh.write(line(user("u3", "and later the gerbilnovel", sid=sid, ts="2026-01-05T10:00:03Z")))
    assert run_hook(store_path, payload("Stop", sid, t, stop_hook_active=False))[0] == 0
    wait_store_processes_gone(store_path)
    mem("import", "claude-code", str(t))
    got = [x[3] for x in turns(store_path) if x[0] == sid]
    assert not any(REST in x for x in got), got
    assert sum("gerbilnovel" in x for x in got) == 1 and len(got) == 4, got


def test_codex_event_messages_scrubbed_after_two_forgets_are_not_stored_again(mem, tmp_path, store_path):
    """Tester test16 F1b: a Codex rollout of ``event_msg`` messages only;
    forget, the session goes on, forget with ``--scrub-sources``: the next
    import stored every scrubbed message again (user and assistant, the
    forgotten ones included), ``cx:u:``/``cx:a:`` being hashes of the text."""
    sid = "019fc8be-3658-7ca3-9e29-000000000001"
    day = tmp_path / "codex" / "sessions" / "2026" / "01" / "02"
    day.mkdir(parents=True)
    f = day / f"rollout-2026-01-02T00-00-00-{sid}.jsonl"
    env = {"CODEX_HOME": str(tmp_path / "codex")}

    def msg(kind: str, text_: str, sec: int) -> None:
        p = {"type": kind, "message": text_, **({"images": []} if kind == "user_message" else {})}
        with open(f, "a") as fh:
            fh.write(json.dumps({"timestamp": f"2026-08-03T10:49:0{sec}.000Z", "type": "event_msg",
                                 "payload": p}) + "\n")

    f.write_text(json.dumps({"timestamp": "2026-08-03T10:49:00.000Z", "type": "session_meta",
                             "payload": {"id": sid, "cwd": "/home/dev/widget", "originator": "codex_cli_rs"}}) + "\n")
    msg("user_message", "the vault code is heron-slate-55", 1)
    msg("agent_message", "Got it, heron-slate-55.", 2)
    msg("user_message", "thanks", 3)
    mem("import", "codex", env=env)
    mem("forget", "--match", "heron-slate", "--yes", env=env)
    msg("user_message", "again heron-slate-55 please", 4)
    msg("agent_message", "heron-slate-55 noted", 5)
    mem("import", "codex", env=env)
    mem("forget", "--match", "heron-slate", "--yes", "--scrub-sources", env=env)
    assert "heron-slate" not in f.read_text()
    r = mem("import", "codex", "--json", env=env).json
    assert r["turns_added"] == 0, r
    shown = mem("show", sid, env=env).stdout
    assert "[REDACTED]" not in shown and "vault code" not in shown, shown


def test_a_transcript_held_open_by_its_agent_loses_no_record_after_the_scrub(mem, tmp_path, store_path):
    """Tester test16 F11: the scrub replaced the transcript (a new inode); an
    agent that keeps its file open for appending (Codex's rollout recorder)
    went on writing into the unlinked old file, and every later record was
    lost.  The scrub now rewrites the lines in place, each keeping its
    length, so the writer's records land in the file."""
    import os
    import time

    from tests.conftest import live_appender
    sid = "88888888-2222-3333-4444-555555555555"
    t = tmp_path / "claude" / "projects" / "-tmp-proj" / f"{sid}.jsonl"
    t.parent.mkdir(parents=True)
    recs = []
    for i in range(3):
        recs.append({"type": "user", "sessionId": sid, "uuid": f"u-{i}", "cwd": "/tmp/proj",
                     "timestamp": f"2026-12-03T16:00:0{i}.000Z",
                     "message": {"role": "user", "content": f"line {i} with toucan-ember-3"}})
    t.write_text("".join(json.dumps(r) + "\n" for r in recs))
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    mem("import", "claude-code", env=env)
    writer = live_appender(t, sid, "/tmp/proj")
    time.sleep(0.5)
    ino = os.stat(t).st_ino
    mem("forget", "--match", "toucan-ember", "--yes", "--scrub-sources", env=env)
    assert writer.wait(timeout=60) == 0
    body = t.read_text()
    assert os.stat(t).st_ino == ino                        # the same file, written in place
    assert "toucan-ember" not in body
    assert sum(f'"live line {i}"' in body for i in range(30)) == 30, body
    lines = body.splitlines()
    assert all(json.loads(x) for x in lines) and len(lines) == 33
    r = mem("import", "claude-code", "--json", env=env).json
    assert r["lines_skipped"] == 0 and r["turns_added"] >= 1, r
    found = mem("search", "line", "--limit", "50", env=env).stdout
    assert "toucan" not in found and "line 0 with" not in found, found     # the forgotten prompts stay out


def test_real_transcripts_scrubbed_after_a_forget_bring_back_no_turn_and_no_summary(mem, tmp_path, store_path):
    """Tester test16 F1c, on the real claude-code-log transcripts: forget,
    gc, then ``--scrub-sources``: the next import added 6 turns and a second
    version of each sub-agent summary of the scrubbed session."""
    from tests.conftest import shared_path
    src = shared_path("data", "transcripts", "claude-code-log", "projects")
    shutil.copytree(src, tmp_path / "claude" / "projects")
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    mem("import", "claude-code", env=env)
    mem("forget", "--match", "git worktree", "--yes", env=env)
    mem("gc", "--prune=now", env=env)
    keys = mem("keys", "--json", env=env).stdout             # (the forget rewrote summaries citing the turns)
    mem("forget", "--match", "git worktree", "--yes", "--scrub-sources", env=env)
    for args in ((), ("--reread",)):
        r = mem("import", "claude-code", *args, "--json", env=env).json
        assert r["turns_added"] == 0, (args, r)
    assert mem("keys", "--json", env=env).stdout == keys          # no summary written again
    assert mem("search", "worktree", "--json", env=env, exit_code=None).stdout.lower().count("git worktree") == 0


def test_a_transcript_beside_a_captured_one_is_scanned_and_scrubbed_before_its_import(mem, tmp_path, store_path):
    """test16b B9: a second session's transcript in a captured transcript's
    folder, not imported yet, was out of ``mem scan`` ("found nowhere") and
    of ``--scrub-sources``, and the next import stored the forgotten text in
    the clear.  Both now read the ``*.jsonl`` files beside captured ones."""
    f = _claude_transcript(tmp_path)
    mem("import", "claude-code", str(f))
    later = f.with_name("34343434-2222-4333-8444-555555555555.jsonl")
    rec = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/home/dev/acme-api",
           "sessionId": later.stem, "version": "2.1.42", "timestamp": "2026-03-02T10:00:00.000Z", "type": "user",
           "message": {"role": "user", "content": f"again {SECRET} in a new session"},
           "uuid": "11111111-2222-4333-8444-666666666666"}
    later.write_text(json.dumps(rec) + "\n")
    (f.parent / "notes.txt").write_text(SECRET)                    # not a transcript's name: not read
    r = mem("scan", SECRET, "--no-remotes", exit_code=1)
    assert str(later) in r.stdout and "notes.txt" not in r.stdout, r.stdout
    mem("forget", "--match", SECRET, "--scrub-sources", "--yes")
    assert SECRET not in later.read_text() and "again" in later.read_text()
    mem("import", "claude-code", str(f.parent))
    assert "again" in mem("show", later.stem).stdout
    mem("gc", "--prune=now")
    from objstore import scan_store
    assert scan_store(store_path, [SECRET.encode()]) == []
    mem("scan", SECRET, "--no-remotes", exit_code=0)               # notes.txt still holds it: not a transcript
