"""Issue 21 (hardening), the store side: every test here failed on the code
before its fix.  Items: 1 keys with '@', 12 invalid UTF-8 arguments,
13 read-only store, 14 confusing messages."""

from __future__ import annotations

import json

import pytest


# -- 1: '@' in keys ----------------------------------------------------------

def test_at_in_key_is_refused(invoke):
    r = invoke("remember", "project/a/b@v2", "v", exit_code=2)
    assert "'@' is not allowed in keys" in r.stderr
    invoke("remember", "project/a/b", "one")
    invoke("remember", "project/a/b", "two")
    # KEY@vN names a version, and nothing else
    assert invoke("show", "project/a/b@v1", "--json").json["body"] == "one"
    assert invoke("get", "project/a/b").stdout == "two\n"


def test_legacy_at_key_makes_the_selector_ambiguous(invoke, store):
    """A store written by the old code may hold key 'project/a/b@v2'; forget
    'project/a/b@v2' must then refuse instead of forgetting v2 of project/a/b."""
    from objstore.core.objects import Fact
    from objstore.core.refs import fact_ref
    from objstore.memory.facts import remember
    remember(store, "project/a/b", "one")
    remember(store, "project/a/b", "two")
    old = Fact(key="project/a/b@v2", kind="project", body="v", version=1, parent=None,
               valid_from=1, recorded_at=1)
    oid = store.put(old)
    with store.lock("test"):
        store.refs.set_if_equals(fact_ref("project/a/b@v2"), None, oid)
    r = invoke("forget", "project/a/b@v2", "--yes", exit_code=4)
    assert "also a key with '@'" in r.stderr
    assert invoke("get", "project/a/b").stdout == "two\n"
    assert len(invoke("log", "project/a/b", "--json").json) == 2
    fs = invoke("fsck", "--json").json
    assert fs["ok"] and any("holds '@'" in w for w in fs["warnings"])
    invoke("forget", oid[:12], "--yes")  # the way out: by id
    assert "project/a/b@v2" not in invoke("keys").stdout
    assert invoke("get", "project/a/b").stdout == "two\n"


# -- 12: invalid UTF-8 in arguments -----------------------------------------

def test_invalid_utf8_argument_is_a_usage_error(mem):
    mem("remember", "user/x", "rust")
    for args in (["context", "--prompt", "\udcff rust"], ["recall", "rust", "--project", "\udcff"]):
        r = mem(*args, exit_code=2)
        assert r.stderr.startswith("Error: argument ") and "is not valid UTF-8: '\\xff" in r.stderr, r.stderr
        assert "internal error" not in r.stderr
    r = mem("recall", "rust", "--json", "--project", "\udcff", exit_code=2)
    assert json.loads(r.stderr)["code"] == 2


# -- 14: --json errors are one JSON line, usage errors included --------------

def test_json_errors_once_on_stderr(invoke, mem):
    r = invoke("log", "user/nope", "--json", exit_code=10)
    assert [json.loads(line)["code"] for line in r.stderr.splitlines()] == [10]
    mem("init")
    r = mem("log", "user/nope", "--json", exit_code=4)
    assert json.loads(r.stderr) == {"message_type": "exit_error", "code": 4, "message": "no key user/nope",
                                    "hint": "list keys with: mem keys"}
    r = mem("log", "user/nope", "--json", "--bogus", exit_code=2)
    assert json.loads(r.stderr)["message"] == "No such option '--bogus'."


# -- 13: a read-only store ---------------------------------------------------

def _readonly_runner(store_path, tmp_path):
    """Run ``mem`` on ``store_path`` as if it were on a read-only mount: as
    root, in a private mount namespace where it is bind-mounted read-only
    (root ignores permission bits); otherwise with its write bits removed."""
    import os
    import shutil
    import subprocess
    import sys

    from tests.conftest import REPO, Result
    if os.geteuid() == 0:
        probe = subprocess.run(["unshare", "-m", "sh", "-c", 'mount --bind "$0" "$0" && '
                                'mount -o remount,ro,bind "$0" && ! touch "$0/x" 2>/dev/null', str(store_path)],
                               capture_output=True) if shutil.which("unshare") else None
        if probe is None or probe.returncode != 0:
            pytest.skip("cannot make a read-only mount here (root without unshare/mount)")
        prefix = ["unshare", "-m", "sh", "-c", 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && '
                  'shift && exec "$@"', str(store_path), "-"]
    else:
        for d, _dirs, files in os.walk(store_path):
            for f in files:
                os.chmod(os.path.join(d, f), 0o400)
            os.chmod(d, 0o500)
        prefix = []

    def run(*args, exit_code=0, input=None):
        env = dict(os.environ, MEM_HOOK_FORK="0")
        p = subprocess.run([*prefix, sys.executable, "-m", "cmds", *args], input=input, capture_output=True,
                           text=True, env=env, cwd=REPO, timeout=120)
        if exit_code is not None:
            assert p.returncode == exit_code, f"exit {p.returncode}\nstdout: {p.stdout}\nstderr: {p.stderr}"
        return Result(p.returncode, p.stdout, p.stderr)
    return run


