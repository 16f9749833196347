"""test39 T6: a store file of JSON nested thousands deep (remotes.json, the
MCP keys file) is damage with its documented exit code and message, not an
internal error (Python's decoder raises RecursionError, not ValueError)."""

from __future__ import annotations

NESTED = "[" * 5000 + "]" * 5000


def test_deeply_nested_remotes_json_is_damage(tmp_path, mem):
    home = str(tmp_path / "s")
    mem("--home", home, "init")
    (tmp_path / "s" / "remotes.json").write_text('{"a": ' + NESTED + "}\n")
    r = mem("--home", home, "status", exit_code=13)
    assert "remotes.json is damaged" in r.stderr and "internal error" not in r.stderr


def test_deeply_nested_keys_file_is_refused(tmp_path, mem):
    home = str(tmp_path / "s")
    mem("--home", home, "init")
    (tmp_path / "s" / "mcp").mkdir()
    (tmp_path / "s" / "mcp" / "keys.json").write_text('{"format": 1, "keys": ' + NESTED + "}\n")
    r = mem("--home", home, "mcp", "keys", "list", exit_code=2)
    assert "not a valid keys file" in r.stderr and "internal error" not in r.stderr


def test_deeply_nested_claude_settings_are_refused_untouched(tmp_path, mem):
    """test39b B12: ``mem hooks install`` on a settings.json nested thousands deep was an internal error."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    settings = home / ".claude" / "settings.json"
    settings.write_text('{"a": ' + NESTED + "}\n")
    r = mem("--home", str(tmp_path / "s"), "hooks", "install", "claude-code", env={"HOME": str(home)}, exit_code=2)
    assert "is not valid JSON" in r.stderr and "internal error" not in r.stderr
    assert settings.read_text() == '{"a": ' + NESTED + "}\n"
