"""test34 T12.1, T12.3-T12.5: small bad-input fixes, with real ``mem``
processes (the lean path and the click path alike)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.hooks._util import REPO, hook_env


def _env(**extra) -> dict:
    return hook_env(Path(extra.pop("MEM_HOME")), PYTHONPATH=str(REPO), MEM_NO_HELPER="1", **extra)


def _mem(*args, cwd, env):
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, cwd=cwd, env=env, timeout=120)


def test_a_bad_utf8_argument_is_counted_from_the_command(tmp_path):
    """T12.3: the KEY of 'mem remember KEY VALUE' was "argument 2"."""
    env = _env(MEM_HOME=str(tmp_path / "s"))
    r = _mem("remember", b"project/p/a\xffb", "x", cwd=tmp_path, env=env)
    assert r.returncode == 2 and b"argument 1 of 'mem remember' is not valid UTF-8" in r.stderr, r.stderr
    r = _mem("remember", "project/p/ab", b"x\xff", cwd=tmp_path, env=env)
    assert r.returncode == 2 and b"argument 2 of 'mem remember' is not valid UTF-8" in r.stderr, r.stderr
    r = _mem("--home", str(tmp_path / "s"), "get", b"project/p/a\xffb", cwd=tmp_path, env=env)
    assert r.returncode == 2 and b"argument 1 of 'mem get' is not valid UTF-8" in r.stderr, r.stderr


def test_json_and_plain_together_are_refused(tmp_path):
    """T12.4: 'mem keys --json --plain' printed plain; both paths refuse two formats."""
    env = _env(MEM_HOME=str(tmp_path / "s"))
    assert _mem("remember", "project/p/k", "v", cwd=tmp_path, env=env).returncode == 0
    for args in (("keys", "--json", "--plain"), ("keys", "--plain", "--json"), ("get", "project/p/k", "--json", "--plain"),
                 ("log", "project/p/k", "--plain", "--json")):
        r = _mem(*args, cwd=tmp_path, env=env)
        assert r.returncode == 2 and r.stdout == b"", (args, r.stdout, r.stderr)
        assert json.loads(r.stderr)["message"] == "--json and --plain are two output formats: give one of them"
    assert _mem("keys", "--plain", cwd=tmp_path, env=env).stdout.count(b"\t") >= 3   # each alone still works
    assert json.loads(_mem("keys", "--json", cwd=tmp_path, env=env).stdout)[0]["key"] == "project/p/k"


def test_an_empty_project_or_show_argument_is_bad_input(tmp_path):
    """T12.5: '--project ""' silently meant the working directory's project; 'mem show ""' said "nothing named" (4)."""
    env = _env(MEM_HOME=str(tmp_path / "s"))
    assert _mem("remember", "project/p/k", "v", cwd=tmp_path, env=env).returncode == 0
    for args in (("context", "--project", ""), ("recall", "anything", "--project", "")):
        r = _mem(*args, cwd=tmp_path, env=env)
        assert r.returncode == 2 and b"--project is empty" in r.stderr and r.stdout == b"", (args, r.stderr)
    r = _mem("show", "", cwd=tmp_path, env=env)
    assert r.returncode == 2 and b"WHAT is empty" in r.stderr, r.stderr
    assert _mem("context", "--project", "p", cwd=tmp_path, env=env).returncode == 0


def test_import_claude_memory_reads_a_file_named_directly(tmp_path):
    """T12.1: a CLAUDE.md named directly was read as a Claude home folder: 0 files, exit 0."""
    env = _env(MEM_HOME=str(tmp_path / "s"))
    (tmp_path / "cm").mkdir()
    (tmp_path / "cm" / "CLAUDE.md").write_text("# notes\n\n- use pnpm for installs\n- tabs over spaces\n")
    r = _mem("import", "claude-memory", str(tmp_path / "cm" / "CLAUDE.md"), "--json", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["files"] == 1 and doc["proposed"] == 2, doc
    q = _mem("queue", "list", cwd=tmp_path, env=env).stdout.decode()
    assert "user/memory/user.md" in q and "use pnpm for installs" in q
    r = _mem("import", "claude-memory", str(tmp_path / "cm"), "--json", cwd=tmp_path, env=env)   # the folder: the same file
    assert json.loads(r.stdout)["present"] == 2
