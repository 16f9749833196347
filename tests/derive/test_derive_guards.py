"""Session 20 (lane w20a): derive never writes a memory file's key nor
brings back what was forgotten (W1), and a damaged derive-state.json is
named, not a traceback (W10).  Real ``mem`` processes against a loopback
OpenAI-compatible server with scripted answers."""

from __future__ import annotations

import json
import os

import pytest

from tests.derive._util import Model, transcript

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
