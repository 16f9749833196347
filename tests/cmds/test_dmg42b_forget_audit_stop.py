"""fresh42 F4: a ``mem forget KEY`` stopped by an audit log it could not
write (its key's tombstone stored), rerun as its hint says once the log is
writable, exited 3 blaming "an older mem": the next holder of the store
lock had removed the key from its tombstone, so the rerun found it gone
with its note still there, and fsck and status sent the user back to the
same command.  Now the key stays for the rerun (``forgetresume``), which
finishes the forget.  Real ``mem`` processes (run without DAC override, as
root reads any file) on a real store."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NO_DAC = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search",
          "--inh-caps", "-dac_override,-dac_read_search"]


def test_a_forget_stopped_by_the_audit_log_is_finished_by_its_rerun(mem, store_path):
    pre = NO_DAC if os.geteuid() == 0 else []
    if pre and shutil.which("setpriv") is None:
        pytest.skip("root writes every file and setpriv is missing: an unwritable audit log cannot be made")
    mem("remember", "project/x/sp", "  spaced  ")
    mem("remember", "project/x/keep", "the runner is in rack four")
    audit = store_path / "logs" / "audit"
    audit.chmod(0)
    p = subprocess.run([*pre, sys.executable, "-m", "cmds", "forget", "project/x/sp", "--yes"], cwd=REPO,
                       capture_output=True, text=True, env=dict(os.environ), timeout=120)
    audit.chmod(0o600)
    assert p.returncode == 13 and "run the same forget again" in p.stderr, (p.returncode, p.stderr)
    mem("remember", "project/x/other", "a write in between takes the lock")   # (recovery ran here)
    assert "mem forget project/x/sp --yes" in mem("status").stdout
    r = mem("forget", "project/x/sp", "--yes")
    assert "older mem" not in r.stderr, r.stderr
    mem("get", "project/x/sp", exit_code=4)
    assert not list((store_path / "forget-unfinished").iterdir())
    assert mem("fsck").stdout.startswith("ok:")
    assert "did not finish" not in mem("status").stdout
    assert mem("get", "project/x/keep").stdout == "the runner is in rack four\n"
