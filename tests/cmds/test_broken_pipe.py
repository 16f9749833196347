"""A reader whose standard output is closed early (``mem log KEY | head -1``)
exits 141 (128 + SIGPIPE, as git does) and prints nothing on stderr, on the
lean path (``search``) and on click's (``log``): docs/exit-codes.md.  Real
processes, a real pipe closed by its reader after one byte."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from objstore.memory import facts
from objstore.memory.opening import open_store
from tests.conftest import REPO


@pytest.fixture(scope="module")
def big_store(tmp_path_factory):
    """200 versions of one key and 200 keys, ~1 KB each: every listing is
    far larger than a pipe's buffer, so it is written after the close."""
    home = tmp_path_factory.mktemp("pipe") / "store"
    s = open_store(home, create=True)
    for i in range(200):
        facts.remember(s, "project/p/long", f"pipeline note {i} " + "x" * 1000)
        facts.remember(s, f"project/p/k{i:03d}", f"pipeline key {i} " + "y" * 1000)
    s.close()
    return home


@pytest.mark.parametrize("argv", [["log", "project/p/long"], ["search", "pipeline", "--limit", "400"]])
def test_a_reader_whose_pipe_is_closed_exits_141_quietly(big_store, argv):
    p = subprocess.Popen([sys.executable, "-m", "cmds", *argv], cwd=REPO,
                         env={**os.environ, "MEM_HOME": str(big_store)},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout.read(1)   # one byte, as `head -c1` reads, then the reader goes away
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=60) == 141, err
    assert err == b""
