"""mem mcp install/uninstall (Claude Code, Codex) and mem curate, on real
files in a temporary HOME; curate runs a stand-in ``claude`` script."""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path

import pytest

CODEX = '# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n'
CLAUDE = '{\n    "numStartups": 3,\n    "theme": "dark"\n}\n'


@pytest.fixture
def home(isolated_env, monkeypatch):
    h = isolated_env / "home"
    monkeypatch.setenv("MEM_HOOK_COMMAND", "/opt/bin/mem")
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return h


def _args(home):
    return ["--home", os.environ["MEM_HOME"], "mcp"]


def test_codex_stdio_and_http_idempotent_and_byte_exact_uninstall(home, invoke):
    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text(CODEX)
    invoke("mcp", "install", "codex")
    assert "already installed" in invoke("mcp", "install", "codex").stdout
    doc = tomllib.loads(cfg.read_text())
    # MEM_HOME is not ~/.mem: the store is pinned, as the hook installer does (fresh5 #1)
    assert doc["mcp_servers"]["mem"] == {"command": "/opt/bin/mem", "args": _args(home)}
    assert doc["mcp_servers"]["other"] == {"command": "x"} and doc["model"] == "o3"
    r = invoke("mcp", "install", "codex", "--http", "http://127.0.0.1:8765/mcp", exit_code=2)
    assert "different" in r.stderr
    invoke("mcp", "uninstall", "codex")
    assert cfg.read_text() == CODEX
    invoke("mcp", "install", "codex", "--http", "http://127.0.0.1:8765/mcp")
    doc = tomllib.loads(cfg.read_text())
    assert doc["mcp_servers"]["mem"] == {"url": "http://127.0.0.1:8765/mcp", "bearer_token_env_var": "MEM_MCP_KEY"}
    assert "memk_" not in cfg.read_text()
    # edited since the install: only mem's table goes
    cfg.write_text(cfg.read_text() + '\n[profiles.x]\nmodel = "y"\n')
    invoke("mcp", "uninstall", "codex")
    doc = tomllib.loads(cfg.read_text())
    assert "mem" not in doc["mcp_servers"] and doc["profiles"]["x"]["model"] == "y"


def test_claude_code_user_and_project_scopes(home, invoke, tmp_path, monkeypatch):
    user = home / ".claude.json"
    user.write_text(CLAUDE)
    invoke("mcp", "install", "claude-code", "--http", "http://127.0.0.1:8765/mcp", "--key-env", "MEM_KEY")
    doc = json.loads(user.read_text())
    assert doc["mcpServers"]["mem"] == {"type": "http", "url": "http://127.0.0.1:8765/mcp",
                                        "headers": {"Authorization": "Bearer ${MEM_KEY}"}}
    assert doc["theme"] == "dark"
    assert "already installed" in invoke("mcp", "install", "claude-code", "--http", "http://127.0.0.1:8765/mcp",
                                         "--key-env", "MEM_KEY").stdout
    invoke("mcp", "uninstall", "claude-code")
    assert user.read_text() == CLAUDE
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    invoke("mcp", "install", "claude-code", "--scope", "project")
    got = json.loads((proj / ".mcp.json").read_text())
    assert got == {"mcpServers": {"mem": {"type": "stdio", "command": "/opt/bin/mem", "args": _args(home), "env": {}}}}
    invoke("mcp", "uninstall", "claude-code", "--scope", "project")
    assert not (proj / ".mcp.json").exists()
    assert "not installed" in invoke("mcp", "uninstall", "claude-code", "--scope", "project").stdout


def test_bad_files_are_refused_untouched(home, invoke):
    user = home / ".claude.json"
    user.write_text("[1, 2]")
    invoke("mcp", "install", "claude-code", exit_code=2)
    assert user.read_text() == "[1, 2]"
    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text("not = = toml")
    invoke("mcp", "install", "codex", exit_code=2)
    assert cfg.read_text() == "not = = toml"


def test_curate_launches_claude_with_the_admin_server(home, invoke, tmp_path, monkeypatch):
    fake = tmp_path / "claude"
    out = tmp_path / "claude-run.json"
    fake.write_text("#!/bin/sh\nexec python3 -c 'import json,os,sys; json.dump({\"argv\": sys.argv[1:], "
                    "\"base\": os.environ.get(\"ANTHROPIC_BASE_URL\"), \"curate\": os.environ.get(\"MEM_CURATE\")}, open(sys.argv[-1] if False else "
                    f"\"{out}\", \"w\"))' \"$@\"\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:7077")
    invoke("curate", "--claude", str(fake), "--", "--model", "opus")
    run = json.loads(out.read_text())
    argv = run["argv"]
    assert run["base"] is None  # a loopback proxy URL is removed: the session is never captured back
    assert run["curate"] is None  # test37 T16: the pass is the admin server's alone, never claude's tools'
    cfg_path = argv[argv.index("--mcp-config") + 1]
    assert "--strict-mcp-config" in argv and argv[-2:] == ["--model", "opus"]
    assert "queue_list" in argv[argv.index("--append-system-prompt") + 1]
    cfg = json.loads(open(cfg_path).read())
    assert cfg["mcpServers"]["mem-admin"]["args"][-2:] == ["mcp", "--admin"]
    assert os.stat(cfg_path).st_mode & 0o777 == 0o600   # it holds the pass until its server starts
    assert not list(Path(cfg_path).parent.glob("curate-*.pass"))   # claude exited: its unused pass is gone
    again = json.loads(invoke("curate", "--print-config").stdout)
    assert again["mcpServers"]["mem-admin"]["env"]["MEM_CURATE"] != cfg["mcpServers"]["mem-admin"]["env"]["MEM_CURATE"]
    again["mcpServers"]["mem-admin"]["env"] = cfg["mcpServers"]["mem-admin"]["env"]
    assert again == cfg
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://gateway.example.com")
    invoke("curate", "--claude", str(fake))
    assert json.loads(out.read_text())["base"] == "https://gateway.example.com"
    assert os.environ["ANTHROPIC_BASE_URL"] == "https://gateway.example.com"


def test_setup_offers_and_installs_the_mcp_server(home, invoke):
    (home / ".codex").mkdir()
    out = invoke("setup", "--shell", "none", "--no-hooks").stdout
    assert "mem setup --mcp codex" in out
    invoke("setup", "--shell", "none", "--no-hooks", "--mcp", "codex")
    doc = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert doc["mcp_servers"]["mem"]["args"] == _args(home)
    assert "mem setup --mcp codex" not in invoke("setup", "--shell", "none", "--no-hooks").stdout
    invoke("setup", "--shell", "none", "--no-hooks", "--mcp", "codex", "--undo")
    assert not (home / ".codex" / "config.toml").exists()
