"""Session 22 (test22 X1): ``mem forget KEY --yes | head -1`` forgot
nothing: the preview is printed before the forget, and the reader's close
(``EPIPE``) stopped the command there, before its first tombstone, exit 141.
A confirmed forget now finishes whatever happens to its standard output,
then exits 141 (docs/exit-codes.md), as it already finished on SIGHUP,
SIGINT and SIGTERM (``cmds._common.finishes_when_stdout_closes``).

Real ``mem`` processes; the reader is a real pipe whose read end is closed
before the child writes (``head`` gone), or after one line (``head -1``)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from objstore import remember, scan_store
from objstore.memory.opening import open_store
from tests.conftest import REPO

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}


def _forget_into_closed_pipe(store_path, *args: str, one_line: bool = False) -> subprocess.CompletedProcess:
    r, w = os.pipe()
    if not one_line:
        os.close(r)                 # the reader is gone before the first line
    p = subprocess.Popen([sys.executable, "-m", "cmds", "forget", *args, "--yes"], cwd=REPO,
                         env={**os.environ, **PERSON, "MEM_HOME": str(store_path)},
                         stdout=w, stderr=subprocess.PIPE)
    os.close(w)
    if one_line:                    # `head -1`: one line read, then the reader goes away
        with os.fdopen(r, "rb", buffering=0) as out:
            got = b""
            while not got.endswith(b"\n"):
                b = out.read(1)
                if not b:
                    break
                got += b
    err = p.stderr.read()
    return subprocess.CompletedProcess(p.args, p.wait(timeout=120), b"", err)


@pytest.mark.parametrize("one_line", [False, True])
@pytest.mark.parametrize("args", [("project/p/b",), ("--match", "heron velvet seven"), ("--credentials",)])
def test_a_confirmed_forget_finishes_when_its_stdout_is_closed(mem, store_path, args, one_line):
    with open_store(store_path, create=True) as s:   # (a cut token, as a mem before session 18 stored it)
        remember(s, "project/p/b", "heron velvet seven " + "b" * 3000 + " ghp_Q9w2E3r4T5y6U7i8\u2026", kind="summary")
        remember(s, "project/p/other", "a value that stays")
    p = _forget_into_closed_pipe(store_path, *args, one_line=one_line)
    # (after one line read, the rest may have fit in the pipe before the close: 0 is right then)
    assert p.returncode in ((0, 141) if one_line else (141,)), p.stderr.decode()
    assert b"Broken pipe" not in p.stderr and b"Traceback" not in p.stderr, p.stderr.decode()
    mem("gc", "--prune=now")
    needle = b"ghp_Q9w2E3r4T5y6U7i8" if args == ("--credentials",) else b"heron velvet"
    assert not scan_store(store_path, [needle]), args
    assert mem("get", "project/p/other").stdout.strip() == "a value that stays"
    assert not (store_path / "forget-unfinished").exists() or not os.listdir(store_path / "forget-unfinished")


def test_an_unconfirmed_forget_with_a_closed_stdout_forgets_nothing(mem, store_path):
    with open_store(store_path, create=True) as s:
        remember(s, "project/p/b", "heron velvet seven")
    r, w = os.pipe()
    os.close(r)
    p = subprocess.run([sys.executable, "-m", "cmds", "forget", "project/p/b"], cwd=REPO, input=b"n\n",
                       env={**os.environ, **PERSON, "MEM_HOME": str(store_path)}, stdout=w,
                       stderr=subprocess.PIPE, timeout=120)
    os.close(w)
    assert p.returncode == 1, p.stderr.decode()          # not confirmed: its own exit, not 141
    assert mem("get", "project/p/b").stdout.strip() == "heron velvet seven"


def test_a_confirmed_forget_finishes_when_its_stdout_is_full(mem, store_path):
    """Session 23 Y9: ``mem forget KEY --yes > /dev/full`` stopped at its
    preview with exit 1 ("no space left on device"), having forgotten
    nothing; it now finishes the forget and exits 74 (docs/exit-codes.md),
    saying on stderr that its output was lost."""
    with open_store(store_path, create=True) as s:
        remember(s, "project/p/b", "heron velvet seven")
        remember(s, "project/p/other", "a value that stays")
    with open("/dev/full", "wb") as full:
        p = subprocess.run([sys.executable, "-m", "cmds", "forget", "project/p/b", "--yes"], cwd=REPO,
                           env={**os.environ, **PERSON, "MEM_HOME": str(store_path)}, stdout=full,
                           stderr=subprocess.PIPE, timeout=120)
    err = p.stderr.decode()
    assert p.returncode == 74, err
    assert "standard output could not be written (no space left on device)" in err and "work was done" in err
    assert "Traceback" not in err
    mem("get", "project/p/b", exit_code=4)
    mem("gc", "--prune=now")
    assert not scan_store(store_path, [b"heron velvet"])
    assert mem("get", "project/p/other").stdout.strip() == "a value that stays"


def test_the_review_shells_confirmed_forget_finishes_when_its_stdout_is_closed(mem, store_path):
    """Session 23: ``printf 'forget KEY\\nyes\\n' | mem review | head -1``
    exited 141 at the shell's first line (the queue's state), before it
    read the forget: the confirmed forget was lost.  Every line read is
    now run, then it exits 141."""
    with open_store(store_path, create=True) as s:
        remember(s, "project/p/b", "heron velvet seven")
        remember(s, "project/p/other", "a value that stays")
    r, w = os.pipe()
    os.close(r)                     # the reader is gone before the first line
    p = subprocess.run([sys.executable, "-m", "cmds", "review", "--no-history"], cwd=REPO,
                       input=b"forget project/p/b\nyes\nquit\n",
                       env={**os.environ, **PERSON, "MEM_HOME": str(store_path)}, stdout=w,
                       stderr=subprocess.PIPE, timeout=120)
    os.close(w)
    assert p.returncode == 141, p.stderr.decode()
    assert b"Traceback" not in p.stderr, p.stderr.decode()
    mem("get", "project/p/b", exit_code=4)
    mem("gc", "--prune=now")
    assert not scan_store(store_path, [b"heron velvet"])
    assert mem("get", "project/p/other").stdout.strip() == "a value that stays"


def _forget_into_full(store_path, *args: str, stderr_full: bool = False) -> subprocess.CompletedProcess:
    with open("/dev/full", "wb") as full:
        return subprocess.run([sys.executable, "-m", "cmds", "forget", *args], cwd=REPO,
                              env={**os.environ, **PERSON, "MEM_HOME": str(store_path)}, stdout=full,
                              stderr=full if stderr_full else subprocess.PIPE, timeout=120)


def test_a_confirmed_forget_exits_74_when_stdout_and_stderr_are_full(mem, store_path):
    """Session 23 V8: ``mem forget KEY --yes >/dev/full 2>/dev/full``
    forgot the key but exited 1 (the report of the lost output could not
    be written either); the exit status no longer depends on stderr."""
    with open_store(store_path, create=True) as s:
        remember(s, "project/p/b", "heron velvet seven")
        remember(s, "project/p/other", "a value that stays")
    p = _forget_into_full(store_path, "project/p/b", "--yes", stderr_full=True)
    assert p.returncode == 74
    mem("get", "project/p/b", exit_code=4)
    assert mem("get", "project/p/other").stdout.strip() == "a value that stays"


@pytest.mark.parametrize("stderr_full", [False, True])
@pytest.mark.parametrize("args", [("project/p/b", "--dry-run"), ("--match", "heron velvet", "--dry-run"),
                                  ("--credentials", "--dry-run"), ("--match", "nothing stores this", "--yes")])
def test_a_forget_that_changed_nothing_says_so_when_its_stdout_is_full(mem, store_path, args, stderr_full):
    """Session 23 V8: ``mem forget KEY --dry-run > /dev/full`` exited 74
    saying "its work was done" although a dry run does nothing.  It still
    exits 74 (the output was lost), and says that nothing was changed."""
    with open_store(store_path, create=True) as s:
        remember(s, "project/p/b", "heron velvet seven")
    p = _forget_into_full(store_path, *args, stderr_full=stderr_full)
    assert p.returncode == 74, p.stderr
    if not stderr_full:
        err = p.stderr.decode()
        assert "standard output could not be written (no space left on device)" in err, err
        assert "work was done" not in err and ("nothing was changed" in err or "changed nothing" in err), err
        assert "Traceback" not in err
    assert mem("get", "project/p/b").stdout.strip() == "heron velvet seven"
