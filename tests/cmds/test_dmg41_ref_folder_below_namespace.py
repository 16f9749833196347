"""test40 T9: a file in place of a folder below ``refs/facts`` or
``refs/sealed`` (a scope folder such as ``refs/facts/project``, or a
project's folder ``refs/facts/project/db``), through real ``mem`` processes.

Before: ``keys`` and ``recall`` were silent (exit 0, the keys under it
missing), fsck blamed the sound reflog folder ``logs/refs/facts/project``,
``fsck --repair`` quarantined those good reflogs and a ``gc`` then deleted
the values.  Now every reader exits 13 naming the file, fsck and doctor name
it, gc refuses, and the repair sets the file aside and sets each key's ref
again from its reflog, which stays where it is."""

from __future__ import annotations

import shutil

import pytest


@pytest.mark.parametrize("where", ["refs/facts/project", "refs/facts/project/db"])
def test_a_file_in_place_of_a_scope_or_project_folder_is_named_and_repaired(mem, store_path, where):
    mem("remember", "project/db/port", "5432")
    mem("remember", "project/db/host", "db1")
    mem("remember", "user/me/name", "Ann")
    shutil.rmtree(store_path / where)
    (store_path / where).write_text("junk\n")
    for args in (("keys",), ("recall", "db port", "--all-projects"), ("get", "project/db/port"), ("status",),
                 ("search", "port")):
        r = mem(*args, exit_code=13)
        assert f"{where} is not a folder" in r.stderr and "mem fsck --repair" in r.stderr, (args, r.stderr)
    r = mem("fsck", exit_code=13)
    out = r.stdout + r.stderr
    assert f"{where}: not a folder" in out and "damaged reflog" not in out, out
    assert where in mem("doctor", exit_code=1).stdout
    r = mem("gc", "--prune=now", exit_code=13)
    assert "gc refused" in r.stderr and where in r.stderr, r.stderr
    r = mem("fsck", "--repair")
    assert f"{where} is a file, not a folder: set it aside as quarantine/" in r.stdout, r.stdout
    assert "restored facts/project/db/port from its reflog" in r.stdout, r.stdout
    assert not list((store_path / "quarantine").glob("*/reflog*")), "a sound reflog was set aside"
    assert (store_path / "logs/refs/facts/project/db/port").is_file()
    mem("gc", "--prune=now")
    assert mem("get", "project/db/port").stdout == "5432\n"
    assert mem("get", "project/db/host").stdout == "db1\n"
    assert mem("fsck").stdout.startswith("ok:")


def test_a_sealed_scope_folder_replaced_by_a_file_is_named(mem, store_path, tmp_path):
    pp = tmp_path / "pp"
    pp.write_text("correct horse pass dmg41\n")
    mem("vault", "init", "--passphrase-file", str(pp))
    mem("remember", "user/pin", "s3cret-9911", "--sensitivity", "secret")
    shutil.rmtree(store_path / "refs/sealed/user")
    (store_path / "refs/sealed/user").write_text("junk\n")
    r = mem("sealed", "list", exit_code=13)
    assert "refs/sealed/user is not a folder" in r.stderr, r.stderr
    r = mem("fsck", exit_code=13)
    assert "refs/sealed/user: not a folder" in r.stdout + r.stderr
    mem("fsck", "--repair")
    assert "user/pin" in mem("sealed", "list").stdout
