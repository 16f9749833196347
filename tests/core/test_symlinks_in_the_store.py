"""A symbolic link inside the store (test31c W9): a reflog that is a link
was followed by every writer (a line appended to a file outside the store,
created 0600 when the link dangled) and by ``fsck --repair``, and fsck
called it "ok".  Now no writer appends through a link (reflog, audit log,
index journal, store lock: ``O_NOFOLLOW``, a refused write moves nothing),
fsck names a reflog link as damage and ``--repair`` sets it aside, and
any other link in the store is named.  Real ``mem`` processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def home(mem) -> Path:
    for v in (1, 2):
        mem("remember", "project/api/port", f"port 900{v}")
    return Path(os.environ["MEM_HOME"])


def _log(home: Path) -> Path:
    return home / "logs" / "refs" / "facts" / "project" / "api" / "port"


@pytest.mark.parametrize("dangling", [True, False])
def test_a_reflog_that_is_a_link_is_never_written_through(home, mem, tmp_path, dangling):
    outside = tmp_path / "outside-file"
    if not dangling:
        outside.write_bytes(b"not mem's\n")
    _log(home).unlink()
    _log(home).symlink_to(outside)
    r = mem("remember", "project/api/port", "port 9005", exit_code=13)
    assert "a symbolic link, never written through" in r.stderr, r
    assert outside.exists() is not dangling and (dangling or outside.read_bytes() == b"not mem's\n")
    assert mem("get", "project/api/port").stdout == "port 9002\n"   # nothing moved
    r = mem("fsck", exit_code=13)
    assert "logs/refs/facts/project/api/port: a symbolic link" in r.stdout, r.stdout
    r = mem("fsck", "--repair")
    assert "set aside the damaged reflog logs/refs/facts/project/api/port in the quarantine: not a regular" in r.stdout, r.stdout
    assert not _log(home).is_symlink() and mem("fsck").stdout.startswith("ok:")
    assert outside.exists() is not dangling and (dangling or outside.read_bytes() == b"not mem's\n")
    mem("remember", "project/api/port", "port 9006")
    assert mem("get", "project/api/port").stdout == "port 9006\n"


def test_the_audit_log_and_the_lock_are_never_written_through(home, mem, tmp_path):
    outside = tmp_path / "outside-audit"
    outside.write_bytes(b"")
    audit = home / "logs" / "audit"
    audit.unlink()
    audit.symlink_to(outside)
    r = mem("remember", "project/api/port", "port 9005", exit_code=13)
    assert "logs/audit: a symbolic link" in r.stderr, r
    assert outside.read_bytes() == b""
    r = mem("fsck", exit_code=13)   # every write stops: a problem, with its repair (dmg42: it said "ok")
    assert "logs/audit: a symbolic link inside the store" in r.stdout, r.stdout
    assert "logs/audit is a symlink where the store keeps a file" in r.stdout and "mem fsck --repair" in r.stdout
    audit.unlink()
    lock = home / "locks" / "store.lock"
    lock.unlink()
    lock.symlink_to(tmp_path / "outside-lock")
    mem("remember", "project/api/port", "port 9005", exit_code=13)
    assert not (tmp_path / "outside-lock").exists()


def test_a_folder_link_in_the_store_is_named(home, mem, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home / "logs" / "refs" / "facts" / "user").symlink_to(elsewhere)
    r = mem("fsck")
    assert "logs/refs/facts/user: a symbolic link inside the store" in r.stdout, r.stdout
