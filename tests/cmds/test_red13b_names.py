"""Lane red13b, the tester's credential leftovers in names: ``mem forget``
kept a credential-shaped ``--session`` or KEY in the clear (a ``session:``
tombstone, the unfinished-forget note, ``no session sk-ant-…``); a malformed
name holding a credential was echoed by its format error (``bad agent name
'Password: Zq7mm'``) or hidden behind ``needs its session``.  One rule:
``objstore.core.redact.check_name``, run before any format message.  Real
``mem`` processes on real stores; every credential here is fake."""

from __future__ import annotations

import pytest

from tests.hooks._util import files_holding as _files_holding

ANT = "sk-ant-api03-" + "Qm9vZ1x7Tz3RkP0aLw9vN2cYd8Hf1JeUq4sX"
GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.parametrize("args, field, secret", [
    (["--session", ANT], "session", ANT),
    (["--session", f"s1.agent-{GHP}"], "session", GHP),
    ([f"project/api/{ANT}"], "key", ANT),
    ([f"project/api/{ANT}@v1"], "key", ANT),
    (["project/api/Password: Zq7mm"], "key", "Zq7mm"),
])
def test_forget_refuses_a_name_holding_a_credential_without_echoing_it(mem, store_path, args, field, secret):
    mem("remember", "project/api/k1", "kept", "--session", "s1")
    r = mem("forget", *args, "--yes", exit_code=2)
    assert f"the {field} holds a credential" in r.stderr, r.stderr
    assert secret not in r.stdout + r.stderr
    assert _files_holding(store_path, secret) == []
    assert mem("get", "project/api/k1").stdout.strip() == "kept"


def test_forget_still_takes_a_plain_session_and_match_text(mem):
    mem("remember", "project/api/k1", f"token {GHP}", "--session", "s1")
    r = mem("forget", "--session", "s1", "--dry-run", exit_code=4)   # a plain id: looked up as before
    assert "no session s1" in r.stderr, r.stderr
    mem("forget", "--match", GHP, "--dry-run")              # --match is text, never stored: taken


@pytest.mark.parametrize("args, field", [
    (["--session", "s1", "--agent", "Password: Zq7mm"], "agent"),
    (["--agent", "Password: Zq7mm"], "agent"),              # no session: not hidden by "needs its session"
    (["--session", "Password: Zq7mm "], "session"),         # white space at the end: a format error
    (["--session", "s1", "--agent", f"x/{GHP}"], "agent"),
])
def test_remember_refuses_a_bad_name_holding_a_credential_as_such(mem, store_path, args, field):
    r = mem("remember", "project/api/k1", "v", *args, exit_code=2)
    assert f"the {field} holds a credential" in r.stderr, r.stderr
    assert "Zq7mm" not in r.stdout + r.stderr and GHP not in r.stdout + r.stderr
    assert _files_holding(store_path, "Zq7mm") == [] and _files_holding(store_path, GHP) == []


def test_a_bad_key_holding_a_credential_is_refused_as_such(mem):
    r = mem("remember", "project/api/Password: Zq7mm@x", "v", exit_code=2)   # '@': a format error
    assert "the key holds a credential" in r.stderr and "Zq7mm" not in r.stderr, r.stderr


def test_a_bad_name_without_a_credential_keeps_its_format_message(mem):
    r = mem("remember", "project/api/k1", "v", "--session", "s1", "--agent", "bad name", exit_code=2)
    assert "bad agent name 'bad name'" in r.stderr, r.stderr


# -- 3: a token right after the word password, in prose ------------------------------------------------
@pytest.mark.parametrize("value, kept", [
    ("ok, noted the password hunter2x9 for staging", ("ok, noted the password ", " for staging")),
    ("use password hunter2x9", ("use password ",)),
    ("the password hunter2x9 works", ("the password ", " works")),
])
def test_remember_redacts_a_token_right_after_the_word_password(mem, store_path, value, kept):
    mem("remember", "project/acme/pp1", value)
    got = mem("get", "project/acme/pp1").stdout
    assert "hunter2x9" not in got and "[REDACTED:password-phrase]" in got, got
    assert all(k in got for k in kept), got
    assert _files_holding(store_path, "hunter2x9") == []


@pytest.mark.parametrize("value", [
    "the password reset flow sends a mail",       # letters alone: prose
    "hash the password sha256 first, then salt",  # a scheme
    "change the password v1.2 handling",          # a version
    "the password 1234 digits alone",             # digits alone: a count or a PIN, as for labels
])
def test_prose_about_a_password_is_stored_as_typed(mem, value):
    mem("remember", "project/acme/pp2", value)
    assert mem("get", "project/acme/pp2").stdout.strip() == value


# -- 4: a hook's working directory holding a credential ------------------------------------------------
AKIA = "AKIA" + "2E0A8F3B244C9986"


def test_a_hook_event_whose_cwd_holds_a_credential_is_skipped_and_fails_open(tmp_path, mem, store_path):
    from tests.hooks._util import asst, hook_env, line, payload, run_hook, text, turns, user
    mem("init")
    env = hook_env(store_path, MEM_HOOK_FORK="0")
    t = tmp_path / "S1.jsonl"
    t.write_bytes(line(user("u1", "the build uses zebracanary", "S1")) + line(asst("a1", "m1", [text("noted")], "S1")))
    bad = f"/home/dev/{AKIA}/proj"
    for ev, kw in (("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {"prompt": "what db do we use"}),
                   ("Stop", {})):
        rc, out, err, _s = run_hook(store_path, payload(ev, "S1", t, cwd=bad, **kw), env=env)
        assert (rc, out) == (0, ""), err
    log = (store_path / "logs" / "hooks.log").read_text()
    assert log.count("cwd-credential") == 3 and AKIA not in log, log
    assert _files_holding(store_path, AKIA) == []
    assert not turns(store_path)
    rc, _out, err, _s = run_hook(store_path, payload("Stop", "S1", t, cwd=str(tmp_path)), env=env)
    assert rc == 0 and {x[0] for x in turns(store_path)} == {"S1"}, (err, turns(store_path))   # served again


def test_the_shell_hook_skips_a_command_whose_cwd_holds_a_credential(mem, store_path, tmp_path):
    import subprocess
    import sys

    from tests.hooks._util import REPO, hook_env, turns
    mem("init")
    env = hook_env(store_path, MEM_SHELL_CAPTURE="1")

    def shell(cwd: str, i: int, command: str):
        return subprocess.run([sys.executable, "-m", "cmds", "hook", "shell", "--session", "shell-1", "--cwd", cwd,
                               "--status", "0", "--start", str(1767225600000 + i * 1000), "--duration", "5"],
                              input=command, capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    p = shell(f"/home/dev/{AKIA}", 0, "make wombat")
    assert (p.returncode, p.stdout, p.stderr) == (0, "", ""), p
    assert shell(str(tmp_path), 1, "make quokka").returncode == 0
    assert [x[3].splitlines()[0] for x in turns(store_path)] == ["$ make quokka"]
    log = (store_path / "logs" / "hooks.log").read_text()
    assert "HookInputError:cwd-credential" in log and AKIA not in log, log
    assert _files_holding(store_path, AKIA) == []
