"""A hook event's ``transcript_path`` names a transcript or nothing (fresh42
F13): the file an event names becomes a source ``mem scan`` reads and
``forget --scrub-sources`` rewrites only when it is under the harnesses'
folders or its first records parse as a transcript; a path an older mem
recorded is checked again at scan and scrub time.  And a transcript whose
path holds a newline is scanned and scrubbed like any other (fresh42 F23).
Real hook processes (JSON events on stdin), real ``mem scan`` / ``forget``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.hooks._util import REPO, asst, line, payload, run_hook_done, text, user

SID = "7a0c1f3e-0000-4000-8000-0000000f1300"
SECRET = "victimsecret123"


def _env(tmp_path: Path) -> dict:
    """The hooks' environment with HOME (and so the harnesses' folders) under ``tmp_path``."""
    env = {k: v for k, v in os.environ.items()
           if (not k.startswith("MEM_") or k == "MEM_NO_HELPER") and k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME")}
    (tmp_path / "home").mkdir(exist_ok=True)
    env.update(MEM_HOME=str(tmp_path / "store"), HOME=str(tmp_path / "home"), HISTFILE=str(tmp_path / "nohist"))
    return env


def _mem(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=180)


def _store(tmp_path: Path) -> dict:
    env = _env(tmp_path)
    assert _mem(env, "init").returncode == 0
    r = _mem(env, "remember", "project/v/x", f"{SECRET} is a thing")
    assert r.returncode == 0, r.stderr
    return env


def _victim(tmp_path: Path) -> tuple[Path, bytes]:
    conf = tmp_path / "victim" / "app.conf"
    conf.parent.mkdir()
    body = f"db_host=prod\napi_note={SECRET} here\nother=keep\n".encode()
    conf.write_bytes(body)
    return conf, body


def _scan_and_scrub(env: dict) -> tuple[str, str]:
    scan = _mem(env, "scan", SECRET)
    scrub = _mem(env, "forget", "--match", SECRET, "--scrub-sources", "--yes")
    assert scrub.returncode == 0, scrub.stderr
    return scan.stdout + scan.stderr, scrub.stdout + scrub.stderr


def test_hook_event_naming_a_config_file_makes_no_source(tmp_path):
    env = _store(tmp_path)
    conf, body = _victim(tmp_path)
    for ev in ("Stop", "SessionEnd"):
        rc, _out, err, _t = run_hook_done(tmp_path / "store", payload(ev, SID, conf, cwd=str(tmp_path)), env=env)
        assert rc == 0, err
    cursors = tmp_path / "store" / "cache" / "cursors"
    assert not (cursors.is_dir() and any(str(conf) in p.read_text("utf-8", "replace") for p in cursors.glob("*.json")))
    scanned, scrubbed = _scan_and_scrub(env)
    assert str(conf) not in scanned and str(conf) not in scrubbed
    assert conf.read_bytes() == body


def test_cursor_an_older_mem_saved_is_checked_again(tmp_path):
    """A cursor naming a config file (what an older mem's hook saved) is no source."""
    env = _store(tmp_path)
    conf, body = _victim(tmp_path)
    code = ("import sys; from objstore import Store; from objstore.capture.cursors import Cursor, save_cursor; "
            "save_cursor(Store.open(sys.argv[1]), Cursor(sys.argv[2], session=sys.argv[3]))")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "store"), str(conf), SID], cwd=REPO, env=env,
                   check=True, timeout=60)
    scanned, scrubbed = _scan_and_scrub(env)
    assert str(conf) not in scanned and str(conf) not in scrubbed
    assert conf.read_bytes() == body


def test_a_transcript_outside_the_harness_folders_is_still_one(tmp_path):
    """The hook captures, scan lists and the scrub rewrites a real transcript wherever it is."""
    env = _store(tmp_path)
    t = tmp_path / "elsewhere" / f"{SID}.jsonl"
    t.parent.mkdir()
    t.write_bytes(line(user("u1", f"remember {SECRET} for the deploy", SID))
                  + line(asst("a1", "msg_1", [text("noted")], SID)))
    rc, _out, err, _t = run_hook_done(tmp_path / "store", payload("Stop", SID, t, cwd=str(tmp_path)), env=env)
    assert rc == 0, err
    scanned, scrubbed = _scan_and_scrub(env)
    assert str(t) in scanned and "redacted 1 line" in scrubbed
    assert SECRET not in t.read_text()


