"""Session 12's tester, names (lane fix12): the names a write takes from its
caller's environment or a hook event get the one name rule
(``check_key_credentials``) too.  ``MEM_AGENT`` names the owner a version or
proposal stores, ``mem memory propose --by`` and ``MEM_SESSION`` a
proposal's owner and session: a credential in one is refused with exit 2,
naming the field, as ``--agent`` is.  A hook event whose ``session_id`` (or
``agent_id``) holds one is skipped whole: exit 0, nothing stored under it,
one hook-log line without the id.  Real files, real ``mem`` processes."""

from __future__ import annotations

import pytest

from tests.hooks._util import asst, hook_env, line, payload, run_hook, text, turns, user

GHP = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"


def _nowhere(store_path, secret: str) -> None:
    """No file name and no file's bytes in the store hold ``secret``."""
    for p in store_path.rglob("*"):
        assert secret not in p.name, p
        if p.is_file():
            assert secret.encode() not in p.read_bytes(), p


def test_mem_agent_holding_a_credential_is_refused_like_agent(mem, store_path):
    mem("init")
    r = mem("remember", "project/x/k", "v", env={"MEM_AGENT": GHP}, exit_code=2)
    assert "the agent holds a credential" in r.stderr, r.stderr
    assert GHP not in r.stderr + r.stdout
    mem("get", "project/x/k", exit_code=4)
    _nowhere(store_path, GHP)


def test_a_plain_mem_agent_still_writes_as_that_agent(mem, store_path):
    mem("init")
    mem("remember", "project/x/k", "v", env={"MEM_AGENT": "codex-laptop"})
    r = mem("show", "project/x/k", "--json")
    assert r.json["trust"] == "agent_observed", r.json


@pytest.mark.parametrize("args, env, field", [
    (("memory", "add", "memory", "CI needs pg"), {"MEM_AGENT": GHP}, "agent"),
    (("memory", "propose", "add", "memory", "CI needs pg", "--by", GHP), {}, "agent"),
    (("memory", "propose", "add", "memory", "CI needs pg"), {"MEM_SESSION": GHP}, "session"),
])
def test_a_proposal_owner_or_session_holding_a_credential_is_refused(mem, store_path, args, env, field):
    mem("init")
    r = mem(*args, env=env, exit_code=2)
    assert f"the {field} holds a credential" in r.stderr, r.stderr
    assert GHP not in r.stderr + r.stdout
    assert mem("queue", "list", "--json").json == []
    _nowhere(store_path, GHP)


def _transcript(tmp_path, sid: str):
    t = tmp_path / f"{sid}.jsonl"
    t.write_bytes(line(user("u1", "the build uses zebracanary", sid))
                  + line(asst("a1", "m1", [text("noted")], sid)))
    return t


@pytest.mark.parametrize("sid, extra", [(GHP, {}), (f"S1.agent-{GHP}", {}), ("S1", {"agent_id": GHP})])
def test_a_hook_event_whose_session_id_holds_a_credential_stores_nothing_under_it(tmp_path, mem, store_path, sid,
                                                                                   extra):
    mem("init")
    env = hook_env(store_path, MEM_HOOK_FORK="0")
    t = _transcript(tmp_path, sid)
    for ev, kw in (("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {"prompt": "remember that CI uses pg"}),
                   ("Stop", {}), ("SessionEnd", {})):
        rc, out, err, _s = run_hook(store_path, payload(ev, sid, t, **kw, **extra), env=env)
        assert (rc, out) == (0, ""), err
    log = (store_path / "logs" / "hooks.log").read_text()
    # each event is refused for its id, or (on a loaded machine: test25 T2) its budget lapsed first, which
    # stores nothing either; the refusal is seen at least once (the prompt hook checks the id before any work)
    refused = log.count("session-id-credential")
    assert refused >= 1 and refused + log.count("HookTimeout:budget") == 4, log
    assert not [x for x in turns(store_path)], turns(store_path)
    _nowhere(store_path, GHP)
    # the next sound session is served as before
    t2 = _transcript(tmp_path, "S2")
    rc, _out, err, _s = run_hook(store_path, payload("Stop", "S2", t2), env=env)
    assert rc == 0, err
    assert {x[0] for x in turns(store_path)} == {"S2"}


def test_show_refuses_a_credential_without_echoing_it(mem, store_path):
    """test26 V18: ``mem show TOKEN`` said "nothing named 'TOKEN'", echoing it;
    get, log, forget and diff refuse such an argument without echoing it."""
    mem("remember", "project/x/k", "v")
    tok = "ghp_Q9w2E3r4T5y6U7i8O9p0AaBbCcDdEeFfGgHh"
    r = mem("show", tok, exit_code=2)
    assert tok not in r.stdout + r.stderr and "the argument holds a credential" in r.stderr
    mem("show", "project/x/k")        # a key and an id still show (exit 0)
    oid = mem("show", "project/x/k", "--json").json["id"]
    mem("show", oid[:12])
    r = mem("show", "nosuchthing", exit_code=4)
    assert "nothing named 'nosuchthing'" in r.stderr
