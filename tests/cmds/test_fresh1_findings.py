"""Findings of a fresh user's first try (notes/fresh1-findings.md): each
test fails on the code before its fix."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hooks._util import asst, hook_env, line, payload, text, user

REPO = Path(__file__).resolve().parents[2]

HOLD = ("import fcntl, os, sys, time\n"
        "for p in sys.argv[1:]:\n"
        "    fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o600); fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True); time.sleep(60)\n")


# -- 2: doctor and a lock a live process holds -------------------------------

def test_doctor_never_calls_a_held_lock_stale_and_fix_keeps_it(invoke, store_path):
    invoke("remember", "user/shell", "fish")
    helper_lock = store_path / "run" / "helper.lock"
    held_ref_lock = store_path / "refs" / "facts" / "user" / "held.lock"
    dead_ref_lock = store_path / "refs" / "facts" / "user" / "dead.lock"
    helper_lock.parent.mkdir(mode=0o700)
    dead_ref_lock.write_text("")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(helper_lock), str(held_ref_lock)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        for p in (helper_lock, held_ref_lock, dead_ref_lock):
            os.utime(p, (1, 1))  # far older than the grace minute
        r = invoke("doctor", "--json", exit_code=None).json
        locks = [f for f in r["findings"] if f["check"] == "locks"]
        assert len(locks) == 1 and str(dead_ref_lock) in locks[0]["message"], locks
        assert str(helper_lock) not in json.dumps(r) and str(held_ref_lock) not in json.dumps(r)
        invoke("doctor", "--fix", "--json", exit_code=None)
        assert helper_lock.exists() and held_ref_lock.exists() and not dead_ref_lock.exists()
    finally:
        holder.kill()
        holder.wait()
    # the helper's lock file stays between helpers: unheld, it is still not a stale writer's lock
    r = invoke("doctor", "--json", exit_code=None).json
    assert str(helper_lock) not in json.dumps(r)


def test_doctor_never_calls_the_creation_lock_stale(invoke, store_path):
    """fresh7-attack F8: the store's creation lock (``.mem-init.lock``, kept
    between creators like the store lock) was a "stale lock" on every store
    older than a minute."""
    invoke("remember", "user/shell", "fish")
    init_lock = store_path / ".mem-init.lock"
    assert init_lock.exists()
    os.utime(init_lock, (1, 1))  # far older than the grace minute
    r = invoke("doctor", "--json", exit_code=None).json
    assert [f for f in r["findings"] if f["check"] == "locks"] == [], r
    invoke("doctor", "--fix", "--json", exit_code=None)
    assert init_lock.exists()


# -- 3: everything mem writes is owner-only, whatever the umask ----------------

def _loose(root: Path) -> list[str]:
    out = []
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            m = os.lstat(p).st_mode
            if not stat.S_ISLNK(m) and m & 0o077:
                out.append(f"{p} {oct(m & 0o777)}")
    return out


def test_hooks_and_cli_write_owner_only_files_under_umask_022(store_path, tmp_path):
    env = hook_env(store_path, MEM_HOOK_FORK="0")

    def mem(*args, input=None):
        p = subprocess.run([sys.executable, "-m", "cmds", *args], input=input, capture_output=True, env=env,
                           cwd=REPO, timeout=60, preexec_fn=lambda: os.umask(0o022))
        assert p.returncode == 0, p.stderr
        return p

    mem("init")
    mem("remember", "user/shell", "fish")
    tr = tmp_path / "t.jsonl"
    tr.write_bytes(line(user("u1", "which shell do I use?")) + line(asst("a1", "m1", [text("You use fish.")]))
                   + line(user("u2", "and the editor?")) + line(asst("a2", "m2", [text("helix")])))
    for ev, kw in (("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {"prompt": "which shell?"}),
                   ("Stop", {}), ("SessionEnd", {"reason": "exit"})):
        mem("hook", "claude-code", input=json.dumps(payload(ev, "S1", tr, **kw)).encode())
    mem("search", "fish")
    assert _loose(store_path) == []
    r = subprocess.run([sys.executable, "-m", "cmds", "doctor", "--json"], capture_output=True, env=env,
                       cwd=REPO, timeout=60, text=True)
    assert "permissions" not in {f["check"] for f in json.loads(r.stdout)["findings"]}


def test_a_hook_a_silent_helper_never_answers_writes_owner_only_files(store_path, tmp_path):
    """A socket that accepts and never greets (a stuck helper): the prompt
    hook runs in its own process after the greeting wait, and what it
    writes is owner-only under the caller's 022 umask, as without a helper
    (a fresh user found the new object folder 755 and index files 644)."""
    import socket
    import threading
    env = {k: v for k, v in hook_env(store_path).items() if k != "MEM_NO_HELPER"}
    env["MEM_HOOK_FORK"] = "0"
    subprocess.run([sys.executable, "-m", "cmds", "init"], env=env, cwd=REPO, check=True, capture_output=True,
                   timeout=60)
    run = store_path / "run"
    run.mkdir(mode=0o700, exist_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(run / "helper.sock"))
    sock.listen(8)
    held = []
    stop = threading.Event()

    def accept():
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(sock.accept()[0])     # accepted, never answered
            except OSError:
                continue
    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        tr = tmp_path / "t.jsonl"
        tr.write_bytes(line(user("u1", "which shell do I use?")))
        p = subprocess.run([sys.executable, "-m", "cmds", "hook", "claude-code"], capture_output=True, env=env,
                           input=json.dumps(payload("UserPromptSubmit", "S1", tr, prompt="which shell?")).encode(),
                           cwd=REPO, timeout=60, preexec_fn=lambda: os.umask(0o022))
        assert p.returncode == 0
        deadline = time.monotonic() + 30           # (the accept thread may not have run yet)
        while not held and time.monotonic() < deadline:
            time.sleep(0.05)
        assert held                                # the hook did try the helper
    finally:
        stop.set()
        t.join(5)
        for c in held:
            c.close()
        sock.close()
    assert any(True for _ in store_path.glob("objects/??/*")) or any(store_path.glob("objects/pack/*"))
    assert [x for x in _loose(store_path) if not x.startswith(str(run / "helper.sock"))] == []


# -- 5: every exit code a command uses is in docs/exit-codes.md ----------------

def _documented_codes() -> set[int]:
    import re
    doc = (REPO / "docs" / "exit-codes.md").read_text("utf-8")
    return {int(m) for m in re.findall(r"^\| (\d+) \|", doc, re.M)}


def _used_codes() -> set[int]:
    import re
    used: set[int] = set()
    for p in (REPO / "objstore").rglob("*.py"):
        used |= {int(m) for m in re.findall(r"^\s+exit_code = (\d+)\b", p.read_text("utf-8"), re.M)}
    for p in (REPO / "cmds").rglob("*.py"):
        src = p.read_text("utf-8")
        for call in re.findall(r"(?:exit_with|Exit|ctx\.exit)\(([^()]*)\)", src):
            used |= {int(m) for m in re.findall(r"\b(\d+)\b", call)}
        for status in re.findall(r"Exit status:(.*?)(?:\n\s*\n|\"\"\")", src, re.S):
            used |= {int(m) for m in re.findall(r"(?:^|[\s;,(])(\d+)\s+(?=[a-z(])", status)}
    return used


def test_every_exit_code_in_use_is_documented():
    used = _used_codes()
    assert {2, 3, 4, 16} <= used  # the scan sees the codes it should
    assert used - _documented_codes() == set()


# -- 4: config on a read-only store: exit 16 (tests/cmds/test_hardening_cli.py's read-only run)

# -- 6: an agent is never told how to pass a person-only gate ------------------

def test_an_agent_refused_a_forgotten_value_is_told_a_person_has_to_do_it(mem):
    mem("remember", "project/fresh/token", "deploy token is zebra")
    mem("forget", "project/fresh/token", "--yes")
    agent = {"CLAUDECODE": "1"}
    r = mem("remember", "project/fresh/token", "deploy token is zebra", env=agent, exit_code=6)
    assert "--trust" not in r.stderr and "hint: only a person can do this" in r.stderr, r.stderr
    r = mem("remember", "project/fresh/token", "deploy token is zebra", "--json", env=agent, exit_code=6)
    assert "--trust" not in r.stderr and json.loads(r.stderr)["hint"].startswith("only a person")
    r = mem("remember", "project/fresh/token", "deploy token is zebra", "--trust", "derived", exit_code=None)
    assert r.exit_code == 6 and "use --trust user_stated" in r.stderr
    r = mem("queue", "accept", "1", env=agent, exit_code=6)
    assert "CLAUDECODE" not in r.stderr.split("hint:", 1)[1] and "only a person" in r.stderr, r.stderr


# -- 7: config values: maxima, negative numbers, `list` ------------------------

def test_config_ranges_negative_values_and_list(mem, invoke):
    invoke("init")
    from objstore.core.settings import SETTINGS
    assert all(s.maximum is not None for s in SETTINGS.values() if s.kind in ("int", "float"))
    r = mem("config", "context.session_budget", "99999999999999999999", exit_code=2)
    assert "context.session_budget must be in 1..100000" in r.stderr
    r = mem("config", "decay.days", "-3", exit_code=2)
    assert "decay.days must be in 1..36500" in r.stderr and "No such option" not in r.stderr
    r = mem("config", "context.moving_max_age_days", "-0.5", "--json", exit_code=2)
    assert json.loads(r.stderr)["code"] == 2
    assert mem("config", "list").stdout == mem("config").stdout
    assert "decay.days = 60" in mem("config", "list").stdout
    assert mem("config", "decay.days").stdout == "60\n"


# -- 8: a missing path is "not found" (4) for every command ---------------------

def test_missing_paths_exit_4(mem, tmp_path):
    mem("init")
    for args in (["import", "claude-code", str(tmp_path / "nope")], ["import", "jsonl", str(tmp_path / "x.jsonl")],
                 ["scan", "--file", str(tmp_path / "nofile"), "zebra"]):
        r = mem(*args, exit_code=4)
        assert "no such file or directory" in r.stderr, (args, r.stderr)
    # an output file whose folder is missing is a usage error (exit 2, test39 m5), not a missing input
    r = mem("export", "-o", str(tmp_path / "nodir" / "x.jsonl"), exit_code=2)
    assert "does not exist" in r.stderr, r.stderr
    r = mem("import", "jsonl", str(tmp_path / "x.jsonl"), "--json", exit_code=4)
    assert json.loads(r.stderr.splitlines()[-1])["code"] == 4


# -- 12: a prefix too short says so ---------------------------------------------

def test_show_says_a_prefix_is_too_short(invoke):
    invoke("remember", "user/shell", "fish")
    r = invoke("show", "11", exit_code=4)
    assert "too short" in r.stderr and "at least 4" in r.stderr, r.stderr
    assert "too short" not in invoke("show", "1111", exit_code=4).stderr


# -- 11: control and bidi characters are shown as escapes, stored exactly -----------

def test_control_and_bidi_characters_are_escaped_in_context_and_terminal_output(mem, store_path):
    mem("remember", "user/nul", "-", input="a\x00b")
    mem("remember", "user/rlo", "abc\u202edcba and\u200bhidden \u2066x\u2069")
    start = json.loads(mem("hook", "claude-code", input=json.dumps(
        {"session_id": "s1", "cwd": "/tmp", "hook_event_name": "SessionStart", "source": "startup"})).stdout)
    block = start["hookSpecificOutput"]["additionalContext"]
    assert "a\\x00b" in block and "abc\\u202edcba and\\u200bhidden \\u2066x\\u2069" in block, block
    assert not any(c in block for c in "\x00\u202e\u200b\u2066\u2069")
    ctx = mem("context").stdout
    assert "abc\\u202edcba" in ctx and "\u202e" not in ctx
    log = mem("log", "user/rlo").stdout + mem("log", "user/nul").stdout
    assert "abc\\u202edcba" in log and "a\\x00b" in log and "\u202e" not in log and "\x00" not in log
    assert json.loads(mem("get", "user/rlo", "--json").stdout)["body"] == "abc\u202edcba and\u200bhidden \u2066x\u2069"
    assert json.loads(mem("get", "user/nul", "--json").stdout)["body"] == "a\x00b"
