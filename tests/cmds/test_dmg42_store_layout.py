"""test41 T8, T9, T29 and fresh41 F16: a store path of the other type.
``logs/audit`` a folder: ``mem fsck`` and ``fsck --repair`` ended in
"internal error: IsADirectoryError" (or said "ok"), ``mem audit`` too;
``logs/refs`` (or a project's folder below it) a file: fsck and its repair
ended in "internal error: NotADirectoryError", forever; ``locks/store.lock``
a folder: every write stopped (exit 13) while fsck said "ok: 0 problems".
Now one check (``core.storelayout``) names each in fsck (exit 13) and
doctor, and ``fsck --repair`` sets it aside: the writes work again and no
key is lost.  Real ``mem`` processes on real damaged stores."""

from __future__ import annotations

import shutil

import pytest

CASES = {   # path: (make the damage, what fsck says stands there)
    "logs/audit": ("folder", "logs/audit is a folder where the store keeps a file"),
    "locks/store.lock": ("folder", "locks/store.lock is a folder where the store keeps a file"),
    "logs/refs": ("file", "logs/refs is a file where the store keeps a folder"),
    "logs/refs/facts/project/app": ("file", "logs/refs/facts/project/app is a file where the store keeps a folder"),
}


@pytest.mark.parametrize("rel", list(CASES))
def test_a_store_path_of_the_other_type_is_named_by_fsck_and_set_aside(mem, store_path, rel):
    mem("remember", "project/app/db-port", "5432")
    mem("remember", "user/editor", "vim")
    p = store_path / rel
    make, said = CASES[rel]
    if p.is_dir():
        shutil.rmtree(p)
    elif p.exists():
        p.unlink()
    if make == "folder":
        p.mkdir()
        (p / "x").write_text("junk\n")
    else:
        p.write_text("junk\n")
    r = mem("fsck", exit_code=13)
    assert said in r.stdout and "'mem fsck --repair' sets it aside" in r.stdout, (r.stdout, r.stderr)
    assert "internal error" not in r.stderr
    if rel == "logs/audit":
        r = mem("audit", exit_code=13)
        assert f"{p} is not readable" in r.stderr and "mem fsck --repair" in r.stderr, r.stderr
    d = mem("doctor", exit_code=1)
    assert f"{p} is {'a folder' if make == 'folder' else 'a file'} where the store keeps" in d.stdout, d.stdout
    assert "mem fsck --repair" in d.stdout
    r = mem("fsck", "--repair")
    assert f"repair: {rel} is a" in r.stdout and "set it aside as quarantine/" in r.stdout, r.stdout
    assert list((store_path / "quarantine").glob(f"*/{rel}"))
    assert mem("fsck").stdout.startswith("ok:")
    mem("remember", "project/app/db-port", "5433")
    mem("remember", "user/shell", "zsh")
    assert mem("get", "project/app/db-port").stdout == "5433\n"
    assert mem("get", "user/editor").stdout == "vim\n"
    assert "facts/user/shell" in mem("audit").stdout
    assert mem("fsck").stdout.startswith("ok:")