def test_a_transcript_path_holding_a_newline_is_scanned_and_scrubbed(tmp_path):
    env = _store(tmp_path)
    folder = tmp_path / "tn" / "proj\nx"
    folder.mkdir(parents=True)
    t = folder / "a\nb.jsonl"
    t.write_bytes(line(user("u1", f"keep {SECRET} in personal scratch space", SID))
                  + line(asst("a1", "msg_1", [text("ok")], SID)))
    r = _mem(env, "import", "claude-code", str(tmp_path / "tn"))
    assert r.returncode == 0, r.stderr
    scan = _mem(env, "scan", SECRET)
    assert "found nowhere" not in scan.stdout + scan.stderr
    scrub = _mem(env, "forget", "--match", SECRET, "--scrub-sources", "--yes")
    assert scrub.returncode == 0, scrub.stderr
    assert SECRET not in t.read_text()
    ledger = (tmp_path / "store" / "cache" / "imported-files").read_bytes()
    assert b"proj x" not in ledger


def test_a_jsonl_file_beside_a_transcript_that_is_none_is_left_alone(tmp_path):
    """Scan reads the ``*.jsonl`` files beside a captured transcript (the next import's); one that parses as no
    transcript (an app's JSONL log) is neither listed nor rewritten."""
    env = _store(tmp_path)
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / f"{SID}.jsonl").write_bytes(line(user("u1", "hello there", SID)) + line(asst("a1", "m1", [text("hi")], SID)))
    log = folder / "app-log.jsonl"
    body = json.dumps({"level": "info", "msg": f"token {SECRET} rotated"}).encode() + b"\n"
    log.write_bytes(body)
    r = _mem(env, "import", "claude-code", str(folder / f"{SID}.jsonl"))
    assert r.returncode == 0, r.stderr
    scanned, scrubbed = _scan_and_scrub(env)
    assert str(log) not in scanned and str(log) not in scrubbed
    assert log.read_bytes() == body


def test_scrub_captured_never_rewrites_a_file_that_is_no_transcript(tmp_path, monkeypatch):
    """The writer's own check (a list made before the file changed, or by another caller)."""
    from objstore import Store, scrub_captured
    env = _store(tmp_path)
    conf, body = _victim(tmp_path)
    monkeypatch.setenv("HOME", env["HOME"])
    assert scrub_captured(Store.open(tmp_path / "store"), conf, SECRET) == 0
    assert conf.read_bytes() == body


def test_the_harnesses_own_settings_are_no_transcripts(tmp_path):
    """Only the harnesses' transcript folders are trusted by place (``projects``, ``sessions``), not their whole
    folders: ``$CLAUDE_CONFIG_DIR/settings.json`` or ``$CODEX_HOME/auth.json`` named by an event gets no cursor
    (session 42's first version trusted ``$CLAUDE_CONFIG_DIR`` and ``$CODEX_HOME`` whole)."""
    env = _store(tmp_path)
    cc, cx = tmp_path / "cc", tmp_path / "cx"
    (cc / "projects").mkdir(parents=True)
    (cx / "sessions").mkdir(parents=True)
    env.update(CLAUDE_CONFIG_DIR=str(cc), CODEX_HOME=str(cx))
    settings, auth = cc / "settings.json", cx / "auth.json"
    bodies = {settings: f'{{\n  "env": {{"NOTE": "{SECRET}"}}\n}}\n'.encode(),
              auth: f'{{"OPENAI_API_KEY": "{SECRET}"}}\n'.encode()}
    for f, b in bodies.items():
        f.write_bytes(b)
    for data in (payload("Stop", SID, settings, cwd=str(tmp_path)),
                 payload("SubagentStop", SID, None, cwd=str(tmp_path), agent_id="a1", agent_transcript_path=str(auth))):
        rc, _out, err, _t = run_hook_done(tmp_path / "store", data, env=env)
        assert rc == 0, err
    cursors = tmp_path / "store" / "cache" / "cursors"
    named = [p.read_text("utf-8", "replace") for p in cursors.glob("*.json")] if cursors.is_dir() else []
    assert not any(str(f) in c for f in bodies for c in named)
    scanned, scrubbed = _scan_and_scrub(env)
    assert all(str(f) not in scanned + scrubbed and f.read_bytes() == b for f, b in bodies.items())


def test_a_file_in_a_project_folder_that_is_no_transcript_is_left_alone(tmp_path):
    """A Claude Code project folder holds other files too (``memory/MEMORY.md``): by place only a ``*.jsonl`` file
    is a transcript; another one must parse as one."""
    env = _store(tmp_path)
    notes = Path(env["HOME"]) / ".claude" / "projects" / "-tmp-p" / "memory" / "MEMORY.md"
    notes.parent.mkdir(parents=True)
    body = f"# notes\n- the staging token is {SECRET}\n".encode()
    notes.write_bytes(body)
    rc, _out, err, _t = run_hook_done(tmp_path / "store", payload("Stop", SID, notes, cwd=str(tmp_path)), env=env)
    assert rc == 0, err
    scanned, scrubbed = _scan_and_scrub(env)
    assert str(notes) not in scanned and str(notes) not in scrubbed
    assert notes.read_bytes() == body


