"""test35 T15: a value that changed since the session was shown it (its
session-start block, the proxy's pinned system block, an earlier prompt's
injection) is served on a prompt with a note naming the value it replaces;
the proxy's system block stays byte-stable.  Real ``mem hook`` processes,
and ``mem proxy`` in front of a loopback upstream with the SDK client."""

from __future__ import annotations

import json
import uuid

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from tests.conftest import wait_remember_done  # noqa: E402
from tests.hooks._util import payload, run_hook, wait_store_processes_gone  # noqa: E402
from tests.integrations.test_proxy import client, mem as proxy_mem, rig  # noqa: E402,F401  (rig: the fixture)

SID = "15151515-0000-0000-0000-000000000001"
OTHER = "15151515-0000-0000-0000-000000000002"


def _prompt(store, sid: str, text: str) -> str:
    rc, out, _err, _s = run_hook(store, payload("UserPromptSubmit", sid, None, prompt=text))
    assert rc == 0
    wait_store_processes_gone(store)
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""


def test_the_hook_says_a_served_value_replaces_the_one_the_session_was_shown(mem, store_path):
    mem("remember", "project/proj/db-port", "5432")
    rc, out, _err, _s = run_hook(store_path, payload("SessionStart", SID, None, source="startup"))
    assert rc == 0 and "db-port (recorded" in out and "5432" in out
    wait_store_processes_gone(store_path)
    mem("remember", "project/proj/db-port", "6543")
    got = _prompt(store_path, SID, "which port does the db use?")
    assert 'changed since shown earlier in this session: was "5432"): 6543' in got
    mem("remember", "project/proj/db-port", "7777")   # the newest value this session was shown is named
    got = _prompt(store_path, SID, "which port does the db listen on now?")
    assert 'was "6543"): 7777' in got and "5432" not in got
    other = _prompt(store_path, OTHER, "which port does the db use?")   # a session shown nothing before
    assert "7777" in other and "changed since" not in other
    # /clear: the agent's context holds none of it; the new start block (7777) is what was shown
    rc, out, _err, _s = run_hook(store_path, payload("SessionStart", SID, None, source="clear"))
    assert rc == 0 and "7777" in out
    wait_store_processes_gone(store_path)
    mem("remember", "project/proj/db-port", "8888")
    got = _prompt(store_path, SID, "which port does the db use today?")
    assert 'was "7777"): 8888' in got


def test_the_proxy_notes_the_change_and_keeps_its_system_block(rig):
    tag = uuid.uuid4().hex[:8]
    key, old, new = f"user/pager-{tag}", f"pagerduty-{tag} rotation alpha", f"opsgenie-{tag} rotation beta"
    assert proxy_mem(rig, "remember", key, old).returncode == 0
    c = client(rig, **{"x-mem-session": f"sb-{tag}"})
    msgs = [{"role": "user", "content": "hello"}]
    c.messages.create(model="m", max_tokens=5, messages=msgs)
    first = json.loads(rig["up"].requests[-1][2].decode())
    assert old in first["system"][-1]["text"]
    assert proxy_mem(rig, "remember", key, new).returncode == 0
    wait_remember_done(rig["home"])
    msgs += [{"role": "assistant", "content": "Hi."},
             {"role": "user", "content": f"which pager rotation do we use, pager-{tag}?"}]
    c.messages.create(model="m", max_tokens=5, messages=msgs)
    second = json.loads(rig["up"].requests[-1][2].decode())
    assert second["system"] == first["system"]                  # byte-stable for the prompt cache
    last = json.dumps(second["messages"][-1])
    assert new in last and f'changed since shown earlier in this session: was \\"{old}\\"' in last


def test_the_note_counts_against_the_prompt_budget(mem, store_path):
    """late35's left-out: the note was put on the line after the gate had
    counted the line, so a noted injection could go over the budget."""
    from objstore.retrieval.context import estimate_tokens
    value = "6543 behind pgbouncer-" + "x" * 40
    mem("remember", "project/proj/db-port", "5432")
    rc, out, _err, _s = run_hook(store_path, payload("SessionStart", SID, None, source="startup"))
    assert rc == 0 and "5432" in out
    wait_store_processes_gone(store_path)
    mem("remember", "project/proj/db-port", value)
    plain = _prompt(store_path, OTHER, "which port does the db use?")   # no note: shown nothing before
    assert value in plain and "changed since" not in plain
    budget = estimate_tokens(plain) + 2   # the line fits; with the note (~17 tokens more) it does not
    mem("config", "context.prompt_budget", str(budget))
    got = _prompt(store_path, SID, "which port does the db use?")
    assert estimate_tokens(got) <= budget, got
    mem("config", "context.prompt_budget", str(budget + 40))   # room for the note: the line comes with it
    got = _prompt(store_path, SID, "which port does the db listen on?")
    assert 'changed since shown earlier in this session: was "5432"' in got and value in got
    assert estimate_tokens(got) <= budget + 40


def test_a_shown_version_forgotten_since_still_says_the_value_changed(mem, store_path):
    """test36 T20.3: the session was shown v2 on a prompt, v2 was forgotten,
    and a later prompt served v1 with no note (the forgotten version's id
    could no longer be read, so nothing counted as shown before): the agent
    held two values and nothing said which replaced which."""
    mem("remember", "project/proj/staging-db-host", "stg-db-1.internal")
    mem("remember", "project/proj/staging-db-host", "leaky-host-9931.internal")
    got = _prompt(store_path, SID, "which staging db host do we use?")
    assert "leaky-host-9931" in got
    mem("forget", "project/proj/staging-db-host@v2", "--yes")
    got = _prompt(store_path, SID, "connect to the staging db host")
    assert "stg-db-1.internal" in got and "leaky-host" not in got
    assert "(recorded " in got and "changed since shown earlier in this session)" in got, got


def test_a_version_shown_at_session_start_and_forgotten_since_still_says_the_value_changed(mem, store_path):
    """test36b T19: the session-start block showed v1, v2 was written and
    v1 forgotten; forget deleted the session state (its start block quotes
    v1), so the prompt serving v2 had no note.  Now the state is rewritten
    without the forgotten text (no start block, no forgotten id) and the
    note says only that the value changed."""
    mem("remember", "project/proj/db-port", "db port 5433")
    rc, out, _err, _s = run_hook(store_path, payload("SessionStart", SID, None, source="startup"))
    assert rc == 0 and "db port 5433" in out
    wait_store_processes_gone(store_path)
    mem("remember", "project/proj/db-port", "db port 5434")
    shown = next((store_path / "cache" / "sessions").glob("*.msgpack"))
    v1 = next(v["id"] for v in mem("log", "project/proj/db-port", "--json").json if v["version"] == 1)
    assert v1.encode() in shown.read_bytes()
    mem("forget", "project/proj/db-port@v1", "--yes")
    data = shown.read_bytes()
    assert b"db port 5433" not in data and v1.encode() not in data, data   # (test36b T8: no forgotten id kept)
    got = _prompt(store_path, SID, "which db port do we use?")
    assert "db port 5434" in got and "5433" not in got
    assert "changed since shown earlier in this session)" in got, got
