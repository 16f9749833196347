"""A fact key's reflog left without its ref while no version of the key is
stored (test31c W19): a forgotten key's reflog put back (a restore of
``logs/``, a crash between a forget's two removals), or one that names
another key's versions.  Every write of the key was refused ("'mem fsck
--repair' sets the ref again from its reflog") while fsck said "ok" and
--repair "nothing to repair": the key could never be written again.  Now
fsck names the reflog, --repair sets it aside in the quarantine, and the
key's next write starts it at v1.  Real ``mem`` processes on a real store."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


@pytest.fixture
def home(mem) -> Path:
    for v in (1, 2):
        mem("remember", "project/web/port", f"port 700{v}")
        mem("remember", "project/api/port", f"port 900{v}")
    return Path(os.environ["MEM_HOME"])


def _log(home: Path, key: str) -> Path:
    return home / "logs" / "refs" / "facts" / key


def _said(r) -> str:
    return r.stdout + r.stderr


def _set_aside_then_written(home: Path, mem, key: str, head_is: str) -> None:
    """fsck names ``key``'s reflog, --repair sets it aside, and the key takes a new value at v1."""
    refused = mem("remember", key, "port 7003", exit_code=13)
    assert "nothing was written" in _said(refused)
    r = mem("fsck", exit_code=13)
    assert f"reflog of facts/{key}" in r.stdout and head_is in r.stdout, r.stdout
    r = mem("fsck", "--repair")
    assert f"set aside the reflog of facts/{key} in the quarantine" in r.stdout, r.stdout
    assert not _log(home, key).exists()
    (kept,) = (home / "quarantine").glob("*/reflog-*")
    assert len(kept.read_text().splitlines()) == 2   # its two lines are kept, not lost
    r = mem("remember", key, "port 7003")
    assert f"wrote {key} v1" in r.stdout, r.stdout
    assert mem("get", key).stdout == "port 7003\n"
    assert mem("fsck").stdout.startswith("ok:")


def test_a_forgotten_keys_reflog_put_back_is_set_aside(home, mem):
    saved = _log(home, "project/web/port").read_bytes()
    mem("forget", "project/web/port", "--yes")
    mem("gc", "--prune=now")
    _log(home, "project/web/port").parent.mkdir(parents=True, exist_ok=True)
    _log(home, "project/web/port").write_bytes(saved)
    _set_aside_then_written(home, mem, "project/web/port", "that object is not stored")


def test_a_reflog_naming_another_keys_versions_is_set_aside(home, mem):
    ghost = _log(home, "project/zzz/ghost")
    ghost.parent.mkdir(parents=True)
    shutil.copy(_log(home, "project/api/port"), ghost)
    _set_aside_then_written(home, mem, "project/zzz/ghost", "a version of key 'project/api/port'")
    assert mem("get", "project/api/port").stdout == "port 9002\n"   # the other key is untouched


def test_a_deleted_ref_whose_versions_are_stored_is_still_set_again(home, mem):
    (home / "refs" / "facts" / "project" / "web" / "port").unlink()
    r = mem("fsck", exit_code=13)
    assert "reflog of facts/project/web/port" not in r.stdout   # the unnamed check's, repaired from the reflog
    r = mem("fsck", "--repair")
    assert "set aside the reflog" not in r.stdout, r.stdout
    assert mem("get", "project/web/port").stdout == "port 7002\n"
