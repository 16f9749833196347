"""Fresh attack 5, findings 7, 10 and 11 (notes/fresh5-attack.md), with real
`mem` processes: `mem helper start` with a relative --home / $MEM_HOME, a
misspelt option of `remember` named in its usage error, a full disk reported
as such (not as an internal error to report)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from pathlib import Path

from cmds import _helperclient as hc
from cmds._out import unexpected_error

REPO = Path(__file__).resolve().parents[2]


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env.update(extra)
    return env


def _mem(*args, cwd, env, timeout=60):
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=timeout)


def test_the_helper_starts_for_a_relative_store_path(tmp_path):
    env = _env(MEM_HELPER_WAIT="5")
    assert _mem("--home", "rel-store", "init", cwd=tmp_path, env=env).returncode == 0
    store = tmp_path / "rel-store"
    try:
        for how in (["--home", "rel-store"], []):   # --home, then $MEM_HOME, both relative
            e = env if how else {**env, "MEM_HOME": "rel-store"}
            r = _mem(*how, "helper", "start", cwd=tmp_path, env=e, timeout=90)
            assert r.returncode == 0 and "helper running" in r.stdout, r.stdout + r.stderr
            got = hc.connect(str(store), timeout=5.0)
            assert got is not None
            got[0].sock.close()
            assert not (store / "rel-store").exists()        # nothing made inside the store
            r = _mem(*how, "helper", "stop", cwd=tmp_path, env=e, timeout=60)
            assert r.returncode == 0, r.stderr
    finally:
        _mem("--home", str(store), "helper", "stop", cwd=tmp_path, env=env)
        deadline = time.monotonic() + 20
        while (store / "run" / "helper.sock").exists() and time.monotonic() < deadline:
            time.sleep(0.1)


def test_a_misspelt_option_is_named(tmp_path):
    env = _env(MEM_HOME=str(tmp_path / "s"), MEM_NO_HELPER="1")
    assert _mem("init", cwd=tmp_path, env=env).returncode == 0
    r = _mem("remember", "--bogus", "project/x/k", "hunter2secretvalue", cwd=tmp_path, env=env)
    assert r.returncode == 2 and "--bogus" in r.stderr, r.stderr
    assert "hunter2secretvalue" not in r.stderr                 # values stay hidden
    r = _mem("remember", "--lock-timeout", "1", "project/x/k", "v", cwd=tmp_path, env=env)
    assert r.returncode == 2 and "--lock-timeout" in r.stderr, r.stderr


def test_a_full_disk_is_not_an_internal_error():
    msg, hint = unexpected_error(OSError(errno.ENOSPC, "No space left on device", "/s/objects/tmp-1"))
    assert msg == "no space left on device writing /s/objects/tmp-1" and "nothing already stored was lost" in hint
    msg, hint = unexpected_error(OSError(errno.EDQUOT, "Disk quota exceeded"))
    assert msg == "no space left on device"
    msg, hint = unexpected_error(ValueError("x"))
    assert msg == "internal error: ValueError('x')" and "report it" in hint


def test_a_full_disk_through_a_real_command(tmp_path):
    """`mem get` and `mem log` writing to /dev/full: every write there fails with ENOSPC."""
    env = _env(MEM_HOME=str(tmp_path / "s"), MEM_NO_HELPER="1")
    assert _mem("init", cwd=tmp_path, env=env).returncode == 0
    assert _mem("remember", "project/x/k", "some value", cwd=tmp_path, env=env).returncode == 0
    for args in (("get", "project/x/k"), ("log", "project/x/k")):
        with open("/dev/full", "w") as full:
            r = subprocess.run([sys.executable, "-m", "cmds", *args], stdout=full, stderr=subprocess.PIPE, text=True,
                               cwd=tmp_path, env=env, timeout=60)
        assert r.returncode == 1 and "no space left on device" in r.stderr, r.stderr
        assert "standard output could not be written" in r.stderr, r.stderr   # not the disk (fresh41 F18)
        assert "report it" not in r.stderr and "internal error" not in r.stderr
    assert _mem("get", "project/x/k", cwd=tmp_path, env=env).stdout == "some value\n"


def test_a_sub_agent_write_says_why_it_is_not_current_and_a_sibling_id_is_never_named(tmp_path):
    """fresh5-user 2 and 3: `remember --agent` named a backfill that was not one;
    recall as a sibling named the other sub-agent's version as "an older version"."""
    env = _env(MEM_HOME=str(tmp_path / "s"), MEM_NO_HELPER="1")
    assert _mem("init", cwd=tmp_path, env=env).returncode == 0
    _mem("remember", "project/ns/cache", "redis 7 parent-level", "--session", "S1", cwd=tmp_path, env=env)
    r = _mem("remember", "project/ns/cache", "memcached explorer-view", "--session", "S1", "--agent", "explorer",
             cwd=tmp_path, env=env)
    assert r.returncode == 0 and "backfill" not in r.stdout and "sub-agent" in r.stdout, r.stdout
    sibling_id = r.stdout.split()[3]
    _mem("remember", "project/ns/other", "sibling only fact", "--session", "S1", "--agent", "builder",
         cwd=tmp_path, env=env)
    r = _mem("recall", "cache", "--project", "ns", "--session", "S1", "--agent", "builder", cwd=tmp_path, env=env)
    assert "redis 7 parent-level" in r.stdout, r.stdout
    assert sibling_id not in r.stdout and "older version" not in r.stdout, r.stdout
    r = _mem("recall", "cache", "--project", "ns", "--session", "S1", "--agent", "builder", "--json",
             cwd=tmp_path, env=env)
    assert sibling_id not in r.stdout


