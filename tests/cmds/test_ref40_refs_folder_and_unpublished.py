"""fresh39 F10 and F15 (second half), through real ``mem`` processes.

F10: ``refs/facts`` replaced by a file: ``mem keys`` listed the sealed keys
alone (exit 0, no word), fsck blamed the reflog and ``fsck --repair``
failed pointing at itself.  Now every command exits 13 naming
``refs/facts``, and the repair sets the file aside in the quarantine and
sets each key again from its reflog.

F15: a write that failed before its ref moved (EPERM on the ref's .lock)
left its version stored with no ref and no reflog line: fsck said CORRUPT
("ref missing while 1 of its versions are stored") and ``fsck --repair``
then set the key to the value the person was told was not written.  Now the
writer deletes the version it could not publish, and a version no ref and
no reflog line ever named is an unreachable object (gc's), never a lost
ref for the repair to set."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest


def test_refs_facts_replaced_by_a_file_is_named_and_repaired(mem, store_path, tmp_path):
    mem("remember", "user/fruit", "apple")
    mem("remember", "user/fruit", "banana")
    pp = tmp_path / "pp"
    pp.write_text("correct horse pass ref40\n")
    mem("vault", "init", "--passphrase-file", str(pp))
    mem("remember", "user/pin", "s3cret-9911", "--sensitivity", "secret")
    shutil.rmtree(store_path / "refs" / "facts")
    (store_path / "refs" / "facts").write_text("x\n")
    for args in (("keys",), ("fsck",), ("get", "user/fruit")):
        r = mem(*args, exit_code=13)
        assert "refs/facts is a file, not a folder" in r.stderr and "mem fsck --repair" in r.stderr, (args, r.stderr)
        assert "user/pin" not in r.stdout
    r = mem("fsck", "--repair")
    assert "refs/facts is a file, not a folder: set it aside as quarantine/" in r.stdout, r.stdout
    assert "restored facts/user/fruit from its reflog" in r.stdout
    assert [p.name for p in (store_path / "quarantine").glob("*/refs/facts")] == ["facts"]
    assert mem("get", "user/fruit").stdout == "banana\n"
    assert [v["version"] for v in mem("log", "user/fruit", "--json").json] == [2, 1]
    assert "user/pin" in mem("keys").stdout
    assert mem("fsck").stdout.startswith("ok:")


def _immutable(path) -> bool:
    return shutil.which("chattr") is not None and subprocess.run(["chattr", "+i", str(path)],
                                                                 capture_output=True).returncode == 0


def test_a_new_key_whose_ref_could_not_be_written_is_not_published_by_a_repair(mem, store_path):
    mem("remember", "user/fruit", "apple")
    folder = store_path / "refs" / "facts" / "user"
    if not _immutable(folder):
        pytest.skip("chattr +i is not available here (root on a file system that has it)")
    try:
        r = mem("remember", "user/newk", "never-written", env={"MEM_NO_HELPER": "1"}, exit_code=1)
        assert "permission denied" in r.stderr and "newk.lock" in r.stderr, r.stderr
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    r = mem("fsck")
    assert r.stdout.startswith("ok:") and "missing" not in r.stderr, (r.stdout, r.stderr)
    mem("fsck", "--repair")
    mem("get", "user/newk", exit_code=4)
    assert "user/newk" not in mem("keys").stdout


def test_a_version_no_ref_or_reflog_line_ever_named_is_unreachable_not_a_lost_ref(mem, store_path):
    mem("remember", "user/fruit", "apple")
    mem("remember", "user/newk", "never-acknowledged")
    # the state of a write stopped after its object and before its ref (no ref, no reflog line)
    os.unlink(store_path / "refs" / "facts" / "user" / "newk")
    os.unlink(store_path / "logs" / "refs" / "facts" / "user" / "newk")
    r = mem("fsck")
    assert r.stdout.startswith("ok:") and "1 unreachable" in r.stdout and "missing" not in r.stderr, r
    r = mem("fsck", "--repair")
    assert "newk" not in r.stdout, r.stdout
    mem("get", "user/newk", exit_code=4)
    # a ref lost while its reflog names it is still a lost ref, set again
    os.unlink(store_path / "refs" / "facts" / "user" / "fruit")
    r = mem("fsck", exit_code=13)
    assert "ref facts/user/fruit: missing" in r.stdout + r.stderr, r
    mem("fsck", "--repair")
    assert mem("get", "user/fruit").stdout == "apple\n"
