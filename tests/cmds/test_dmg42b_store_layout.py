"""fresh42 F10, F11, F12: more store folders replaced by a file.
``pull-unfinished`` a file: ``mem pull``, ``push``, ``backup`` ended in
"internal error: NotADirectoryError" (after the merge), fsck said "ok";
``quarantine`` a file: ``mem fsck --repair`` ended in an internal error
whenever it had something to set aside; ``forget-unfinished`` a file: every
``mem forget`` stopped (exit 13) while fsck, its repair and doctor said
nothing.  Now the one table (``core.storelayout``) names each in fsck (exit
13) and doctor, ``fsck --repair`` sets it aside, and a pull refuses before
anything moves.  Real ``mem`` processes on real damaged stores."""

from __future__ import annotations

import shutil

import pytest


def _file_in_place(p):
    if p.is_dir():
        shutil.rmtree(p)
    p.write_text("junk\n")


@pytest.mark.parametrize("rel", ["pull-unfinished", "forget-unfinished", "quarantine"])
def test_a_store_folder_replaced_by_a_file_is_named_and_set_aside(mem, store_path, rel):
    mem("remember", "project/app/db-port", "5432")
    mem("remember", "user/editor", "vim")
    _file_in_place(store_path / rel)
    r = mem("fsck", exit_code=13)
    assert f"{rel} is a file where the store keeps a folder" in r.stdout, (r.stdout, r.stderr)
    assert "'mem fsck --repair' sets it aside" in r.stdout
    d = mem("doctor", exit_code=1)
    assert f"{store_path / rel} is a file where the store keeps a folder" in d.stdout, d.stdout
    if rel == "quarantine":   # with something else to set aside too: it was an internal error
        _file_in_place(store_path / "tmp")
    r = mem("fsck", "--repair")
    assert "internal error" not in r.stderr
    assert f"repair: {rel} is a file" in r.stdout and "set it aside as quarantine/" in r.stdout, r.stdout
    assert (store_path / rel).is_dir()
    assert [p.read_text() for p in (store_path / "quarantine").glob(f"*/{rel}")] == ["junk\n"]
    assert mem("fsck").stdout.startswith("ok:")
    mem("forget", "user/editor", "--yes")
    assert mem("get", "project/app/db-port").stdout == "5432\n"
    mem("get", "user/editor", exit_code=4)


def test_a_pull_with_pull_unfinished_a_file_is_refused_before_anything_moves(mem, tmp_path):
    a, b, r = tmp_path / "a", tmp_path / "b", tmp_path / "remote"
    r.mkdir()
    ea, eb = {"MEM_HOME": str(a)}, {"MEM_HOME": str(b)}
    mem("remember", "project/a/k1", "the build host is falcon", env=ea)
    mem("remote", "add", "origin", str(r), env=ea)
    mem("push", env=ea)
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=eb)
    mem("remember", "project/a/new1", "the deploy window is tuesday", env=eb)
    mem("push", env=eb)
    _file_in_place(a / "pull-unfinished")
    for cmd in ("pull", "push", "backup"):
        p = mem(cmd, env=ea, exit_code=13)
        assert "internal error" not in p.stderr
        assert f"{a / 'pull-unfinished'} is a file where the store keeps a folder" in p.stderr, (cmd, p.stderr)
        assert "mem fsck --repair" in p.stderr
    mem("get", "project/a/new1", env=ea, exit_code=4)   # nothing moved
    mem("fsck", "--repair", env=ea)
    mem("pull", env=ea)
    assert mem("get", "project/a/new1", env=ea).stdout == "the deploy window is tuesday\n"
    assert mem("fsck", env=ea).stdout.startswith("ok:")