def test_read_only_store_reads_refuses_writes_and_hooks_inject(mem, store_path, tmp_path):
    mem("remember", "project/tmp/editor", "The editor for rust code is helix")
    mem("remember", "user/shell", "fish")
    before = sorted(str(p) for p in store_path.rglob("*"))
    ro = _readonly_runner(store_path, tmp_path)
    assert "helix" in ro("search", "rust").stdout
    assert "fish" in ro("recall", "which shell").stdout
    assert ro("get", "user/shell").stdout == "fish\n"
    ro("fsck")
    for args in (["remember", "user/x", "y"], ["forget", "user/shell", "--yes"], ["gc"], ["config", "decay.days", "10"]):
        r = ro(*args, exit_code=16)
        assert r.stderr.startswith("Error: the store at ") and "is read-only" in r.stderr, r.stderr
        assert "internal error" not in r.stderr
    start = ro("hook", "claude-code", input=json.dumps(
        {"session_id": "s1", "cwd": "/tmp", "hook_event_name": "SessionStart", "source": "startup"}))
    assert "fish" in json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    prompt = ro("hook", "claude-code", input=json.dumps(
        {"session_id": "s1", "cwd": "/tmp", "hook_event_name": "UserPromptSubmit",
         "prompt": "which editor should I use for the rust code?"}))
    assert "helix" in json.loads(prompt.stdout)["hookSpecificOutput"]["additionalContext"]
    if __import__("os").geteuid() == 0:
        assert sorted(str(p) for p in store_path.rglob("*")) == before


# -- 14: confusing messages --------------------------------------------------

def test_show_says_an_old_version_is_superseded(invoke):
    invoke("remember", "project/api/db", "Postgres 15")
    invoke("remember", "project/api/db", "Postgres 16")
    r = invoke("show", "project/api/db@v1")
    assert "(v1, superseded by v2)" in r.stdout and "not the current value" in r.stdout
    assert invoke("show", "project/api/db@v1", "--json").json["status"] == "superseded by v2"
    assert "(v2, current)" in invoke("show", "project/api/db").stdout


def test_forget_preview_says_which_value_becomes_current(invoke):
    invoke("remember", "project/api/db", "Postgres 15")
    invoke("remember", "project/api/db", "Postgres 16")
    r = invoke("forget", "project/api/db@v2", "--dry-run")
    assert "v1 becomes current again: Postgres 15" in r.stdout
    r = invoke("forget", "project/api/db@v1", "--dry-run")
    assert "becomes current" not in r.stdout


def test_show_prefix_of_several_sessions_lists_them_and_sessions_align(invoke, tmp_path):
    import objstore
    from objstore.memory.opening import open_store
    with open_store(tmp_path / "store", create=True) as s:
        for sid in ("abcd-1", "abcd-2-with-a-much-longer-id-than-the-other-one"):
            objstore.capture_shell(s, session_id=sid, command_line="ls", cwd=str(tmp_path), status=0,
                                   duration_ms=1, started_ms=1_700_000_000_000)
    r = invoke("show", "abcd", exit_code=4)
    assert "abcd-1" in r.stderr and "abcd-2-with-a-much-longer-id" in r.stderr
    lines = invoke("sessions").stdout.splitlines()
    assert len(lines) == 2 and len({line.index("2023-") for line in lines}) == 1  # columns line up
    assert all(line.rstrip().endswith(" 1 turn") for line in lines)
    assert "(1 turn)" in invoke("show", "abcd-1").stdout


def test_recall_names_the_project_that_has_the_hits(invoke, tmp_path, monkeypatch):
    invoke("remember", "project/api/db", "Postgres 16 on port 5433")
    d = tmp_path / "elsewhere"
    d.mkdir()
    monkeypatch.chdir(d)
    r = invoke("recall", "which port does postgres use")
    assert r.stdout == ""
    assert "other projects have hits: api (--project api" in r.stderr
    assert "5433" in invoke("recall", "which port does postgres use", "--project", "api").stdout


def test_show_refuses_a_prefix_that_names_an_object_and_a_session(invoke, tmp_path):
    import objstore
    from objstore.memory.opening import open_store
    oid = invoke("remember", "user/x", "one").stdout.split()[-1]
    full = invoke("log", "user/x", "--json").json[0]["id"]
    assert full.startswith(oid)
    with open_store(tmp_path / "store", create=True) as s:
        objstore.capture_shell(s, session_id=full[:8] + "-shell", command_line="ls", cwd=str(tmp_path), status=0,
                               duration_ms=1, started_ms=1_700_000_000_000)
    r = invoke("show", full[:8], exit_code=4)
    assert f"names object {full[:12]} and session {full[:8]}-shell" in r.stderr
    assert invoke("show", full[:12]).stdout.startswith(f"fact {full}")
    assert "1 turn" in invoke("show", full[:8] + "-shell").stdout
