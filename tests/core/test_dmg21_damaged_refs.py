"""Damaged ref files (session 21 tester findings W6, W9, W12; lane dmg21).

W6: a FIFO where a ref, a packed refs file, a reflog, the index journal or
Claude Code's ``settings.json`` should be is damage, never waited on: the
command exits 13 (2 for the settings file) naming the file, ``mem fsck``
names it and ``mem fsck --repair`` sets it aside.  W9: a damaged ref's error
gives its size, never its bytes (a symlink may lead to a credential).  W12: a
ref file whose name is not UTF-8 is damage: skipped with a warning, named by
fsck, set aside by ``fsck --repair``.  Real files, real ``mem`` processes,
each bounded (a hang fails the test)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_a_fifo_ref_file_is_damage_not_waited_on(mem, tmp_path):
    store = tmp_path / "store"
    mem("remember", "user/editor", "vim")
    mem("remember", "user/shell", "zsh")
    ref = store / "refs/facts/user/editor"
    ref.unlink()
    os.mkfifo(ref)
    r = mem("keys", timeout=30)
    assert "user/shell" in r.stdout and "damaged ref (facts/user/editor)" in r.stderr
    r = mem("get", "user/editor", exit_code=13, timeout=30)
    assert str(ref) in r.stderr and "not a regular file" in r.stderr
    assert "ref facts/user/editor: does not hold an object id" in mem("fsck", exit_code=13, timeout=60).stdout
    assert "restored facts/user/editor from its reflog" in mem("fsck", "--repair", timeout=60).stdout
    assert mem("get", "user/editor", timeout=30).stdout.strip() == "vim"
    mem("fsck", timeout=60)


def test_a_fifo_packed_refs_file_is_damage_not_waited_on(mem, tmp_path):
    store = tmp_path / "store"
    mem("remember", "user/editor", "vim")
    os.mkfifo(store / "refs/packed-facts")
    r = mem("keys", exit_code=13, timeout=30)
    assert "refs/packed-facts is not readable: not a regular file" in r.stderr
    assert "damaged packed refs" in mem("fsck", exit_code=13, timeout=60).stdout
    mem("fsck", "--repair", timeout=60)
    assert not (store / "refs/packed-facts").exists()
    assert mem("get", "user/editor", timeout=30).stdout.strip() == "vim"


def test_a_fifo_reflog_or_journal_is_named_by_fsck(mem, tmp_path):
    store = tmp_path / "store"
    mem("remember", "user/editor", "vim")
    log = store / "logs/refs/facts/user/editor"
    log.unlink()
    os.mkfifo(log)
    out = mem("fsck", exit_code=13, timeout=60).stdout
    assert "logs/refs/facts/user/editor: not a regular file (damaged reflog)" in out
    assert "set aside the damaged reflog logs/refs/facts/user/editor" in mem("fsck", "--repair", timeout=60).stdout
    assert log.is_file()   # a regular file again, with the head recorded (test31 U6)
    assert mem("fsck", timeout=60).stdout.startswith("ok:")

    os.mkfifo(store / "logs/packed-facts")
    assert "logs/packed-facts (not a regular file)" in mem("fsck", exit_code=13, timeout=60).stdout
    mem("fsck", "--repair", timeout=60)
    mem("fsck", timeout=60)

    journal = store / "index-journal"
    journal.unlink(missing_ok=True)
    os.mkfifo(journal)
    out = mem("fsck", exit_code=13, timeout=60).stdout
    assert "index-journal" in out and "not a regular file" in out


def test_a_fifo_settings_file_is_refused_not_waited_on(mem, tmp_path):
    claude = tmp_path / "home/.claude"
    claude.mkdir(parents=True)
    os.mkfifo(claude / "settings.json")
    r = mem("hooks", "install", "claude-code", exit_code=2, timeout=30)
    assert "settings.json cannot be read: not a regular file" in r.stderr


def test_a_damaged_ref_error_never_shows_what_the_file_holds(mem, tmp_path):
    store = tmp_path / "store"
    mem("remember", "user/editor", "vim")
    secret = tmp_path / "elsewhere"
    secret.write_text("ghp_" + "A" * 36 + "\n")
    ref = store / "refs/facts/user/editor"
    ref.unlink()
    ref.symlink_to(secret)
    r = mem("get", "user/editor", exit_code=13, timeout=30)
    assert "ghp_" not in r.stderr + r.stdout and "holds 41 bytes that are not an object id" in r.stderr
    r = mem("fsck", exit_code=13, timeout=60)
    assert "ghp_" not in r.stderr + r.stdout


def test_a_ref_file_name_that_is_not_utf8_is_damage(mem, tmp_path):
    store = tmp_path / "store"
    mem("remember", "user/editor", "vim")
    user = os.fsencode(store / "refs/facts/user")
    with open(os.path.join(user, b"editor"), "rb") as f:
        data = f.read()
    bad = os.path.join(user, b"bad\xffname")
    with open(bad, "wb") as f:
        f.write(data)
    r = mem("keys", timeout=30)
    assert "bad" not in r.stdout and "user/editor" in r.stdout and "damaged ref" in r.stderr
    assert "its file name is not UTF-8 (damaged ref file)" in mem("fsck", exit_code=13, timeout=60).stdout
    r = subprocess.run([sys.executable, "-m", "cmds", "fsck", "--repair"], capture_output=True, timeout=60,
                       cwd=Path(__file__).resolve().parents[2])
    assert r.returncode == 0 and b"moved 1 damaged file" in r.stdout   # (its name is printed as it is)
    assert not os.path.lexists(bad)
    mem("fsck", timeout=60)
    assert mem("get", "user/editor", timeout=30).stdout.strip() == "vim"
