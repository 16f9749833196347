"""Lane red13, credentials that still reached the store or stayed behind:
a password on the line after its label with prose after it (and a label
alone on its line); a session id or agent name holding a credential that
came from a transcript's file name, the shell hook's ``--session`` or a
``mem import jsonl`` record; shell history files that ``mem scan`` reads
but ``mem forget --scrub-sources`` left as they were.  Real files, real
``mem`` processes; every credential here is fake."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.hooks._util import REPO, asst, hook_env, line, text, turns, user

GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
ANT = "sk-ant-api03-" + "Qm9vZ1x7Tz3RkP0aLw9vN2cYd8Hf1JeUq4sX"
PW = "PlumTree#77"


def _nowhere(mem, secret: str) -> None:
    r = mem("scan", secret, "--no-remotes", exit_code=0)
    assert "found nowhere" in r.stdout, r.stdout + r.stderr


def _not_stored(mem, secret: str) -> None:
    """``mem scan`` finds ``secret`` only in the transcript it was imported from."""
    r = mem("scan", secret, "--no-remotes", "--json", exit_code=None)
    assert not [h for h in (r.json if r.stdout.strip() else []) if h["place"] != "transcript"], r.json


# -- 1: the password on the label's next line, prose after it --------------------------------------
@pytest.mark.parametrize("value, rest", [
    (f"Password:\n{PW} is set for the db", " is set for the db"),
    (f"password\n{PW}", ""),
    (f"Username\nadmin\nPassword\n{PW}\nHost\ndb1", "\nHost\ndb1"),
])
def test_remember_redacts_the_password_and_keeps_the_prose(mem, value, rest):
    mem("remember", "project/db/note", value)
    got = mem("get", "project/db/note").stdout
    assert PW not in got and got.rstrip("\n").endswith("[REDACTED:generic-secret]" + rest), got
    _nowhere(mem, PW)


def test_a_transcript_with_the_password_on_the_next_line_stores_it_redacted(tmp_path, mem, store_path):
    t = tmp_path / "cc" / "-home-u-proj" / "5d1e6f0a-0000-4000-8000-00000000d0b1.jsonl"
    t.parent.mkdir(parents=True)
    sid = t.stem
    t.write_bytes(line(user("u1", f"the db login is\nPassword:\n{PW} is set for the db", sid))
                  + line(asst("a1", "m1", [text("noted")], sid)))
    mem("import", "claude-code", str(t.parent.parent))
    stored = [x[3] for x in turns(store_path)]
    assert any("[REDACTED:generic-secret] is set for the db" in s for s in stored), stored
    _not_stored(mem, PW)


# -- 2: names from a transcript's file name, the shell hook's --session, an export's fields ----------
def _transcript(folder, name: str, sid: str | None, words: str) -> None:
    rec = user("u-" + words, f"remember the {words}", sid or "x")
    if sid is None:
        del rec["sessionId"]          # the session id is then the file's name
    (folder / name).write_bytes(line(rec))


def test_import_skips_a_transcript_named_with_a_credential_and_counts_it(tmp_path, mem, store_path):
    proj = tmp_path / "cc" / "-home-u-proj"
    proj.mkdir(parents=True)
    _transcript(proj, f"{GHP}.jsonl", None, "wombat flag")         # session id from the file name
    _transcript(proj, f"{ANT}.jsonl", "5d1e6f0a-0000-4000-8000-0000000000a1", "numbat flag")
    _transcript(proj, "ok-1.jsonl", "ok-1", "quokka flag")
    r = mem("import", "claude-code", str(tmp_path / "cc"), "--json")
    assert r.json["files"] == 1 and r.json["files_skipped"] == 2, r.json
    warned = [e for e in r.json["errors"] if "file name holds a credential" in e]
    assert len(warned) == 2 and all("[REDACTED].jsonl" in e for e in warned), r.json["errors"]
    assert GHP not in r.stdout + r.stderr and ANT not in r.stdout + r.stderr
    assert {x[0] for x in turns(store_path)} == {"ok-1"}
    for secret in (GHP, ANT, "wombat flag", "numbat flag"):
        _nowhere(mem, secret)                                   # not in refs, ledgers, logs, index
    r = mem("import", "claude-code", str(tmp_path / "cc"))    # again: skipped again, said in the summary
    assert "and skipped 2" in r.stdout and r.stderr.count("file name holds a credential") == 2, r.stdout + r.stderr


def test_import_skips_the_turns_of_a_session_id_holding_a_credential(tmp_path, mem, store_path):
    proj = tmp_path / "cc" / "-home-u-proj"
    proj.mkdir(parents=True)
    t = proj / "5d1e6f0a-0000-4000-8000-0000000000b2.jsonl"
    t.write_bytes(line(user("u1", "remember the wombat flag", ANT)) + line(user("u2", "and the quokka flag", "ok-2")))
    r = mem("import", "claude-code", str(t))
    assert "a session id holds a credential" in r.stderr and ANT not in r.stdout + r.stderr, r.stderr
    assert [x[0] for x in turns(store_path)] == ["ok-2"]
    _not_stored(mem, ANT)


def test_a_session_id_holding_a_credential_goes_in_no_store_file(tmp_path, mem, store_path):
    # session 14's last tester: the lineage check (a session's first assistant message) wrote
    # "<hash> <session id>" to cache/lineage.log before the appender refused the session
    proj = tmp_path / "cc" / "-home-u-proj"
    proj.mkdir(parents=True)
    t = proj / "5d1e6f0a-0000-4000-8000-0000000000b3.jsonl"
    t.write_bytes(line(user("u1", "which flag", ANT)) + line(asst("a1", "msg_lin1", [text("the wombat flag")], ANT))
                  + line(user("u2", "and the quokka flag", "ok-3")))
    r = mem("import", "claude-code", str(t))
    assert "a session id holds a credential" in r.stderr and ANT not in r.stdout + r.stderr, r.stderr
    assert [x[0] for x in turns(store_path)] == ["ok-3"]
    held = [p for p in store_path.rglob("*") if p.is_file() and ANT.encode() in p.read_bytes()]
    assert held == [], held
    _not_stored(mem, ANT)


def _shell(env, session: str, i: int, command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", "hook", "shell", "--session", session, "--cwd", "/tmp",
                           "--status", "0", "--start", str(1767225600000 + i * 1000), "--duration", "5"],
                          input=command, capture_output=True, text=True, env=env, cwd=REPO, timeout=120)


@pytest.mark.parametrize("session", [GHP, f"shell-1.agent-{ANT}"])
def test_the_shell_hook_skips_a_session_holding_a_credential_and_fails_open(mem, store_path, session):
    env = hook_env(store_path, MEM_SHELL_CAPTURE="1")
    mem("init")
    p = _shell(env, session, 0, "make wombat")
    assert p.returncode == 0 and p.stdout == "" and p.stderr == "", p
    assert _shell(env, "shell-ok", 1, "make quokka").returncode == 0
    assert [(x[0], x[3].splitlines()[0]) for x in turns(store_path)] == [("shell-ok", "$ make quokka")]
    log = (store_path / "logs" / "hooks.log").read_text()
    assert "shell command - HookInputError:session-id-credential" in log and GHP not in log and ANT not in log
    _nowhere(mem, GHP if session == GHP else ANT)


def _export_line(obj_fields: dict, kind: str = "fact") -> dict:
    from objstore.core.codec import object_id
    from objstore.core.objects import TYPE_NAMES
    return {"object": kind, "id": object_id(TYPE_NAMES[kind](**obj_fields)), "fields": obj_fields}


FACT = {"key": "project/x/port", "kind": "project", "body": "5432", "version": 1, "parent": None,
        "valid_from": 1, "recorded_at": 1, "trust": "user_stated", "sensitivity": "private", "owner": "user",
        "sources": (), "pinned": False, "namespace": "S1"}


@pytest.mark.parametrize("fields, field", [
    ({"owner": ANT}, "agent"),
    ({"namespace": f"S1.agent-{GHP}"}, "agent"),
    ({"namespace": GHP}, "session"),
])
def test_import_jsonl_refuses_a_name_holding_a_credential_naming_the_field(tmp_path, mem, fields, field):
    rec = _export_line({**FACT, **fields})
    rec["fields"]["sources"] = []
    f = tmp_path / "e.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in ({"format": "mem-export/1", "created": 1, "scope": None}, rec,
                                                   {"ref": "facts/project/x/port", "id": rec["id"]})) + "\n")
    r = mem("import", "jsonl", str(f), exit_code=2)
    assert f"line 2: the {field} holds a credential" in r.stderr, r.stderr
    assert GHP not in r.stderr and ANT not in r.stderr
    mem("remember", "project/y/host", "db1")            # a store to scan; the export's fact is not in it
    mem("get", "project/x/port", exit_code=4)
    _nowhere(mem, ANT if ANT in json.dumps(fields) else GHP)


def test_import_jsonl_refuses_a_turn_whose_session_holds_a_credential(tmp_path, mem):
    turn = {"session": ANT, "seq": 0, "role": "user", "text": "hi", "timestamp": 1, "harness": "claude-code",
            "cwd": "", "project": "", "source": "cc:u1", "parent": None}
    rec = _export_line(turn, "turn")
    f = tmp_path / "e.jsonl"
    f.write_text(json.dumps({"format": "mem-export/1", "created": 1, "scope": None}) + "\n" + json.dumps(rec) + "\n")
    r = mem("import", "jsonl", str(f), exit_code=2)
    assert "line 2: the session holds a credential" in r.stderr and ANT not in r.stderr, r.stderr


# -- 3: forget --scrub-sources rewrites the shell history files mem scan reads ---------------------
SECRET = "wombat7731secret"


def _histories(home) -> dict:
    fish = home / ".local" / "share" / "fish" / "fish_history"
    fish.parent.mkdir(parents=True)
    files = {
        home / ".bash_history": b"ls\n#1767225600\nexport TOKEN=" + SECRET.encode() + b"\nmake\n",
        home / ".zsh_history": (b": 1767225600:0;curl -H 'x: " + SECRET.upper().encode() + b"'\n"
                                b": 1767225601:0;ls \xe9\xff\n"),      # not UTF-8: kept byte for byte
        fish: b"- cmd: echo " + SECRET.encode() + b" && ls\n  when: 1767225600\n- cmd: make\n  when: 1767225601\n",
    }
    for p, data in files.items():
        p.write_bytes(data)
        p.chmod(0o600)
    return files


def test_forget_scrub_sources_rewrites_the_shell_histories_and_scan_finds_nothing(tmp_path, mem, store_path):
    home = tmp_path / "home"
    files = _histories(home)
    env = hook_env(store_path, MEM_SHELL_CAPTURE="1")
    assert _shell(env, "shell-1", 0, f"echo {SECRET}").returncode == 0
    r = mem("scan", SECRET, "--no-remotes", "--json", exit_code=1)
    assert {h["where"] for h in r.json if h["place"] == "file"} == {str(p) for p in files}, r.json
    r = mem("forget", "--match", SECRET, "--scrub-sources", "--yes")
    for p in files:
        assert f"shell history {p}: the text is on 1 line" in r.stdout, r.stdout
    assert "a shell still open keeps its own history" in r.stderr
    assert (home / ".bash_history").read_bytes() == b"ls\n#1767225600\nexport TOKEN=[REDACTED]\nmake\n"
    assert (home / ".zsh_history").read_bytes() == (b": 1767225600:0;curl -H 'x: [REDACTED]'\n"
                                                    b": 1767225601:0;ls \xe9\xff\n")
    assert files and all(os.stat(p).st_mode & 0o777 == 0o600 for p in files)
    assert b"- cmd: echo [REDACTED] && ls\n  when: 1767225600\n" in (home / ".local/share/fish/fish_history").read_bytes()
    _nowhere(mem, SECRET)


def test_scrub_sources_alone_reaches_a_linked_history_and_keeps_the_link(tmp_path, mem, store_path):
    home = tmp_path / "home"
    real = tmp_path / "dotfiles" / "bash_history"
    real.parent.mkdir()
    real.write_bytes(b"echo " + SECRET.encode() + b"\npwd\n")
    (home / ".bash_history").symlink_to(real)
    mem("remember", "project/x/host", "db1")
    r = mem("forget", "--match", SECRET, "--scrub-sources", "--dry-run")
    assert "would scrub 0 transcript files and 1 shell history file" in r.stdout, r.stdout
    assert SECRET.encode() in real.read_bytes()
    r = mem("forget", "--match", SECRET, "--scrub-sources", "--yes", "--json")
    assert r.json["sources_scrubbed"] == [str(home / ".bash_history")], r.json
    assert (home / ".bash_history").is_symlink() and real.read_bytes() == b"echo [REDACTED]\npwd\n"
    _nowhere(mem, SECRET)


def test_scan_and_scrub_read_histfile_and_name_the_histories_they_read(tmp_path, mem, store_path):
    """test27 V17: a custom ``$HISTFILE`` holding the token was never read,
    and "found nowhere: …, the shell history" read as an all-clear.  It is
    read (and scrubbed) when the command is given it, and a scan that finds
    nothing names the history files it read."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    custom = tmp_path / "hist" / "my_history"
    custom.parent.mkdir()
    custom.write_bytes(b"ls\nexport API_TOKEN=" + SECRET.encode() + b"\n")
    mem("remember", "user/editor", "helix")
    r = mem("scan", SECRET, "--no-remotes")
    assert r.stdout.startswith("found nowhere") and "no shell history file" in r.stdout, r.stdout
    env = {"HISTFILE": str(custom)}
    r = mem("scan", SECRET, "--no-remotes", "--json", env=env, exit_code=1)
    assert [h["where"] for h in r.json] == [str(custom)], r.json
    r = mem("forget", "--match", SECRET, "--scrub-sources", "--yes", env=env)
    assert f"shell history {custom}: the text is on 1 line" in r.stdout, r.stdout
    assert custom.read_bytes() == b"ls\nexport API_TOKEN=[REDACTED]\n"
    r = mem("scan", SECRET, "--no-remotes", env=env)
    assert r.stdout.startswith("found nowhere") and str(custom) in r.stdout, r.stdout
