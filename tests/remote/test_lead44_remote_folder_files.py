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


def test_clone_or_restore_of_a_folder_that_is_no_remote_says_which(mem, tmp_path):
    """fresh43 F11: a restore from a folder holding other files (a wrong path, more likely than a remote not pushed
    yet) was told "push to it from the first machine"."""
    other, empty = tmp_path / "photos", tmp_path / "empty"
    other.mkdir()
    (other / "a.jpg").write_bytes(b"x")
    empty.mkdir()
    for args in (["clone", str(other)], ["restore", str(other), "--latest"]):
        r = mem("--home", str(tmp_path / "s"), *args, exit_code=4)
        assert "no mem-remote file" in r.stderr and "check the path" in r.stderr, (args, r.stderr)
    r = mem("--home", str(tmp_path / "s2"), "clone", str(empty), exit_code=4)
    assert "push to it from the first machine" in r.stderr and "check the path" not in r.stderr, r.stderr
    assert sorted(p.name for p in other.iterdir()) == ["a.jpg"]