def test_the_demo_shows_the_value_on_disk_before_forget_and_nowhere_after(tmp_path):
    env = _env(MEM_NO_HELPER="1", HOME=str(tmp_path))
    r = _mem("demo", cwd=tmp_path, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "files containing it before forget: 0" not in r.stdout and "files containing it before forget:" in r.stdout
    assert "files containing it: 0" in r.stdout and "REDACTED" not in r.stdout.split("before forget")[0][-400:]


def test_a_misspelt_option_with_a_value_is_an_error_not_the_value(tmp_path):
    """fresh5-verify N1: `remember KEY --sensitivty=secret` stored the option text as the value."""
    env = _env(MEM_HOME=str(tmp_path / "s"), MEM_NO_HELPER="1")
    assert _mem("init", cwd=tmp_path, env=env).returncode == 0
    for args in (("project/x/n", "--sensitivty=secret"), ("project/x/n", "--pw=Hunter2Secret"),
                 ("--password=Hunter2Secret", "project/x/n", "v")):
        r = _mem("remember", *args, cwd=tmp_path, env=env)
        assert r.returncode == 2 and "No such option '--" in r.stderr, r.stderr
        assert "Hunter2Secret" not in r.stderr and "secret'" not in r.stderr.split("Did you mean")[0]
    assert _mem("get", "project/x/n", cwd=tmp_path, env=env).returncode == 4   # nothing written
    r = _mem("remember", "project/x/n", "--", "--flag=value", cwd=tmp_path, env=env)
    assert r.returncode == 0
    assert _mem("get", "project/x/n", cwd=tmp_path, env=env).stdout == "--flag=value\n"


def test_a_file_size_limit_is_not_an_internal_error(tmp_path):
    """test26 V8: under ``ulimit -f`` a write fails with EFBIG (Python ignores
    SIGXFSZ): named as the limit it is, exit 1, nothing stored lost."""
    import base64
    import resource
    env = _env(MEM_HOME=str(tmp_path / "s"), MEM_NO_HELPER="1")
    assert _mem("remember", "project/u/a", "before", cwd=tmp_path, env=env).returncode == 0
    big = base64.b64encode(os.urandom(30000)).decode()

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    r = subprocess.run([sys.executable, "-m", "cmds", "remember", "project/u/a", big], capture_output=True, text=True,
                       cwd=tmp_path, env=env, timeout=60, preexec_fn=limit)
    assert r.returncode == 1 and "Error: file size limit reached" in r.stderr, r.stderr
    assert "internal error" not in r.stderr and "nothing already stored was lost" in r.stderr
    assert _mem("get", "project/u/a", cwd=tmp_path, env=env).stdout.strip() == "before"
    assert _mem("fsck", cwd=tmp_path, env=env).returncode == 0
