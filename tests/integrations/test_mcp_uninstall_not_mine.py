"""mem mcp uninstall/install and a ``mem`` MCP server entry mem never wrote
(tester finding T13 of session 17): the user's own server by that name is
left alone (exit 2, the file byte for byte) unless ``--force``; an entry of
mem's shape is removed without an undo record, as before.  Real files in a
temporary HOME."""

from __future__ import annotations

import json
import tomllib

import pytest

GH = "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"
CODEX = ('[mcp_servers.mem]\ncommand = "/opt/other-mem-server"\nargs = ["--port", "9", "--token", "' + GH + '"]\n\n'
         '[profiles.x]\nmodel = "gpt"\n')
CLAUDE = json.dumps({"numStartups": 3, "mcpServers": {"mem": {"command": "/opt/other", "args": [],
                                                              "env": {"TOKEN": GH}}}}, indent=2) + "\n"


@pytest.fixture
def home(isolated_env, monkeypatch):
    monkeypatch.setenv("MEM_HOOK_COMMAND", "/opt/bin/mem")
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return isolated_env / "home"


@pytest.mark.parametrize("agent", ["codex", "claude-code"])
def test_a_mem_entry_that_is_not_mems_is_left_alone(home, invoke, agent):
    cfg = home / ".codex" / "config.toml" if agent == "codex" else home / ".claude.json"
    cfg.parent.mkdir(exist_ok=True)
    cfg.write_text(CODEX if agent == "codex" else CLAUDE)
    before = cfg.read_bytes()
    r = invoke("mcp", "install", agent, exit_code=2)
    assert "not mem's" in r.stderr and "uninstall" not in r.stderr and GH not in r.stderr + r.stdout
    for args in ((), ("--dry-run",), ("--json",)):
        r = invoke("mcp", "uninstall", agent, *args, exit_code=2)
        assert "not mem's" in r.stderr and f"mem mcp uninstall {agent} --force" in r.stderr
        assert GH not in r.stderr + r.stdout
        assert cfg.read_bytes() == before
    invoke("mcp", "uninstall", agent, "--force")
    if agent == "codex":
        doc = tomllib.loads(cfg.read_text())
        assert "mem" not in doc.get("mcp_servers", {}) and doc["profiles"]["x"]["model"] == "gpt"
    else:
        doc = json.loads(cfg.read_text())
        assert doc == {"numStartups": 3, "mcpServers": {}}
    invoke("mcp", "install", agent)       # now it can be installed, and uninstalled byte for byte
    invoke("mcp", "uninstall", agent)
    assert GH not in cfg.read_text()


@pytest.mark.parametrize("entry", [{"command": "/usr/local/bin/mem", "args": ["mcp"]},
                                   {"command": "C:/tools/mem.exe", "args": ["--home", "/srv/store", "mcp"]},
                                   {"url": "http://127.0.0.1:8765/mcp", "bearer_token_env_var": "MEM_MCP_KEY"}])
def test_an_entry_of_mems_shape_goes_without_an_undo_record(home, invoke, entry):
    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir(exist_ok=True)
    body = "\n".join(f"{k} = {json.dumps(v)}" for k, v in entry.items())
    cfg.write_text(f'model = "o3"\n\n[mcp_servers.mem]\n{body}\n')
    invoke("mcp", "uninstall", "codex")
    assert tomllib.loads(cfg.read_text()) == {"model": "o3"}


def test_claude_code_http_entry_of_mems_shape_goes(home, invoke):
    cfg = home / ".claude.json"
    cfg.write_text(json.dumps({"mcpServers": {"mem": {"type": "http", "url": "http://127.0.0.1:9/mcp",
                                                      "headers": {"Authorization": "Bearer ${MEM_KEY}"}}}}))
    invoke("mcp", "uninstall", "claude-code")
    assert json.loads(cfg.read_text()) == {"mcpServers": {}}
