"""fresh43 F14: ``mem clone`` (and ``restore``) into a store inside the remote's own folder, and ``remote add`` of
a folder that holds the store, were accepted: the sync key and the plain store then sat beside the encrypted packs
it opens, for whoever gets the remote folder.  Now refused (exit 2), as a remote inside the store is (fresh42 F15);
nothing is left behind.  Real ``mem`` processes and folder remotes."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_a_store_inside_its_remote_folder_is_refused(mem, tmp_path):
    first = ["--home", str(tmp_path / "first")]
    remote = tmp_path / "rr"
    remote.mkdir()
    mem(*first, "init")
    mem(*first, "remember", "project/a/b", "a value", env=PERSON)
    mem(*first, "remote", "add", "origin", str(remote), env=PERSON)
    mem(*first, "backup", env=PERSON)
    key = tmp_path / "k.key"
    mem(*first, "remote", "key", "export", "-o", str(key), env=PERSON)
    r = mem("--home", str(remote / "store"), "clone", str(remote), "--key", str(key), env=PERSON, exit_code=2)
    assert "is inside the remote folder" in r.stderr, r.stderr
    r = mem("--home", str(remote / "store2"), "restore", str(remote), "--latest", "--key", str(key), env=PERSON,
            exit_code=2)
    assert "is inside the remote folder" in r.stderr, r.stderr
    assert sorted(p.name for p in remote.iterdir() if p.name.startswith("store")) == []
    (tmp_path / "outer").mkdir()
    inner = ["--home", str(tmp_path / "outer" / "ins")]
    mem(*inner, "init")
    r = mem(*inner, "remote", "add", "up", str(tmp_path / "outer"), env=PERSON, exit_code=2)
    assert "is inside the remote folder" in r.stderr, r.stderr
