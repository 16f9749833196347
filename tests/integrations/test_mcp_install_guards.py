"""mem mcp install/uninstall guards (tester findings T13 and T18 of session
17), on real files in a temporary HOME.

* A ``mem`` MCP server entry mem never wrote (T13): the user's own server
  by that name is left alone (exit 2, the file byte for byte) unless
  ``--force``; an entry of mem's shape is removed without an undo record,
  as before.
* An ``--http`` URL holding a credential (T18) is refused, exit 2, never
  echoed, nothing written: the key belongs in the ``--key-env`` variable."""

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


MEMK = "memk_pXA1f0pLjLdtS0lOJffu9xBR9OMc6F0Wu_vxSx-gYFk"


@pytest.mark.parametrize("agent", ["codex", "claude-code"])
@pytest.mark.parametrize("url", [f"http://127.0.0.1:8765/mcp?token={MEMK}",
                                 "http://user:Zq7mm9xQpass@127.0.0.1:8765/mcp",
                                 f"http://127.0.0.1:8765/{GH}/mcp"])
def test_an_http_url_holding_a_credential_is_refused_unechoed(home, invoke, agent, url):
    """T18: the file would keep the URL in the clear; the key belongs in --key-env's variable."""
    cfg = home / ".codex" / "config.toml" if agent == "codex" else home / ".claude.json"
    cfg.parent.mkdir(exist_ok=True)
    cfg.write_text("" if agent == "codex" else "{}\n")
    before = cfg.read_bytes()
    for extra in ((), ("--dry-run",)):
        r = invoke("mcp", "install", agent, "--http", url, *extra, exit_code=2)
        assert "the --http URL holds a credential" in r.stderr
        for secret in (MEMK, "Zq7mm9xQpass", GH):
            assert secret not in r.stderr + r.stdout
        assert cfg.read_bytes() == before
    invoke("mcp", "install", agent, "--http", "http://127.0.0.1:8765/mcp")     # the address alone is fine
    assert "127.0.0.1:8765/mcp" in cfg.read_text()


@pytest.mark.parametrize("servers", ['mcp_servers = { other = { command = "x" } }\n',
                                     'mcp_servers = {}\n'])
def test_an_inline_mcp_servers_is_named_not_called_invalid(home, invoke, servers):
    """test25 T6: a valid config.toml whose mcp_servers is an inline table was
    called "not valid TOML" (the error of the file with mem's table appended,
    at a line the user's file does not have)."""
    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    before = 'model = "o3"\n' + servers
    cfg.write_text(before)
    r = invoke("mcp", "install", "codex", exit_code=2)
    assert "not valid TOML" not in r.stderr, r.stderr
    assert "inline table or dotted keys" in r.stderr and "mem = { command = " in r.stderr, r.stderr
    assert cfg.read_text() == before
