"""Lane red14: a credential in a path mem would write in the clear — a
transcript's folder (``…/sk-ant-…/x.jsonl``), a hook event's
``transcript_path``, the ``cwd`` of the records ``mem import`` reads — by
the one path rule (``objstore.core.redact.path_holds_credential``): the
file is skipped and counted, the hook fails open with a log line without
the value, a turn is stored without its working directory and project.
Real files, real ``mem`` processes; every credential here is fake."""

from __future__ import annotations

import json

from tests.hooks._util import asst, files_holding as _files_holding, hook_env, line, payload, run_hook, text, turns, user

ANT = "sk-ant-api03-" + "Qm9vZ1x7Tz3RkP0aLw9vN2cYd8Hf1JeUq4sX"
AKIA = "AKIA" + "2E0A8F3B244C9986"




def _in_store(mem, secret: str) -> list:
    r = mem("scan", secret, "--no-remotes", "--json", exit_code=None)
    return [h for h in (json.loads(r.stdout) if r.stdout.strip() else []) if h["place"] != "transcript"]


def test_import_skips_a_transcript_whose_folder_holds_a_credential(tmp_path, mem, store_path):
    bad = tmp_path / "cc" / f"-home-dev-{ANT}" / "5d1e6f0a-0000-4000-8000-00000000f001.jsonl"
    good = tmp_path / "cc" / "-home-dev-app" / "5d1e6f0a-0000-4000-8000-00000000f002.jsonl"
    for p in (bad, good):
        p.parent.mkdir(parents=True)
        p.write_bytes(line(user("u1", "what runs the tests", p.stem, cwd="/home/dev/app"))
                      + line(asst("a1", "m" + p.stem[-1], [text("pytest")], p.stem, cwd="/home/dev/app")))
    r = mem("import", "claude-code", str(tmp_path / "cc"), exit_code=None)
    assert "folder holds a credential" in r.stderr and ANT not in r.stdout + r.stderr, r.stderr
    assert {x[0] for x in turns(store_path)} == {good.stem}
    assert _in_store(mem, ANT) == [] and _files_holding(store_path, ANT) == []


def test_import_stores_a_turn_without_a_cwd_that_holds_a_credential(tmp_path, mem, store_path):
    cwd = f"/home/dev/{AKIA}/proj"
    t = tmp_path / "cc" / "-home-dev-x" / "5d1e6f0a-0000-4000-8000-00000000f011.jsonl"
    t.parent.mkdir(parents=True)
    t.write_bytes(line(user("u1", "which port", t.stem, cwd=cwd))
                  + line(asst("a1", "m1", [text("8080")], t.stem, cwd="/home/dev/plain")))
    r = mem("import", "claude-code", str(tmp_path / "cc"), "--json")
    assert json.loads(r.stdout)["paths_refused"] == 1, r.stdout
    from objstore.memory.opening import open_store
    from objstore.memory.sessions import walk_turns
    with open_store(store_path) as s:
        got = sorted((tv.turn.text, tv.turn.cwd, tv.turn.project) for _n, h in s.refs.iter("sessions")
                     for tv in walk_turns(s, h))
    assert got == [("8080", "/home/dev/plain", "plain"), ("which port", "", "")], got   # the text is kept
    assert _in_store(mem, AKIA) == [] and _files_holding(store_path, AKIA) == []


def test_a_hook_event_whose_transcript_path_holds_a_credential_is_skipped_and_fails_open(tmp_path, mem,
                                                                                          store_path):
    mem("init")
    env = hook_env(store_path, MEM_HOOK_FORK="0")
    t = tmp_path / "projects" / f"-home-dev-{ANT}" / "S1.jsonl"
    t.parent.mkdir(parents=True)
    t.write_bytes(line(user("u1", "the build uses zebracanary", "S1")) + line(asst("a1", "m1", [text("ok")], "S1")))
    for ev, kw in (("UserPromptSubmit", {"prompt": "what db do we use"}), ("Stop", {})):
        rc, out, err, _s = run_hook(store_path, payload(ev, "S1", t, cwd=str(tmp_path), **kw), env=env)
        assert (rc, out) == (0, ""), err
    log = (store_path / "logs" / "hooks.log").read_text()
    assert log.count("transcript-path-credential") == 2 and ANT not in log, log
    assert not turns(store_path)
    assert _files_holding(store_path, ANT) == []


def test_import_never_echoes_a_malformed_session_id_that_holds_a_credential(tmp_path, mem, store_path):
    mem("init")
    sid = "sk-ant-api03-" + "Z" * 95          # too long for a session id, and a credential
    t = tmp_path / "cc" / "-home-dev-app" / "5d1e6f0a-0000-4000-8000-00000000f021.jsonl"
    t.parent.mkdir(parents=True)
    t.write_bytes(line(user("u1", "hello", sid)) + line(asst("a1", "m1", [text("hi")], sid)))
    r = mem("import", "claude-code", str(tmp_path / "cc"), "--reread", exit_code=None)
    assert "a session id holds a credential" in r.stderr and "Z" * 20 not in r.stdout + r.stderr, r.stderr
    assert not turns(store_path)
