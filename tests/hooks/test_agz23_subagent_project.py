"""test23 Z5: a sub-agent's summary written by ``SubagentStop`` when its
transcript cannot be read goes under its session's project (not ``global/``,
which every project is served), and ``mem forget --session`` reaches it when
the parent session has no turns."""

from __future__ import annotations

import subprocess
import sys

from tests.hooks._util import REPO, hook_env, payload, run_hook_done, wait_store_processes_gone

S = "47474747-2222-3333-4444-555555555555"
NO_TURNS = "46464646-2222-3333-4444-555555555555"


def _keys(store_path) -> list[str]:
    from objstore.memory.facts import list_keys
    from objstore.memory.opening import open_store
    with open_store(store_path) as s:
        return sorted(k for k, _h in list_keys(s))


def _stop(store_path, tmp_path, sid: str, cwd: str, final: str) -> None:
    rc, _out, err, _t = run_hook_done(store_path, payload(
        "SubagentStop", sid, None, cwd=cwd, agent_id="sub2", agent_transcript_path=str(tmp_path / "none.jsonl"),
        last_assistant_message=final))
    assert rc == 0, err


def test_an_unreadable_subagent_takes_its_sessions_project(store_path, tmp_path):
    api = tmp_path / "api"
    api.mkdir()
    rc, _o, err, _t = run_hook_done(store_path, payload("UserPromptSubmit", S, None, cwd=str(api),
                                                        prompt="check the server config"))
    assert rc == 0, err
    wait_store_processes_gone(store_path)   # the prompt's turn (its session's project) is the capture child's
    _stop(store_path, tmp_path, S, str(tmp_path / "elsewhere"), "The api uses gunicorn with 4 workers")
    assert _keys(store_path) == [f"project/api/summary/{S}.agent-sub2"]   # the session's project, not the event's
    other = tmp_path / "other"
    other.mkdir()
    rc, out, err, _t = run_hook_done(store_path, payload(
        "UserPromptSubmit", "49494949-2222-3333-4444-555555555555", None, cwd=str(other),
        prompt="how many gunicorn workers does it use?"))
    assert rc == 0, err
    assert "gunicorn" not in out          # another project is not served it


def test_a_session_with_no_turns_takes_the_cwds_project_and_forget_reaches_it(store_path, tmp_path):
    api = tmp_path / "api"
    api.mkdir()
    _stop(store_path, tmp_path, NO_TURNS, str(api), "The queue is redis 7")
    key = f"project/api/summary/{NO_TURNS}.agent-sub2"
    assert _keys(store_path) == [key]
    p = subprocess.run([sys.executable, "-m", "cmds", "forget", "--session", NO_TURNS[:8], "--yes"],
                       capture_output=True, text=True, env=hook_env(store_path), cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr
    assert _keys(store_path) == []
    # the session is forgotten as a whole: a later summary of it is not written either
    _stop(store_path, tmp_path, NO_TURNS, str(api), "The queue is redis 8 now")
    assert _keys(store_path) == []
