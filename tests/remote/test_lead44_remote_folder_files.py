"""fresh43 F12 (its small ones): in a folder remote, a folder in place of ``manifest.lock`` made push say "cannot
write manifest to REMOTE: Is a directory" (it is the lock, and no path to fix was named), and a file in place of
``packs/`` read as "remote pack packs/… is missing (its manifest names it)".  Now the path is named, and the packs
file is said to be a file; once it is moved away, push works again.  Real ``mem`` processes, a real folder remote."""

from __future__ import annotations


def test_a_lock_folder_and_a_packs_file_are_named(mem, tmp_path):
    home, remote = str(tmp_path / "s"), tmp_path / "remote"
    remote.mkdir()
    mem("--home", home, "remember", "project/a/b", "the port is 8080")
    mem("--home", home, "remote", "add", "o", str(remote), "--no-encrypt")
    mem("--home", home, "push")
    mem("--home", home, "remember", "project/a/c", "the host is db1")
    (remote / "manifest.lock").unlink(missing_ok=True)
    (remote / "manifest.lock").mkdir()
    r = mem("--home", home, "push", exit_code=15)
    assert str(remote / "manifest.lock") in r.stderr, r.stderr
    (remote / "manifest.lock").rmdir()
    (remote / "packs").rename(tmp_path / "packs.away")
    (remote / "packs").write_text("junk")
    for args in (["push"], ["pull"]):
        r = mem("--home", home, *args, exit_code=15)
        assert f"{remote / 'packs'} is not a folder" in r.stderr and "is missing" not in r.stderr, (args, r.stderr)
    (remote / "packs").unlink()
    (tmp_path / "packs.away").rename(remote / "packs")
    mem("--home", home, "push")
    other = str(tmp_path / "b")
    mem("--home", other, "clone", str(remote))
    assert mem("--home", other, "get", "project/a/c").stdout.strip() == "the host is db1"
