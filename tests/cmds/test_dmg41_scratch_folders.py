"""fix40b's leftover: ``tmp`` or ``locks`` replaced by a file.  ``mem
doctor`` named them, ``mem fsck`` said "ok"; ``mem push`` died with an
internal error (``NotADirectoryError``) and ``mem fsck --repair`` could not
take the store lock to mend anything.  Now fsck names each (exit 13), push
names ``tmp`` (exit 13, nothing sent), and the repair sets the file aside
and makes an empty folder: nothing stored is lost.  Real ``mem``
processes on a real store."""

from __future__ import annotations

import shutil

import pytest


@pytest.mark.parametrize("name", ["tmp", "locks"])
def test_a_file_in_place_of_a_scratch_folder_is_named_and_set_aside(mem, store_path, tmp_path, name):
    mem("remember", "project/a/b", "heron-velvet-11")
    remote = tmp_path / "remote"
    remote.mkdir()
    mem("remote", "add", "origin", str(remote), "--no-encrypt")
    shutil.rmtree(store_path / name)
    (store_path / name).write_text("junk\n")
    r = mem("fsck", exit_code=13)
    assert f"{name} is a file, not a folder" in r.stdout and "mem fsck --repair" in r.stdout, r.stdout
    r = mem("push", exit_code=13)
    assert f"{store_path / name}" in r.stderr and "internal error" not in r.stderr, r.stderr
    assert "mem fsck --repair" in mem("doctor", exit_code=1).stdout
    r = mem("fsck", "--repair")
    assert f"repair: {name} is a file, not a folder: set it aside as quarantine/" in r.stdout, r.stdout
    assert (store_path / name).is_dir()
    assert list((store_path / "quarantine").glob(f"*/{name}"))
    mem("push")
    assert mem("get", "project/a/b").stdout == "heron-velvet-11\n"
    assert mem("fsck").stdout.startswith("ok:")
