"""Lane fix18b (tester finding U6): a transcript a hook *finds* rather than
is given — by the session's id under ``$CLAUDE_CONFIG_DIR/projects`` when
the event's ``transcript_path`` is stale, a neighbour the SessionStart
catch-up lists in a known folder, a sub-agent file under the session's
folder — gets the rule of a given path and of ``mem import``
(``objstore.transcript_refused``): a path holding a credential is not read,
no cursor names it, the hook logs ``transcript-path-credential`` and exits
0.  Real files, real ``mem hook`` processes; every credential here is fake."""

from __future__ import annotations

from tests.hooks._util import asst, files_holding, hook_env, line, payload, run_hook, run_hook_done, text, turns, user

GH = "ghp_" + "Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"
SID = "abababab-2222-3333-4444-555555555555"


def _transcript(path, sid, said):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(line(user("u-" + said, said, sid)) + line(asst("a-" + said, "m-" + said, [text("ok")], sid)))


def test_a_transcript_found_by_session_id_in_a_credential_folder_is_not_read(tmp_path, mem, store_path):
    mem("init")
    claude = tmp_path / "claude"
    _transcript(claude / "projects" / f"-tmp-{GH}" / f"{SID}.jsonl", SID, "hello from a cred dir")
    env = hook_env(store_path, MEM_HOOK_FORK="0", CLAUDE_CONFIG_DIR=str(claude))
    stale = tmp_path / "gone" / "x.jsonl"          # Claude Code names a file that is not (yet) there
    for ev, kw in (("UserPromptSubmit", {"prompt": "second prompt"}), ("Stop", {}), ("SessionEnd", {})):
        rc, out, err, _s = run_hook(store_path, payload(ev, SID, stale, cwd=str(tmp_path), **kw), env=env)
        assert (rc, out) == (0, ""), err
    log = (store_path / "logs" / "hooks.log").read_text()
    assert log.count("transcript-path-credential") == 3 and GH not in log, log
    assert turns(store_path) == []                 # as the given path: nothing of the session stored
    assert files_holding(store_path, "Q9w2E3r4") == []      # no cursor, ledger or log names the path


def test_a_transcript_found_by_session_id_in_a_sound_folder_is_still_read(tmp_path, mem, store_path):
    mem("init")
    claude = tmp_path / "claude"
    _transcript(claude / "projects" / "-tmp-app" / f"{SID}.jsonl", SID, "hello from a sound dir")
    env = hook_env(store_path, MEM_HOOK_FORK="0", CLAUDE_CONFIG_DIR=str(claude))
    rc, _out, err, _s = run_hook_done(store_path, payload("Stop", SID, tmp_path / "gone.jsonl", cwd=str(tmp_path)),
                                      env=env)
    assert rc == 0, err
    assert "hello from a sound dir" in {t[3] for t in turns(store_path)}


def test_catch_up_does_not_read_a_neighbour_whose_name_holds_a_credential(tmp_path, mem, store_path):
    mem("init")
    folder = tmp_path / "claude" / "projects" / "-home-dev-app"
    known = folder / f"{SID}.jsonl"
    _transcript(known, SID, "the first session")
    env = hook_env(store_path, MEM_HOOK_FORK="0", CLAUDE_CONFIG_DIR=str(tmp_path / "claude"))
    rc, _o, err, _s = run_hook_done(store_path, payload("SessionEnd", SID, known, cwd=str(tmp_path)), env=env)
    assert rc == 0, err
    # a later file beside it, named after a credential (import skips it: "the file name holds a credential")
    _transcript(folder / f"{GH}.jsonl", "cdcdcdcd-2222-3333-4444-555555555555", "a neighbour named after a token")
    sid2 = "efefefef-2222-3333-4444-555555555555"
    _transcript(folder / f"{sid2}.jsonl", sid2, "the second session")
    rc, _o, err, _s = run_hook_done(store_path, payload("SessionStart", sid2, folder / f"{sid2}.jsonl",
                                                         cwd=str(tmp_path), source="startup"), env=env)
    assert rc == 0, err
    said = {t[3] for t in turns(store_path)}
    assert "the second session" in said and "a neighbour named after a token" not in said, said
    assert files_holding(store_path, "Q9w2E3r4") == []


def test_a_subagent_file_under_a_credential_folder_is_not_read(tmp_path, mem, store_path):
    mem("init")
    folder = tmp_path / "claude" / "projects" / "-home-dev-app"
    main = folder / f"{SID}.jsonl"
    _transcript(main, SID, "the main session")
    sub = main.with_suffix("") / "subagents" / GH / "agent-a1b2c3.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_bytes(line(user("su1", "sub-agent task text", SID, isSidechain=True, agentId="a1b2c3"))
                    + line(asst("sa1", "ms1", [text("sub-agent answer")], SID, isSidechain=True, agentId="a1b2c3")))
    env = hook_env(store_path, MEM_HOOK_FORK="0", CLAUDE_CONFIG_DIR=str(tmp_path / "claude"))
    rc, _o, err, _s = run_hook_done(store_path, payload("SessionEnd", SID, main, cwd=str(tmp_path)), env=env)
    assert rc == 0, err
    said = {t[3] for t in turns(store_path)}
    assert "the main session" in said and not any("sub-agent" in s for s in said), said
    assert files_holding(store_path, "Q9w2E3r4") == []
