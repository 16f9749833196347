"""fresh43 F5: an unreadable (``chmod 000``, not damaged) ``config`` was
called damaged (exit 13) and ``mem fsck --repair`` set the good config
aside and wrote a default one; an unreadable ``tombstone-digests`` was
called "cut short or damaged … cannot be rebuilt", sending the person to
a backup for a ``chmod``.  Now both are the documented permission error
(exit 1, ``permission denied PATH``), the repair leaves the file alone,
and fsck/doctor name ``chmod``, never damage.  As root a mode never
refuses a read, so the commands run without ``CAP_DAC_OVERRIDE``
(``setpriv``).  Real ``mem`` processes on a real store."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.vault.test_dmg42_unreadable_not_damaged import REPO, _prefix

TEXT = "Zephyrine Quillborough"


def _runner(home):
    pre = _prefix()
    e = {**os.environ, "PYTHONPATH": REPO, "MEM_AGENT": "0", "MEM_HOME": str(home)}

    def run(*args, **extra):
        return subprocess.run([*pre, sys.executable, "-m", "cmds", *args], capture_output=True, text=True,
                              env={**e, **extra}, cwd=REPO, timeout=120)
    return run


def test_an_unreadable_config_is_a_permission_and_the_repair_keeps_it(mem, tmp_path):
    home = tmp_path / "s"
    mem("--home", str(home), "remember", "project/web/host", "alpha-1", env={"MEM_AGENT": "0"})
    run, cfg = _runner(home), home / "config"
    before = cfg.read_bytes()
    os.chmod(cfg, 0)
    try:
        r = run("get", "project/web/host")
        assert r.returncode == 1 and f"permission denied {cfg}" in r.stderr, (r.returncode, r.stderr)
        assert "damaged" not in r.stderr and "--repair" not in r.stderr, r.stderr
        r = run("fsck", "--repair")
        assert r.returncode == 1 and f"permission denied {cfg}" in r.stderr, (r.returncode, r.stdout, r.stderr)
        assert "was damaged" not in r.stdout + r.stderr
        assert not list(home.glob("config.damaged-*"))
    finally:
        os.chmod(cfg, 0o600)
    assert cfg.read_bytes() == before                       # the good config kept, byte for byte
    assert run("get", "project/web/host").stdout.strip().endswith("alpha-1")


def test_unreadable_digests_is_a_permission_not_lost_lines(mem, tmp_path):
    home = tmp_path / "s"
    env = {"MEM_AGENT": "0", "MEM_HOME": str(home)}
    mem("remember", "project/web/host", "beta-host-9922 main", env=env)
    mem("forget", "project/web/host", "--yes", env=env)
    mem("forget", "--match", TEXT, "--yes", env=env)
    run, p = _runner(home), home / "tombstone-digests"
    os.chmod(p, 0)
    try:
        r = run("remember", "project/t/z", f"{TEXT} leads billing", MEM_AGENT="claude")
        assert r.returncode == 1 and f"permission denied {p}" in r.stderr, (r.returncode, r.stderr)
        for args in (("fsck",), ("fsck", "--repair", "--drop-lost-tombstones")):
            r = run(*args)
            out = r.stdout + r.stderr
            assert r.returncode == 0, (args, r.returncode, out)
            assert "tombstone-digests cannot be read by this user (permission denied)" in out, out
            assert f"chmod u+rw {p}" in out and "cut short" not in out and "cannot be rebuilt" not in out, out
            assert "dropped" not in out, out
        d = run("doctor")
        assert "tombstone-digests cannot be read by this user" in d.stdout and "cut short" not in d.stdout, d.stdout
        assert "damaged or of the other type" not in d.stdout, d.stdout
    finally:
        os.chmod(p, 0o600)
    mem("fsck", env=env)                                   # the rule kept: nothing was dropped
    mem("remember", "project/t/z", f"{TEXT} leads billing", env={**env, "MEM_AGENT": "claude"}, exit_code=6)


def test_an_unreadable_config_is_said_by_the_session_start_hook(mem, tmp_path):
    """test44 T15: since the permission error is no damage, the hooks' open let it through: every event captured
    nothing and SessionStart said nothing (before, "capture is stopped: config cannot be read").  Now SessionStart
    and a "remember that …" prompt say so, with the chmod; the hook still exits 0."""
    import json
    home = tmp_path / "s"
    mem("--home", str(home), "remember", "project/web/host", "alpha-1", env={"MEM_AGENT": "0"})
    cfg = home / "config"
    os.chmod(cfg, 0)
    try:
        for event in ({"hook_event_name": "SessionStart", "source": "startup"},
                      {"hook_event_name": "UserPromptSubmit", "prompt": "remember that the web host is beta-2"}):
            ev = {**event, "session_id": "aaaaaaaa-1111-2222-3333-444444444444", "cwd": str(tmp_path)}
            r = subprocess.run([*_prefix(), sys.executable, "-m", "cmds", "hook", "claude-code"], input=json.dumps(ev),
                               capture_output=True, text=True, cwd=REPO, timeout=120,
                               env={**os.environ, "PYTHONPATH": REPO, "MEM_HOME": str(home), "MEM_NO_HELPER": "1"})
            assert r.returncode == 0, r
            out = json.loads(r.stdout)
            assert "capture is stopped" in out["systemMessage"] and f"chmod u+rw {cfg}" in out["systemMessage"], out
    finally:
        os.chmod(cfg, 0o600)


def test_an_unreadable_project_registry_is_kept_by_the_repair(mem, tmp_path):
    """fresh44 F4: ``projects.json`` this user may not read was called damaged and ``fsck --repair`` set the healthy
    file aside, naming the projects again from folders (a chosen name lost).  Now it is a permission, kept."""
    import json
    import time
    home = tmp_path / "s"
    mem("--home", str(home), "init")
    ev = {"hook_event_name": "UserPromptSubmit", "session_id": "aaaaaaaa-1111-2222-3333-444444444444",
          "cwd": str(tmp_path), "prompt": "hello there"}
    subprocess.run([sys.executable, "-m", "cmds", "--home", str(home), "hook", "claude-code"], input=json.dumps(ev),
                   text=True, capture_output=True, cwd=REPO, timeout=120, env={**os.environ, "MEM_NO_HELPER": "1"})
    reg = home / "projects.json"
    for _ in range(100):
        if reg.exists():
            break
        time.sleep(0.1)
    before = reg.read_bytes()
    os.chmod(reg, 0)
    try:
        r = _runner(home)("fsck", "--repair")
        assert "cannot be read by this user (permission denied), which is no damage" in r.stdout, r.stdout
        assert "rebuilt the project registry" not in r.stdout, r.stdout
    finally:
        os.chmod(reg, 0o600)
    assert reg.read_bytes() == before
