"""derive's interactive-only filter (the entrypoint turns record), mem config,
and derive.auto started by real session-start hook processes against a
loopback OpenAI-compatible server."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.derive._util import Model, transcript
from tests.hooks._util import REPO, hook_env, payload, run_hook, run_hook_done


def _turns(store_path: Path) -> dict[str, list[str]]:
    from objstore.memory.opening import open_store
    from objstore.memory.sessions import walk_turns
    out: dict[str, list[str]] = {}
    with open_store(store_path) as s:
        for name, head in s.refs.iter("sessions"):
            out[name[len("sessions/"):]] = [tv.turn.entrypoint for tv in walk_turns(s, head)]
    return out


def test_turn_entrypoint_is_optional_and_canonical():
    from objstore.core.codec import decode, encode
    from objstore.core.errors import CorruptObject
    from objstore.core.objects import Turn, interactive_entrypoint
    base = dict(session="s", seq=0, role="user", text="hi", timestamp=1, harness="claude-code", cwd="/x",
                project="x", source="cc:1", parent=None)
    old = encode(Turn(**base))
    assert b"entrypoint" not in old                     # a turn without one keeps its bytes and id
    new = encode(Turn(**base, entrypoint="sdk-cli"))
    assert decode(new).entrypoint == "sdk-cli" and decode(old).entrypoint == ""
    payload_ = Turn(**base).to_payload() | {"entrypoint": ""}
    with pytest.raises(CorruptObject):
        Turn.from_payload(payload_)                     # a written default is not canonical
    assert [interactive_entrypoint(e) for e in ("", "cli", "claude-vscode", "sdk-cli", "sdk-py")] == \
        [True, True, True, False, False]


def test_capture_records_entrypoint_and_derive_reads_interactive_turns(invoke, tmp_path, monkeypatch):
    root = tmp_path / "claude" / "projects" / "-home-dev-acme-api"
    transcript(root / "typed.jsonl", "typed", [("user", "TYPED we use port 5433"), ("assistant", "ok")],
               entrypoint="cli")
    transcript(root / "headless.jsonl", "headless", [("user", "HEADLESS eval scaffold says port 1"),
                                                      ("assistant", "done")], entrypoint="sdk-cli")
    transcript(root / "old.jsonl", "old", [("user", "OLD before the field existed")])
    invoke("import", "claude-code", str(tmp_path / "claude" / "projects"))
    eps = _turns(tmp_path / "store")
    assert eps == {"typed": ["cli", "cli"], "headless": ["sdk-cli", "sdk-cli"], "old": [""]}
    model = Model({})
    monkeypatch.setenv("OPENAI_BASE_URL", model.url)
    try:
        p = invoke("derive", "--plan", "--json").json
        assert sorted(e["session"] for e in p["excerpts"]) == ["old", "typed"]   # no claude -p turns
        assert (p["sources"], p["new_turns"]) == ("interactive", {"interactive": 3, "all": 5})
        text = invoke("derive", "--plan").stdout
        assert "sources: interactive (3 new turns; --sources all would read 5)" in text
        p = invoke("derive", "--plan", "--sources", "all", "--json").json
        assert sorted(e["session"] for e in p["excerpts"]) == ["headless", "old", "typed"]
        invoke("config", "derive.sources", "all")                               # the setting widens it too
        assert invoke("derive", "--plan", "--json").json["calls"] == 3
        invoke("derive", "--apply")
        assert sum("HEADLESS" in r[2]["messages"][0]["content"] for r in model.requests) == 1
    finally:
        model.close()


def test_the_prompt_hook_records_the_agents_entrypoint(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store, CLAUDE_CODE_ENTRYPOINT="sdk-cli", MEM_HOOK_FORK="0")
    rc, *_ = run_hook_done(store, payload("UserPromptSubmit", "ep-1", None, prompt="list the failing tests"), env=env)
    assert rc == 0
    assert _turns(store) == {"ep-1": ["sdk-cli"]}


def test_config_sets_known_settings_and_keeps_the_file(invoke, store_path):
    invoke("init")
    cfg = store_path / "config.toml"
    cfg.write_text('# mine\n[capture]\nexclude = ["/tmp/x"]  # keep\n\n[derive]\nprovider = "openai" # p\n')
    invoke("config", "derive.auto", "true")
    invoke("config", "derive.provider", "ollama")
    invoke("config", "context.prompt_budget", "800")
    text = cfg.read_text()
    assert text.startswith('# mine\n[capture]\nexclude = ["/tmp/x"]  # keep\n')
    assert 'provider = "ollama" # p' in text and "auto = true" in text and "prompt_budget = 800" in text
    assert invoke("config", "derive.auto").stdout.strip() == "true"
    listing = {r["name"]: r["value"] for r in invoke("config", "--json").json}
    assert listing["derive.auto"] is True and listing["derive.sources"] == "interactive"
    assert invoke("config", "derive.auto", "true").stdout.strip() == "derive.auto = true (unchanged)"
    before = cfg.read_bytes()
    invoke("config", "derive.atuo", "true", exit_code=2)                        # a misspelt name is refused
    invoke("config", "derive.auto", "maybe", exit_code=2)
    invoke("config", "derive.api_key_env", "sk-live-123456", exit_code=2)       # a name, never a key
    invoke("config", "context.prompt_budget", "0", exit_code=2)
    assert cfg.read_bytes() == before                                           # nothing written on a refusal


def _wait(cond, seconds: float = 60.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return False


def _mem(store: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=60)


def test_derive_auto_runs_once_a_day_in_the_background_from_the_session_start_hook(tmp_path):
    store = tmp_path / "store"
    proj = tmp_path / "claude" / "projects" / "-home-dev-acme-api"
    transcript(proj / "s1.jsonl", "s1", [("user", "AUTO-SESSION the api listens on port 8081"), ("assistant", "ok")],
               entrypoint="cli")
    model = Model({"AUTO-SESSION": {"facts": [{"key": "project/acme-api/api/port", "kind": "project",
                                               "value": "port 8081", "turns": [1]}]}})
    env = hook_env(store, OPENAI_BASE_URL=model.url, OPENAI_API_KEY="sk-test-auto",
                   CLAUDE_CONFIG_DIR=str(tmp_path / "claude"))
    try:
        assert _mem(store, "import", "claude-code", str(tmp_path / "claude" / "projects"), env=env).returncode == 0
        start = payload("SessionStart", "s2", None, source="startup")

        # off by default; then on, but the plan was never shown: no call
        assert run_hook(store, start, env=env)[0] == 0
        assert _mem(store, "config", "derive.auto", "true", env=env).returncode == 0
        assert run_hook(store, start, env=env)[0] == 0
        time.sleep(1.0)
        assert model.requests == []
        r = _mem(store, "derive", "--auto", env=env)
        assert r.returncode == 0 and "plan-not-shown" in r.stderr and model.requests == []

        # the plan is shown once: the next session start starts a run and does not wait for the model
        shown = _mem(store, "derive", "--plan", env=env)
        assert shown.returncode == 0 and "derive.auto is on: the next session start runs this" in shown.stdout
        model.gate.clear()                                   # the model answers only when the test says so
        # (again while it met its budget or logged a failure: under load it could fail open before the
        # start; the hook returns while the gate is closed, and no report is filed: it did not wait)
        rc, out, _err, _secs = run_hook_done(store, start, env=env)
        assert rc == 0
        assert model.arrived.wait(30), "the background run never called the model"
        assert not (store / "cache" / "derive-reports").exists() or not list((store / "cache" / "derive-reports").iterdir())
        # while the model is thinking, nothing holds the store lock: a write goes through at once
        w = _mem(store, "remember", "project/acme-api/owner", "dana", env={**env, "MEM_LOCK_TIMEOUT": "1"})
        assert w.returncode == 0, w.stderr
        model.gate.set()
        assert _wait(lambda: _mem(store, "get", "project/acme-api/api/port", env=env).stdout.strip() == "port 8081")
        # (the run files its report after the fact: wait for it too)
        assert _wait(lambda: len(json.loads(_mem(store, "derive", "report", "--json", env=env).stdout)) == 1)
        rep = json.loads(_mem(store, "derive", "report", "--json", env=env).stdout)
        assert len(rep) == 1 and rep[0]["trigger"] == "auto" and rep[0]["counts"] == {"write": 1}

        # at most once a day: new sessions start no second run
        for _ in range(2):
            assert run_hook(store, start, env=env)[0] == 0
        time.sleep(1.0)
        assert len(model.requests) == 1
        stamp = store / "cache" / "derive-auto-stamp"
        stamp.write_text(f"{int(time.time() * 1000) - 25 * 3600 * 1000}\n")   # a day later
        transcript(proj / "s3.jsonl", "s3", [("user", "AUTO-SESSION again on port 8081")], entrypoint="cli")
        assert _mem(store, "import", "claude-code", str(tmp_path / "claude" / "projects"), env=env).returncode == 0
        assert run_hook_done(store, start, env=env)[0] == 0
        assert _wait(lambda: len(json.loads(_mem(store, "derive", "report", "--json", env=env).stdout)) == 2)
        assert len(model.requests) == 2                      # only the new session was read

        # a changed destination asks for the plan again
        assert _mem(store, "config", "derive.model", "other-model", env=env).returncode == 0
        stamp.write_text("0\n")
        assert "plan-not-shown" in _mem(store, "derive", "--auto", env=env).stderr
    finally:
        model.gate.set()
        model.close()


def test_derive_auto_fails_open_when_the_model_is_down(tmp_path, request):
    store = tmp_path / "store"
    down = socket.socket()               # bound, not listening: a connection to its port is refused
    down.bind(("127.0.0.1", 0))
    request.addfinalizer(down.close)
    env = hook_env(store, OPENAI_BASE_URL=f"http://127.0.0.1:{down.getsockname()[1]}/v1", OPENAI_API_KEY="sk-test-down")
    proj = tmp_path / "p" / "-x"
    transcript(proj / "d.jsonl", "d", [("user", "DOWN-SESSION port 1")])
    assert _mem(store, "import", "claude-code", str(tmp_path / "p"), env=env).returncode == 0
    assert _mem(store, "config", "derive.auto", "true", env=env).returncode == 0
    assert _mem(store, "derive", "--plan", env=env).returncode == 0
    rc, out, err, _s = run_hook_done(store, payload("SessionStart", "d2", None, source="startup"), env=env)
    assert rc == 0 and err == ""
    assert _wait(lambda: json.loads(_mem(store, "derive", "report", "--json", env=env).stdout or "[]"))
    rep = json.loads(_mem(store, "derive", "report", "--json", env=env).stdout)[0]
    assert rep["failed"] == ["d"]                            # stays unread: tried again next day
    assert json.loads(_mem(store, "derive", "--plan", "--json", env=env).stdout)["calls"] == 1
