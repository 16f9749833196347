"""The store lock's holder record is written without loading ``json`` on a
writer's start-up (``objstore.core.lock.holder_record``): the same bytes
``json.dumps`` gives, for plain names and for names that need escaping."""

from __future__ import annotations

import json
import os

import pytest

from objstore.core.lock import StoreLock, holder_record, lock_holder


@pytest.mark.parametrize("host,command", [("build-01.example", "remember"), ('we"ird', "back\\slash"),
                                          ("höst", "import"), ("tab\there", "forget"), ("", "")])
def test_the_record_is_what_json_dumps_writes(host, command):
    want = json.dumps({"pid": 4242, "host": host, "time": 1_790_000_000, "command": command}).encode()
    assert holder_record(4242, host, command)(1_790_000_000) == want


def test_a_held_lock_names_its_holder(tmp_path):
    lk = StoreLock(tmp_path / "locks" / "store.lock", command="remember")
    with lk:
        info = lock_holder(tmp_path / "locks" / "store.lock")
    assert info["pid"] == os.getpid() and info["command"] == "remember" and info["host"] == os.uname().nodename
    assert isinstance(info["time"], int)
