"""fresh40 F17: a folder remote this store synced with that is now an empty
folder (a USB disk's mount point with the disk absent) read as "up to
date" on pull, and a push wrote a whole new remote there.  Now pull, push
and backup refuse (exit 15, "is the disk mounted?") and write nothing,
unless ``mem push --new-remote`` (or the remote removed and added again);
an empty folder never synced with is still a new remote."""

from __future__ import annotations

import os
import shutil

PERSON = {"MEM_AGENT": "0"}


def _synced(mem, tmp_path):
    home, remote = tmp_path / "store", tmp_path / "usb"
    remote.mkdir()
    env = {**PERSON, "MEM_HOME": str(home)}
    mem("remote", "add", "origin", str(remote), env=env)   # never synced: an empty folder is a new remote
    mem("remember", "user/editor", "vim with four-space tabs", env=env)
    mem("push", env=env)
    mem("pull", env=env)
    shutil.move(str(remote), str(tmp_path / "usb.real"))    # the disk is unmounted: its mount point stays
    remote.mkdir()
    return env, remote


def test_an_emptied_remote_is_refused_not_taken_as_new(mem, tmp_path):
    env, remote = _synced(mem, tmp_path)
    for args in (("pull",), ("push",), ("backup",)):
        r = mem(*args, env=env, exit_code=15)
        assert "origin was synced from here before but is empty now: is the disk mounted?" in r.stderr, r.stderr
        assert "--new-remote" in r.stderr
        assert os.listdir(remote) == [], (args, os.listdir(remote))
    shutil.rmtree(remote)
    shutil.move(str(tmp_path / "usb.real"), str(remote))   # mounted again: all as before
    mem("pull", env=env)
    mem("push", env=env)


def test_new_remote_on_purpose(mem, tmp_path):
    env, remote = _synced(mem, tmp_path)
    mem("push", "--new-remote", env=env)
    assert (remote / "mem-remote").is_file()
    mem("push", env=env)   # synced with the new one now
    other = tmp_path / "other"
    other.mkdir()
    mem("remote", "remove", "origin", env=env)
    mem("remote", "add", "origin", str(other), env=env)
    mem("push", env=env)
    shutil.rmtree(other)
    other.mkdir()
    mem("push", env=env, exit_code=15)
    mem("remote", "remove", "origin", env=env)
    mem("remote", "add", "origin", str(other), env=env)
    mem("push", env=env)
    assert (other / "mem-remote").is_file()
