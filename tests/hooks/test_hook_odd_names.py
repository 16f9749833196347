"""Issue 21, re-attack item 7: a project folder named like ``svc@v2`` and a
session id ending in ``.lock`` go through capture and reading end to end,
with real ``mem`` processes.  Before the fix the hook logged
``InvalidInput:capture`` for the session (its turns were never stored, and
``mem import`` skipped the file), and a "remember that …" prompt in the
folder logged ``InvalidInput:remember`` (key ``project/svc@v2/…``)."""

from __future__ import annotations

import json

from tests.hooks._util import asst, hook_env, hook_log, line, payload, run_hook_done, store_as_it_was, text, user

SID = "abc.lock"


def _transcript(tmp_path, cwd, sid=SID):
    t = tmp_path / "cc" / f"{sid}.jsonl"
    t.parent.mkdir(parents=True, exist_ok=True)
    t.write_bytes(line(user("u1", "remember that the frobnicator port is 7411", sid, cwd=str(cwd)))
                  + line(asst("a1", "m1", [text("noted the frobnicator port")], sid, cwd=str(cwd),
                              message={"id": "m1", "role": "assistant", "model": "claude",
                                       "stop_reason": "end_turn",
                                       "content": [text("noted the frobnicator port")]})))
    return t


def test_a_folder_with_an_at_and_a_session_id_ending_in_lock(tmp_path, mem):
    store = tmp_path / "store"
    proj = tmp_path / "svc@v2"
    proj.mkdir()
    t = _transcript(tmp_path, proj)
    env = hook_env(store, MEM_HOOK_FORK="0")
    for ev, extra in (("SessionStart", {"source": "startup"}),
                      ("UserPromptSubmit", {"prompt": "remember that the frobnicator port is 7411"}),
                      ("Stop", {"last_assistant_message": "noted the frobnicator port"})):
        # (again while it met its budget or logged a failure; the prompt on the store as it was: the
        # remembered key is what is checked)
        reset = store_as_it_was(store, tmp_path / "store-before") if ev == "UserPromptSubmit" else None
        rc, out, _err, _dt = run_hook_done(store, payload(ev, SID, t, cwd=str(proj), **extra), env=env, reset=reset)
        assert rc == 0
        if ev == "UserPromptSubmit":
            ctx = json.loads(out)["hookSpecificOutput"]["additionalContext"]
            assert "project/svc-v2/remembered/frobnicator-port" in ctx
    assert "InvalidInput" not in hook_log(store)
    e = {"MEM_HOME": str(store)}
    sessions = mem("sessions", "--json", env=e).json
    assert [(s["id"], s["project"], s["turns"]) for s in sessions] == [(SID, "svc-v2", 2)]
    assert "the frobnicator port is 7411" in mem("show", SID, env=e).stdout
    assert mem("get", "project/svc-v2/remembered/frobnicator-port", env=e).stdout.strip() \
        == "the frobnicator port is 7411"
    hits = mem("recall", "frobnicator", "--all-projects", "--json", env=e).json
    assert any(h.get("session") == SID for h in hits["hits"] if h["kind"] == "turn")
    # a key naming the folder as it is written is refused with a usage error that names the project
    r = mem("remember", "project/svc@v2/port", "1", env=e, exit_code=2)
    assert "is project svc-v2" in r.stderr
    assert mem("fsck", env=e).stdout.startswith("ok:")
    mem("forget", "--session", SID, "--yes", env=e)
    assert mem("sessions", "--json", env=e).json == []
    assert mem("show", SID, env=e, exit_code=4)
    # the same transcript imported into a fresh store: the same session, not skipped
    e2 = {"MEM_HOME": str(tmp_path / "store2")}
    r = mem("import", "claude-code", str(t.parent), env=e2)
    assert "not usable" not in r.stderr
    assert [(s["id"], s["turns"]) for s in mem("sessions", "--json", env=e2).json] == [(SID, 2)]
