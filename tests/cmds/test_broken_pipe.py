"""A reader whose standard output is closed early (``mem log KEY | head -1``)
exits 141 (128 + SIGPIPE, as git does) and prints nothing on stderr, on the
lean path (``search``) and on click's (``log``, ``export``): docs/exit-codes.md.  Real
processes, a real pipe closed by its reader after one byte."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys

import pytest

from objstore.memory import facts
from objstore.memory.opening import open_store
from tests.conftest import REPO


@pytest.fixture(scope="module")
def big_store(tmp_path_factory):
    """200 versions of one key and 200 keys, ~1 KB each: every listing
    (``search``: ~47 KB) is far larger than the test's pipe buffer (one page,
    below), so it is still being written when the reader closes."""
    home = tmp_path_factory.mktemp("pipe") / "store"
    s = open_store(home, create=True)
    for i in range(200):
        facts.remember(s, "project/p/long", f"pipeline note {i} " + "x" * 1000)
        facts.remember(s, f"project/p/k{i:03d}", f"pipeline key {i} " + "y" * 1000)
    s.close()
    return home


@pytest.mark.parametrize("argv", [["log", "project/p/long"], ["search", "pipeline", "--limit", "400"],
                                  ["export"], ["export", "-o", "-", "--json"]])   # mend22: export said 'cannot write', 1
def test_a_reader_whose_pipe_is_closed_exits_141_quietly(big_store, argv):
    r, w = os.pipe()
    # A pipe of one page, not Linux's default 64 KiB: with the default, a listing
    # under 64 KiB fit whole in the buffer and the command could exit 0 before the close.
    fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
    p = subprocess.Popen([sys.executable, "-m", "cmds", *argv], cwd=REPO,
                         env={**os.environ, "MEM_HOME": str(big_store)},
                         stdout=w, stderr=subprocess.PIPE)
    os.close(w)
    with os.fdopen(r, "rb", buffering=0) as out:
        assert out.read(1)   # one byte, as `head -c1` reads, then the reader goes away
    err = p.stderr.read()
    assert p.wait(timeout=60) == 141, err
    assert err == b""
