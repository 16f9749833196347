"""test16 F2 and F3: a credential given to ``mem remote add`` or ``mem
config`` was written in the clear to ``remotes.json`` / ``config.toml``
and echoed back; ``mem config derive.api_key_env <key>`` refused but echoed
the key; ``mem get``/``mem log`` of a key holding one echoed it in ``no key
…``.  Each is refused now with exit 2 naming the field, the value never
shown nor written (``objstore.core.redact.check_name``).  Real ``mem``
processes on a real store; every value is fake."""

from __future__ import annotations

import pytest

GHP = "ghp_Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjKk"
SK = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789AB"
PW = "Pa55word!x"
AKIA = "AKIAIOSFODNN7EXAMPLE"
SECRETS = (GHP, SK, PW, AKIA, GHP[:12], SK[:14])


def _clean(root) -> None:
    for name in ("remotes.json", "config.toml"):
        p = root / name
        if p.exists():
            data = p.read_text()
            assert not any(s in data for s in SECRETS), (name, data)


@pytest.fixture
def e(mem, store_path):
    env = {"MEM_HOME": str(store_path)}
    mem("init", env=env)
    return env


@pytest.mark.parametrize("args, field", [
    (("remote", "add", "o3", "s3://bucket/p", "--endpoint", f"https://minioadmin:{PW}@127.0.0.1:9000"),
     "the --endpoint URL holds a credential"),
    (("remote", "add", "o4", f"s3://{AKIA}@bucket/p"), "the remote URL holds a credential"),
    (("remote", "add", GHP, "/tmp"), "the remote name holds a credential"),
    (("config", "derive.base_url", f"https://user:{PW}@llm.example.com/v1"),
     "the setting derive.base_url holds a credential"),
    (("config", "derive.model", SK), "the setting derive.model holds a credential"),
    (("config", "capture.ignore_marker", GHP), "the setting capture.ignore_marker holds a credential"),
    (("config", "derive.api_key_env", SK), "the setting derive.api_key_env holds a credential"),
    (("get", f"project/x/{GHP}"), "the key holds a credential"),
    (("log", f"project/x/{GHP}"), "the key holds a credential"),
    (("remote", "show", GHP), "the remote name holds a credential"),
])
def test_a_credential_is_refused_named_never_echoed_nor_written(mem, e, store_path, args, field):
    r = mem(*args, env=e, exit_code=2)
    assert field in r.stderr, r.stderr
    assert "hint:" in r.stderr
    assert not any(s in r.stdout + r.stderr for s in SECRETS), r.stderr
    _clean(store_path)


def test_a_remote_folder_whose_path_holds_a_credential_is_refused(mem, e, store_path, tmp_path):
    d = tmp_path / f"dir-{GHP}"
    d.mkdir()
    r = mem("remote", "add", "o2", str(d), env=e, exit_code=2)
    assert "the remote URL holds a credential" in r.stderr and GHP not in r.stdout + r.stderr
    _clean(store_path)
    assert not (store_path / "remotes.json").exists() or "o2" not in (store_path / "remotes.json").read_text()


def test_ordinary_remotes_and_settings_still_go_in(mem, e, store_path, tmp_path):
    mem("remote", "add", "nas", "s3://bucket/p", "--endpoint", "https://127.0.0.1:9000", env=e)
    (tmp_path / "backup-2024").mkdir()
    mem("remote", "add", "local", str(tmp_path / "backup-2024"), env=e)
    for name, value in (("derive.model", "claude-3-5-sonnet-20241022"), ("derive.base_url", "http://localhost:11434/v1"),
                        ("capture.ignore_marker", "#private"), ("derive.api_key_env", "MY_LLM_KEY")):
        assert f"{name} = {value}" in mem("config", name, value, env=e).stdout
    remotes = (store_path / "remotes.json").read_text()
    assert "https://127.0.0.1:9000" in remotes and "backup-2024" in remotes
    assert "MY_LLM_KEY" in (store_path / "config.toml").read_text()
    r = mem("get", "project/x/not-there", env=e, exit_code=4)      # an ordinary unknown key is still named
    assert "no key project/x/not-there" in r.stderr


def test_a_bad_api_key_env_is_not_echoed(mem, e):
    """A value that is no variable name but no known key shape either (a key
    of an unknown provider pasted by mistake) is refused without echo too."""
    r = mem("config", "derive.api_key_env", "zq8-Xv71-mmKp3-Rt0Lw9", env=e, exit_code=2)
    assert "derive.api_key_env: not a valid value" in r.stderr and "zq8-Xv71" not in r.stderr


HEX40 = "9fj38dk2lq0s8d7f6g5h1a2b3c4d5e6f7a8b9c0d"


@pytest.mark.parametrize("args, field", [
    (("remote", "add", "o5", f"s3://{HEX40}@bucket/p"), "the remote URL holds a credential"),
    (("remote", "add", "o6", f"https://{HEX40}@example.com/r"), "the remote URL holds a credential"),
    (("config", "derive.base_url", f"https://{HEX40}@llm.example.com/v1"), "the setting derive.base_url holds"),
])
def test_a_bare_token_before_the_at_of_a_url_is_refused_unshown(mem, store_path, e, args, field):
    """test16b B10: a token of no known shape as a URL's userinfo was written
    to remotes.json / config.toml, and ``remote add https://TOKEN@host``
    echoed it in "unsupported remote URL"."""
    r = mem(*args, env=e, exit_code=2)
    assert field in r.stderr and HEX40 not in r.stdout + r.stderr, r.stderr
    for name in ("remotes.json", "config.toml"):
        p = store_path / name
        assert not p.exists() or HEX40 not in p.read_text()


def test_an_unsupported_url_is_named_by_its_scheme_only(mem, e):
    r = mem("remote", "add", "o7", "ftp://example.com/secretpath-tapir", env=e, exit_code=2)
    assert "'ftp'" in r.stderr and "tapir" not in r.stderr, r.stderr