def test_a_transcript_in_the_harness_folder_with_a_damaged_first_line_is_scrubbed(tmp_path):
    """Under the harness's folder a ``*.jsonl`` file is a transcript whatever its first lines: what scan lists
    the scrub rewrites (it gets the same folders)."""
    env = _store(tmp_path)
    t = Path(env["HOME"]) / ".claude" / "projects" / "-tmp-p" / f"{SID}.jsonl"
    t.parent.mkdir(parents=True)
    t.write_bytes(b'{"type": "user", "message": {"role": "user", "cont\n'
                  + line(user("u1", f"remember {SECRET} for the deploy", SID))
                  + line(asst("a1", "msg_1", [text("noted")], SID)))
    rc, _out, err, _t = run_hook_done(tmp_path / "store", payload("Stop", SID, t, cwd=str(tmp_path)), env=env)
    assert rc == 0, err
    scanned, scrubbed = _scan_and_scrub(env)
    assert str(t) in scanned and "redacted 1 line" in scrubbed
    assert SECRET not in t.read_text()


def test_a_transcript_whose_first_prompt_is_longer_than_the_sniff_is_one(tmp_path):
    """Outside the harnesses' folders a transcript is told by its first records: a first prompt longer than the
    64 KiB first read (a pasted log) is read to its end, not taken for no transcript."""
    env = _store(tmp_path)
    t = tmp_path / "elsewhere" / f"{SID}.jsonl"
    t.parent.mkdir()
    t.write_bytes(line(user("u1", f"here is the log, {SECRET} included: " + "x" * 100_000, SID))
                  + line(asst("a1", "msg_1", [text("read it")], SID)))
    rc, _out, err, _t = run_hook_done(tmp_path / "store", payload("Stop", SID, t, cwd=str(tmp_path)), env=env)
    assert rc == 0, err
    assert "here is the log" in _mem(env, "show", SID).stdout   # captured
    scanned, scrubbed = _scan_and_scrub(env)
    assert str(t) in scanned and "redacted 1 line" in scrubbed
    assert SECRET not in t.read_text()


def test_a_torn_line_leaves_a_transcript_one_and_a_pasted_record_makes_no_notes_file_one(tmp_path):
    """The shipped sample transcript has a torn line (a crash mid-write) among its first records: still a
    transcript outside the harnesses' folders (session 42's first version said no, and the scrub left it holding
    the text: tests/cmds/test_fix16_scrubbed_records.py).  A notes file quoting a record, an app's rows of
    ``{"id": …}`` (Codex's legacy header shape) and one-line JSON configs are none."""
    from objstore import is_transcript_file
    sample = Path(REPO) / "cmds" / "data" / "sample-projects" / "-home-dev-acme-api" / \
        "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11.jsonl"
    copy = tmp_path / "t.jsonl"
    copy.write_bytes(sample.read_bytes())
    assert b"truncated line" in copy.read_bytes() and is_transcript_file(copy)
    odd = tmp_path / "odd.jsonl"   # an odd object among records: still one
    odd.write_bytes(line(user("u1", "hello", SID)) + b'{"silly": 1}\n' + line(asst("a1", "m1", [text("hi")], SID)))
    assert is_transcript_file(odd)
    others = {"notes.md": b"# notes\nthe record we saw:\n" + line(user("u1", "hello", SID)) + b"that was it\n",
              "rows.jsonl": b'{"id": "c1", "name": "acme"}\n{"id": "c2", "name": "initech"}\n',   # no Codex header
              "device.json": b'{"id": "d1", "key": "k"}\n', "prefs.json": b'{"type": "user", "theme": "dark"}\n',
              "app.log": b'{"level": "info", "msg": "up"}\n' * 3}
    for name, body in others.items():
        (tmp_path / name).write_bytes(body)
        assert not is_transcript_file(tmp_path / name), name


def test_an_event_log_whose_rows_carry_type_and_uuid_is_no_transcript(tmp_path):
    """test43 T12: an app's event log, rows ``{"type": "request", "uuid": …}``, passed the check (any ``type`` with
    ``uuid`` was a Claude Code record), so scan read it and the scrub rewrote it.  A type Claude Code never wrote
    now counts only with the whole envelope (``sessionId`` and ``uuid``)."""
    env = _store(tmp_path)
    log = tmp_path / "app" / "events.jsonl"
    log.parent.mkdir()
    body = b"".join(json.dumps({"type": "request", "uuid": f"5f0c1a2b-0000-4000-8000-00000000000{i}", "ts": i,
                                "path": "/api/login", "note": f"token {SECRET} sent", "status": 200}).encode() + b"\n"
                    for i in range(6))
    log.write_bytes(body)
    for ev in ("SessionStart", "Stop"):
        rc, _out, err, _t = run_hook_done(tmp_path / "store", payload(ev, SID, log, cwd=str(tmp_path)), env=env)
        assert rc == 0, err
    scanned, scrubbed = _scan_and_scrub(env)
    assert str(log) not in scanned and str(log) not in scrubbed
    assert log.read_bytes() == body
