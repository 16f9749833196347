"""test34 T6: ``mem forget KEY`` of a value written with ``mem remember`` (no
source turn) withheld it in no turn ("0 turns"): a hook-captured session and
a shell-hook turn quoting it kept it, served by search and recall, and
``mem scan`` found it after ``gc --prune=now``; ``mem seal`` of the same key
withholds it.  The forget now withholds a typed value's value-shaped forms
(``sealsources.quoted_forms``) in the turns quoting it; a prose value of
ordinary words stays in them (derive's evidence: tests/derive/test_derive_guards.py)."""

from __future__ import annotations

import subprocess
import sys

from objstore import scan_store
from tests.hooks._util import REPO, hook_env
from tests.hooks.test_remember_asked import _Session


def test_forget_key_of_a_typed_value_withholds_it_in_the_turns_quoting_it(tmp_path):
    s = _Session(tmp_path)
    env = {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}

    def mem(*args, ok=(0,), stdin=None):
        r = subprocess.run([sys.executable, "-m", "cmds", *args], env=env, cwd=REPO, capture_output=True, text=True,
                           timeout=180, input=stdin)
        assert r.returncode in ok, (args, r.stdout + r.stderr)
        return r

    mem("remember", "project/sh37/host", "the db host is pg-zqx-alpha")
    mem("remember", "project/sh37/box", "ibis-host-4471.internal")
    s.prompt("ping pg-zqx-alpha please")
    s.stop("Host pg-zqx-alpha is up; ibis-host-4471.internal too.")
    shell = {**env, "MEM_SHELL_CAPTURE": "1", "HOME": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "cmds", "hook", "shell", "--session", "sh-1", "--cwd", str(tmp_path),
                        "--status", "0", "--start", "1767225600000", "--duration", "5", "--seq", "1"],
                       input="ssh ibis-host-4471.internal uptime", env=shell, cwd=REPO, capture_output=True,
                       text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    assert scan_store(s.store, [b"ibis-host-4471.internal"]) != []   # the shell turn holds it
    mem("forget", "project/sh37/host", "--yes")
    mem("forget", "project/sh37/box", "--yes")
    mem("gc", "--prune=now")
    assert scan_store(s.store, [b"pg-zqx-alpha", b"ibis-host-4471"]) == []
    assert "pg-zqx-alpha" not in mem("search", "pg-zqx-alpha", "--json", ok=(0, 1)).stdout
    shown = mem("show", s.sid[:8]).stdout
    assert "ping [REDACTED:forgotten-value] please" in shown, shown
    assert mem("fsck").returncode == 0
