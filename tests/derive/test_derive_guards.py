"""Session 20 (lane w20a): derive never writes a memory file's key nor
brings back what was forgotten (W1), and a damaged derive-state.json is
named, not a traceback (W10).  Real ``mem`` processes against a loopback
OpenAI-compatible server with scripted answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.derive._util import Model, transcript
from tests.hooks._util import REPO, hook_env, payload, run_hook

SCRIPT = {"GUARD-SESSION": {"facts": [
    {"key": "user/memory/memory.md", "kind": "user", "value": "deploys run on walrus host", "turns": [1]},
    {"key": "project/acme-api/memory/user.md", "kind": "project", "value": "deploys run on walrus host",
     "turns": [1]},
    {"key": "project/acme-api/deploy/host", "kind": "project", "value": "deploys run on walrus host", "turns": [1]},
    {"key": "project/acme-api/deploy/elsewhere", "kind": "project", "value": "walrus host", "turns": [1]},
    {"key": "project/acme-api/deploy/day", "kind": "project", "value": "deploys run friday", "turns": [1]},
    {"key": "project/acme-api/deploy/fine", "kind": "project", "value": "deploys run", "turns": [1]}]}}


@pytest.fixture
def rig(mem, tmp_path):
    projects = tmp_path / "claude" / "projects" / "-home-dev-acme-api"
    transcript(projects / "guard.jsonl", "guard", [
        ("user", "GUARD-SESSION: deploys run on walrus host every friday")])
    mem("import", "claude-code", str(tmp_path / "claude" / "projects"))
    mem("remember", "project/acme-api/deploy/host", "deploys run on walrus host")
    mem("forget", "project/acme-api/deploy/host", "--yes")          # the value (and its key) forgotten
    mem("remember", "project/acme-api/deploy/day", "deploys run tuesday")
    mem("forget", "project/acme-api/deploy/day", "--yes")           # the key forgotten: no value comes back
    mem("remember", "global/old", "walrus host")
    mem("forget", "global/old", "--yes")                            # the value, under another key
    model = Model(SCRIPT)
    env = {"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "sk-test-derive"}
    yield model, env
    model.close()


def test_derive_never_writes_a_memory_file_nor_a_forgotten_key_or_value(rig, mem):
    """W1: each proposal is rejected with its reason, in a dry run as in
    --apply, and nothing of it is written."""
    model, env = rig
    for args in (("derive", "--json"), ("derive", "--apply", "--json")):
        r = json.loads(mem(*args, env=env).stdout)
        got = {d["key"]: (d["rule"], d["detail"]) for d in r["decisions"]}
        assert got["user/memory/memory.md"][0] == "invalid", got
        assert "memory file" in got["user/memory/memory.md"][1]
        assert got["project/acme-api/memory/user.md"][0] == "invalid"
        assert got["project/acme-api/deploy/host"] == ("tombstoned", "the value was forgotten under this key")
        assert got["project/acme-api/deploy/day"] == ("tombstoned", "the key was forgotten")
        assert got["project/acme-api/deploy/elsewhere"] == ("tombstoned", "the value was forgotten under another key")
        assert got["project/acme-api/deploy/fine"][0] == "write"
        assert r["counts"].get("write") == 1, r["counts"]
        assert not any(d["written"] or d["queued"] for d in r["decisions"] if d["rule"] != "write")
    for key in ("user/memory/memory.md", "project/acme-api/memory/user.md", "project/acme-api/deploy/host",
                "project/acme-api/deploy/day", "project/acme-api/deploy/elsewhere"):
        mem("get", key, exit_code=4)
    assert mem("get", "project/acme-api/deploy/fine").stdout.strip().endswith("deploys run")
    assert json.loads(mem("queue", "list", "--json").stdout) == []


DAMAGE = {
    "garbage": lambda p: p.write_bytes(b"\xff\xfe\x00garbage"),
    "not-json": lambda p: p.write_text("{session: 3"),
    "wrong-types": lambda p: p.write_text('{"guard": [1], "x": "2"}'),
    "infinity": lambda p: p.write_text('{"guard": 1e999}'),
    "deep": lambda p: p.write_text("[" * 100_000),
    "fifo": lambda p: os.mkfifo(p),
    "folder": lambda p: p.mkdir(),
}


@pytest.fixture
def plain(mem, tmp_path):
    projects = tmp_path / "claude" / "projects" / "-home-dev-acme-api"
    transcript(projects / "guard.jsonl", "guard", [("user", "GUARD-SESSION: deploys run on walrus host")])
    mem("import", "claude-code", str(tmp_path / "claude" / "projects"))
    model = Model({})
    yield model, {"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "sk-test-derive"}
    model.close()


def _kind(p) -> object:
    return p.read_bytes() if p.is_file() else os.lstat(p).st_mode


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_derive_state_is_named_and_set_aside(plain, mem, store_path, damage):
    """W10: a damaged derive-state.json stops derive with exit 13 naming
    the file (never a traceback, never a wait on a FIFO, never read as
    empty and overwritten), derive.auto says state-damaged and sends
    nothing, mem doctor names it, mem doctor --fix sets it aside."""
    model, env = plain
    state = store_path / "cache" / "derive-state.json"
    DAMAGE[damage](state)
    was = _kind(state)
    r = mem("derive", "--plan", "--json", env=env, exit_code=13, timeout=30)
    assert str(state) in r.stderr and "internal error" not in r.stderr, r.stderr
    mem("derive", "--apply", env=env, exit_code=13, timeout=30)
    mem("config", "derive.auto", "true")
    shown = store_path / "cache" / "derive-plan-shown.json"
    from objstore.derive.auto import auto_status
    from objstore.derive.providers import from_config, load_config
    from objstore.memory.opening import open_store
    with open_store(store_path) as s:
        prov = from_config(load_config(store_path), env)
        shown.write_text(json.dumps({"time": 1, "destination": prov.destination()}))
        assert auto_status(s, load_config(store_path), prov) == "state-damaged"
    r = mem("derive", "--auto", env=env, timeout=30)
    assert "state-damaged" in r.stderr and "mem doctor --fix" in r.stderr, r.stderr
    assert model.requests == []                      # nothing sent
    assert _kind(state) == was                       # left as it was
    r = mem("doctor", exit_code=1, timeout=60)
    assert "[derive]" in r.stdout and str(state) in r.stdout, r.stdout
    assert "internal error" not in r.stderr
    r = mem("doctor", "--fix", exit_code=None, timeout=60)
    assert "set the damaged derive state aside" in r.stdout and "[derive]" not in r.stdout, r.stdout
    assert not os.path.lexists(state) and list(state.parent.glob("derive-state.json.damaged-*"))
    r = json.loads(mem("derive", "--apply", "--json", env=env).stdout)   # reads every session again
    assert r["calls"] == 1 and json.loads(state.read_text()) == {"guard": 0}


def test_the_session_start_hook_starts_no_run_on_a_damaged_state_and_says_so(tmp_path, plain):
    """W10: derive.auto on and the plan shown, but derive-state.json is a
    FIFO: the session-start hook exits 0 at once, starts nothing, and logs
    derive-state-damaged."""
    model, menv = plain
    store = tmp_path / "store"
    env = hook_env(store, **menv)
    for args in (("config", "derive.auto", "true"), ("derive", "--plan")):
        assert subprocess.run([sys.executable, "-m", "cmds", *args], env=env, cwd=REPO,
                              capture_output=True, timeout=60).returncode == 0
    os.mkfifo(store / "cache" / "derive-state.json")
    rc, _out, err, secs = run_hook(store, payload("SessionStart", "g2", None, source="startup"), env=env)
    assert rc == 0 and err == "" and secs < 10
    assert "derive-state-damaged" in (store / "logs" / "hooks.log").read_text()
    assert model.requests == [] and not (store / "cache" / "derive-auto-stamp").exists()
