"""fresh42 F21: ``mem push --repair`` of a damaged remote manifest dropped
every backup snapshot without a word (``mem backup --list``: "no snapshots
yet").  Now the store keeps a copy of the snapshots at every push and
backup and the repair puts them back; without a copy it says they are lost
and warns after the repair."""

from __future__ import annotations

import os

PERSON = {"MEM_AGENT": "0"}


def _two_backups(mem, tmp_path):
    home, remote = tmp_path / "store", tmp_path / "r2"
    remote.mkdir()
    env = {**PERSON, "MEM_HOME": str(home)}
    mem("remote", "add", "o", str(remote), env=env)
    mem("remember", "project/z/k", "v1", env=env)
    mem("backup", env=env)
    mem("remember", "project/z/k", "v2", env=env)
    mem("backup", env=env)
    listed = mem("backup", "o", "--list", env=env).stdout.splitlines()
    assert len(listed) == 2, listed
    os.truncate(remote / "manifest", 100)   # cut short by a sync tool, a full disk
    mem("push", env=env, exit_code=13)
    return env, home, listed


def test_repair_keeps_the_snapshots(mem, tmp_path):
    env, _home, listed = _two_backups(mem, tmp_path)
    r = mem("push", "--repair", env=env)
    assert "kept 2 backup snapshot(s)" in r.stderr, r.stderr
    assert mem("backup", "o", "--list", env=env).stdout.splitlines() == listed
    name = listed[0].split("\t")[0]
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=env)
    other = {**PERSON, "MEM_HOME": str(tmp_path / "restored")}
    mem("restore", str(tmp_path / "r2"), "--snapshot", name, "--key", str(tmp_path / "k.key"), env=other)
    assert "v1" in mem("get", "project/z/k", env=other).stdout
    mem("pull", env=env)


def test_repair_without_a_copy_says_they_are_lost(mem, tmp_path):
    env, home, _listed = _two_backups(mem, tmp_path)
    (home / "cache" / "remotes" / "o.snapshots").unlink()   # a store from before the copy, another machine
    r = mem("push", "--repair", env=env)   # a warning: this store cannot tell a remote that had none
    assert "any backup snapshots its damaged manifest recorded are lost" in r.stderr, r.stderr
    assert "remote packs verified" in r.stdout
    mem("pull", env=env)   # the remote is repaired
    mem("push", env=env)
