"""test30 R12 and R1: a write whose ref moved and whose log line then
could not be written (a full disk; here the file-size limit, the same
failure at the same place, deterministic) says the value is stored, exit 13
and "do not run it again" (it said "run the command again; nothing
already stored was lost", and a retry wrote it twice); the search index
catches up; ``mem fsck`` names the ref whose reflog lacks the line and
``--repair`` adds it.  A folder in place of the audit log fails the write
before the ref moves.  Real ``mem`` processes."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys

from tests.conftest import REPO

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}


def _limited(limit: int):
    def pre() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


def test_a_write_whose_reflog_line_fails_says_it_is_stored(mem, store_path):
    mem("init")
    for i in range(12):
        mem("remember", "project/a/k", f"value number {i} with some words", env=PERSON)
    reflog = store_path / "logs" / "refs" / "facts" / "project" / "a" / "k"
    size = reflog.stat().st_size     # the reflog is the largest file the write appends to
    p = subprocess.run([sys.executable, "-m", "cmds", "remember", "project/a/k", "value thirteen zebrafish"],
                       env={**os.environ, **PERSON}, cwd=REPO, capture_output=True, text=True, timeout=120,
                       preexec_fn=_limited(size))
    assert p.returncode == 13, (p.stdout, p.stderr)
    assert "the write is stored" in p.stderr and "do not run it again" in p.stderr
    assert "nothing already stored was lost" not in p.stderr
    assert mem("get", "project/a/k").stdout.strip() == "value thirteen zebrafish"
    assert "zebrafish" in mem("search", "zebrafish").stdout            # the index caught up
    f = mem("fsck")
    assert "its reflog does not record this move" in f.stdout
    r = mem("fsck", "--repair", "--json", exit_code=None)
    assert json.loads(r.stdout)["repair"]["relogged"] == ["facts/project/a/k"], r.stdout
    assert "its reflog does not record" not in mem("fsck").stdout
    log = mem("reflog", "project/a/k").stdout.splitlines()
    assert "the line a stopped write did not add" in log[0] and len(log) == 13


def test_a_folder_in_place_of_the_audit_log_fails_before_the_ref_moves(mem, store_path):
    mem("init")
    mem("remember", "project/a/k1", "v1", env=PERSON)
    audit = store_path / "logs" / "audit"
    audit.unlink()
    audit.mkdir()
    r = mem("remember", "project/a/k9", "newval", env=PERSON, exit_code=13)
    assert "damaged audit log" in r.stderr and "was not moved" in r.stderr
    mem("get", "project/a/k9", exit_code=4)
    # test30c T5: the refused new key left no version for fsck to call a lost ref, nor for a repair to publish
    audit.rmdir()
    assert "0 problems" in mem("fsck").stdout
    mem("fsck", "--repair", exit_code=None)
    mem("get", "project/a/k9", exit_code=4)


def test_lock_and_cache_paths_of_the_wrong_type_are_named_not_internal_errors(mem, store_path):
    """test30 R1's other paths: ``locks/`` a file, ``locks/store.lock`` a
    folder, ``cache/`` a file: exit 13 naming the path, nothing written
    (they were internal errors, and the value's write was unclear)."""
    import shutil
    mem("init")
    mem("remember", "project/a/k", "v", env=PERSON)
    locks = store_path / "locks"
    shutil.rmtree(locks)
    locks.write_text("x")
    r = mem("remember", "project/a/k9", "newval", env=PERSON, exit_code=13)
    assert "locks: not a folder" in r.stderr and "nothing was written" in r.stderr
    locks.unlink()
    locks.mkdir()
    (locks / "store.lock").mkdir()
    r = mem("gc", exit_code=13)
    assert "store.lock: not a file" in r.stderr
    (locks / "store.lock").rmdir()
    mem("get", "project/a/k9", exit_code=4)
    cache = store_path / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    cache.write_text("x")
    r = mem("gc", exit_code=13)
    assert "cache: not a folder" in r.stderr and "internal error" not in r.stderr


def test_a_file_in_place_of_objects_or_logs_is_named_by_every_command(mem, store_path):
    """test30c T12: ``logs/`` or ``objects/`` a file was an internal error
    in ``fsck``, ``gc`` and ``remember``; now every command exits 13 naming
    it, and doctor gives the fix."""
    import shutil
    mem("init")
    mem("remember", "project/a/k", "v", env=PERSON)
    for name in ("logs", "objects"):
        saved = store_path / f"{name}.saved"
        shutil.move(str(store_path / name), saved)
        (store_path / name).write_text("x")
        for args in (("fsck",), ("gc",), ("remember", "project/a/k2", "v2")):
            r = mem(*args, env=PERSON, exit_code=13)
            assert f"{name} is a file, not a folder" in r.stderr and "internal error" not in r.stderr, r.stderr
        d = json.loads(mem("doctor", "--json", exit_code=1).stdout)
        assert any(f"move {store_path / name} out of the way" in f["fix"] for f in d["findings"])
        (store_path / name).unlink()
        shutil.move(str(saved), store_path / name)
    assert mem("get", "project/a/k").stdout.strip() == "v"
