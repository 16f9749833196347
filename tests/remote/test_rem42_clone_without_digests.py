"""fresh42 F22: a clone from an encrypted remote whose ``digests/`` is
missing (a partial copy, a sync tool that skipped the folder) lost the
forget guard without a word: clone said "cloned", fsck "ok", and an agent
wrote the forgotten value back.  Now the clone (and a pull) says so, and
fsck keeps the guard's absence visible as a warning."""

from __future__ import annotations

import shutil

PERSON = {"MEM_AGENT": "0"}
VALUE = "lynx-harbor-5531"


def test_a_clone_without_digests_says_the_guard_is_missing(mem, tmp_path):
    home, remote = tmp_path / "store", tmp_path / "r2"
    remote.mkdir()
    env = {**PERSON, "MEM_HOME": str(home)}
    mem("remote", "add", "o", str(remote), env=env)
    mem("remember", "project/z/sec", VALUE, env=env)
    mem("remember", "project/z/other", "kept", env=env)
    mem("forget", "project/z/sec", "--yes", env=env)
    mem("push", env=env)
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=env)
    full = {**PERSON, "MEM_HOME": str(tmp_path / "c2")}
    r = mem("clone", str(remote), "--key", str(tmp_path / "k.key"), env=full)
    assert "without the digests" not in r.stdout + r.stderr
    assert "tombstone-digests" not in mem("fsck", env=full).stdout
    shutil.copytree(remote, tmp_path / "r3")
    shutil.rmtree(tmp_path / "r3" / "digests")
    c3 = {**PERSON, "MEM_HOME": str(tmp_path / "c3")}
    r = mem("clone", str(tmp_path / "r3"), "--key", str(tmp_path / "k.key"), env=c3)
    out = r.stdout + r.stderr
    assert "arrived without the digests" in out and "an agent can write one back here" in out, out
    f = mem("fsck", env=c3)
    assert "tombstone-digests:" in f.stdout + f.stderr and "can no longer stop" in f.stdout + f.stderr, f.stdout
