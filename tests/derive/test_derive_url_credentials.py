"""test29 P2: a base URL that holds a credential (``user:key@``, ``?key=``)
is refused wherever it comes from — ``OPENAI_BASE_URL``, a hand-edited
``config.toml``, ``mem config derive.base_url`` — and never reaches the
terminal, the plan-shown record or a derive report.  Real ``mem``
processes; the URLs point at a closed loopback port, so no call is made."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.derive._util import transcript

KEY = "sk-proj-Qw3rTy7uIo9pAs2dFg5hJk8lZx1cVb4nM6q0W"
GOOGLE = "ZzQ9kLmN3pRt7VwX2yB5cD8fG1hJ4sA6"


def _store_files(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file())


@pytest.fixture
def home(mem, tmp_path):
    projects = tmp_path / "claude" / "projects" / "-home-dev-acme-api"
    transcript(projects / "s.jsonl", "s", [("user", "deploys run on the walrus host every friday")])
    mem("import", "claude-code", str(tmp_path / "claude" / "projects"))
    return Path(os.environ["MEM_HOME"])


@pytest.mark.parametrize("url", [f"http://user:{KEY}@127.0.0.1:9/v1", f"http://{KEY}@127.0.0.1:9/v1",
                                 f"http://127.0.0.1:9/v1?key={GOOGLE}", f"http://127.0.0.1:9/v1?api-key={GOOGLE}",
                                 f"http://127.0.0.1:9/v1?foo=1&access_token={GOOGLE}"])
@pytest.mark.parametrize("args", [("derive", "--plan"), ("derive", "--apply"), ("derive", "--json")])
def test_env_base_url_with_a_credential_is_refused_and_written_nowhere(home, mem, url, args):
    secret = KEY if KEY in url else GOOGLE
    r = mem(*args, exit_code=2, env={"OPENAI_BASE_URL": url, "OPENAI_MODEL": "fake", "OPENAI_API_KEY": "x"})
    assert "OPENAI_BASE_URL holds a credential" in r.stderr, r.stderr
    assert secret not in r.stdout + r.stderr
    assert secret.encode() not in _store_files(home)
    assert not (home / "cache" / "derive-plan-shown.json").exists()


def test_config_toml_base_url_with_a_credential_is_refused(home, mem):
    cfg = home / "config.toml"
    cfg.write_text(cfg.read_text() + f'\n[derive]\nprovider = "openai"\nbase_url = "http://127.0.0.1:9/v1?key={GOOGLE}"\n'
                   if cfg.exists() else
                   f'[derive]\nprovider = "openai"\nbase_url = "http://127.0.0.1:9/v1?key={GOOGLE}"\n')
    r = mem("derive", "--plan", exit_code=2, env={"OPENAI_API_KEY": "x"})
    assert "setting derive.base_url holds a credential" in r.stderr, r.stderr
    assert GOOGLE not in r.stdout + r.stderr
    assert not (home / "cache" / "derive-plan-shown.json").exists()


def test_mem_config_refuses_a_key_query_parameter(home, mem):
    r = mem("config", "derive.base_url", f"http://127.0.0.1:9/v1?key={GOOGLE}", exit_code=2)
    assert GOOGLE not in r.stdout + r.stderr
    assert GOOGLE.encode() not in _store_files(home)
    # a URL without a credential is taken, and its plan names it
    mem("config", "derive.base_url", "http://127.0.0.1:9/v1?api-version=2024-06-01")
    mem("config", "derive.provider", "openai")
    r = mem("derive", "--plan", env={"OPENAI_API_KEY": "x"})
    assert "http://127.0.0.1:9/v1?api-version=2024-06-01" in r.stdout


def test_plain_env_base_url_still_works_for_the_plan(home, mem):
    r = mem("derive", "--plan", env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_MODEL": "fake",
                                     "OPENAI_API_KEY": "x"})
    assert "openai fake at http://127.0.0.1:9/v1" in r.stdout
    assert (home / "cache" / "derive-plan-shown.json").exists()


@pytest.mark.parametrize("url", ["http://gwuser:wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzQq9@127.0.0.1:9/v1",
                                 "http://127.0.0.1:9/v1?api%5Fkey=ZzQ9kLmN3pRt7VwX2yB5cD8fG1hJ4sA6"])
def test_a_slashed_password_and_an_encoded_key_name_are_refused(home, mem, url):
    """test29b Q2: a password holding ``/`` (AWS/MinIO secret keys) put its
    ``/`` before the ``@``, and ``api%5Fkey`` is ``api_key``: both passed."""
    r = mem("derive", "--plan", exit_code=2, env={"OPENAI_BASE_URL": url, "OPENAI_MODEL": "fake",
                                                  "OPENAI_API_KEY": "x"})
    assert "wJalrXUtnFEMI" not in r.stdout + r.stderr and "ZzQ9kLmN3pRt7" not in r.stdout + r.stderr
    r = mem("remote", "add", "o", "s3://minio:wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz@bucket/p", exit_code=2)
    assert "wJalrXUtnFEMI" not in r.stdout + r.stderr
    assert b"wJalrXUtnFEMI" not in _store_files(home)


@pytest.mark.parametrize("url", ["http://127.0.0.1:99999999/v1", "http://127.0.0.1:8o8o/v1"])
def test_a_bad_port_is_a_clear_error(home, mem, url):
    """test29b Q2 (a port out of range) and the session-29 helper's
    non-numeric port (``http.client.InvalidURL``, no ValueError): the
    session is reported failed with the reason, nothing is filed."""
    r = mem("derive", "--apply", exit_code=None, env={"OPENAI_BASE_URL": url,
                                                      "OPENAI_MODEL": "fake", "OPENAI_API_KEY": "x"})
    assert "internal error" not in r.stderr.lower() and "Traceback" not in r.stderr, r.stderr
    assert "could not be reached" in r.stdout + r.stderr, (r.stdout, r.stderr)
    assert mem("keys", "--json").stdout.strip() in ("[]", "")
