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


def test_a_folder_or_file_of_the_wrong_kind_in_the_store_is_named_not_an_internal_error(mem, tmp_path):
    """fresh44 F13, F15: ``tombstone-digests`` a folder, ``objects/pack`` a file: push and pull ended in "internal
    error".  An error of a folder where a file goes (or the other way round) on a path no check named yet is now
    said with its path and the way out; nothing is lost."""
    home, remote = tmp_path / "s", tmp_path / "remote"
    remote.mkdir()
    h = ["--home", str(home)]
    mem(*h, "remember", "project/a/b", "the port is 8080")
    mem(*h, "forget", "--match", "Zephyrine Quillborough", "--yes")
    mem(*h, "remote", "add", "o", str(remote))
    mem(*h, "push")
    mem(*h, "gc")
    mem(*h, "forget", "--match", "Ottoline Vandersnatch", "--yes")
    good = (home / "tombstone-digests").read_bytes()
    (home / "tombstone-digests").unlink()
    (home / "tombstone-digests").mkdir()
    for args in (["push"], ["pull"]):
        r = mem(*h, *args, exit_code=None)
        assert "internal error" not in r.stderr, (args, r.stderr)
        if r.exit_code:
            assert f"{home / 'tombstone-digests'}: not a regular file" in r.stderr, (args, r.stderr)
    (home / "tombstone-digests").rmdir()
    (home / "tombstone-digests").write_bytes(good)
    (home / "objects" / "pack").rename(tmp_path / "pack.away")
    (home / "objects" / "pack").write_text("junk")
    mem(*h, "remember", "project/a/c", "the host is db1")
    for args in (["push"], ["pull"]):
        r = mem(*h, *args, exit_code=1)
        assert "internal error" not in r.stderr and f"move {home / 'objects' / 'pack'} out of the way" in r.stderr, \
            (args, r.stderr)
    (home / "objects" / "pack").unlink()
    (tmp_path / "pack.away").rename(home / "objects" / "pack")
    mem(*h, "push")
    assert mem(*h, "get", "project/a/b").stdout.strip() == "the port is 8080"
