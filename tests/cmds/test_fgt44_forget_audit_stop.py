"""fresh42 F4: a KEY forget stopped by an unwritable audit log (after its
key's tombstone), rerun as its hint says, exited 3 blaming "an older mem"
while fsck and status sent the person back to that same rerun.  The rerun's
own lock finishes it from the tombstone: it now says so, exit 0, and the
note goes.  Real ``mem`` processes; as root the stopped one runs without
CAP_DAC_OVERRIDE (``setpriv``) so the mode bits hold."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.hooks._util import REPO, hook_env


def test_a_key_forget_stopped_by_an_unwritable_audit_log_is_finished_by_its_rerun(tmp_path):
    home = tmp_path / "s"
    env = hook_env(home, PYTHONPATH=str(REPO), MEM_NO_HELPER="1", PYTHONDONTWRITEBYTECODE="1")
    drop = []
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("root without setpriv: the audit log's mode bits do not hold")
        drop = ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search", "--"]

    def mem(*args, pre=()):
        return subprocess.run([*pre, sys.executable, "-m", "cmds", *args], capture_output=True, text=True,
                              cwd=tmp_path, env=env, timeout=120)

    assert mem("remember", "project/x/sp", "  spaced  ").returncode == 0
    assert mem("remember", "project/x/other", "kept").returncode == 0
    audit = home / "logs" / "audit"
    audit.chmod(0)
    try:
        r = mem("forget", "project/x/sp", "--yes", pre=drop)
    finally:
        audit.chmod(0o600)
    assert r.returncode == 13 and "run the same forget again" in r.stderr, (r.returncode, r.stderr)
    assert "mem forget project/x/sp --yes" in mem("status").stdout
    r = mem("forget", "project/x/sp", "--yes")
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "older mem" not in r.stdout + r.stderr
    assert "finished the forget of project/x/sp stopped earlier" in r.stdout, r.stdout
    f = mem("fsck")
    assert f.returncode == 0 and f.stdout.startswith("ok"), (f.stdout, f.stderr)
    assert "did not finish" not in mem("status").stdout
    assert mem("get", "project/x/sp").returncode == 4
    assert mem("get", "project/x/other").stdout.strip() == "kept"
