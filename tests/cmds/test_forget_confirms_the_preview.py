"""test18 U8: ``mem forget KEY`` showed one version, asked, and forgot two:
a version written while the prompt waited was forgotten without being
shown.  Now the confirmed forget plans again under the store lock and,
when that plan names a version or turn the preview did not, forgets
nothing and exits 5 (as a compare-and-swap conflict).  Real ``mem``
processes: the forget waits at its prompt while another writes."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO, fact_chain

KEY = "project/a/y"


def _forget_while(mem, write: bool) -> subprocess.CompletedProcess:
    p = subprocess.Popen([sys.executable, "-m", "cmds", "forget", KEY], cwd=REPO, env=dict(os.environ),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline()
    assert first.startswith("will forget "), first                         # the preview is out: it waits
    if write:
        mem("remember", KEY, "beta written during the prompt")
    out, err = p.communicate("y\n", timeout=120)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def test_a_version_written_while_the_prompt_waits_is_not_forgotten_unseen(mem, store_path):
    mem("remember", KEY, "alpha value")
    r = _forget_while(mem, write=True)
    assert r.returncode == 5, r.stderr
    assert "1 more fact version or turn" in r.stderr and "nothing was forgotten" in r.stderr
    assert [b for _n, _f, b in fact_chain(store_path, KEY)] == ["beta written during the prompt", "alpha value"]
    r = _forget_while(mem, write=False)                 # nothing written meanwhile: it forgets what it showed
    assert r.returncode == 0 and "forgot 2 fact versions" in r.stdout, r.stderr
    assert fact_chain(store_path, KEY) == []
