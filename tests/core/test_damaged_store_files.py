"""Damaged store files the tester found unhandled (test18 U11, U12): an
index ``CURRENT`` holding bytes that are not UTF-8, and a FIFO, a device or a
folder in place of a loose object.  Each is damage like any other: a clear
message and exit 13 (docs/exit-codes.md), ``mem fsck`` names it, ``mem fsck
--repair`` (and ``mem reindex`` for the derived index) mends it, a forget
still forgets, and no command waits on a FIFO or reads a device forever.
Real stores, real ``mem`` processes, each bounded by a timeout (a hang fails
the test)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.derive._util import transcript

BAD = b"gen-\xff\xfe"


def _object_path(store: Path, oid_prefix: str) -> Path:
    """The loose object file whose id starts with ``oid_prefix`` (12 hex, as ``remember`` prints it)."""
    (hit,) = (store / "objects" / oid_prefix[:2]).glob(oid_prefix[2:] + "*")
    return hit


def _remember(mem, key: str, value: str) -> str:
    return mem("remember", key, value).stdout.split()[-1]   # "wrote KEY vN <id12>"


@pytest.mark.parametrize("sub", ["facts", "turns"])
def test_current_not_utf8_is_index_damage_and_rebuilt(mem, tmp_path, sub):
    store = tmp_path / "store"
    transcript(tmp_path / "cc" / "p" / "s1.jsonl", "5e551011-0000-4000-8000-000000000001",
               [("user", "where is the quokka parser"), ("assistant", "the quokka parser is in src")])
    mem("import", "claude-code", str(tmp_path / "cc"), timeout=120)
    mem("remember", "project/x/a", "alpha wombat")
    mem("search", "wombat", timeout=60)
    current = store / "index" / sub / "CURRENT"
    assert current.is_file()
    current.write_bytes(BAD + b"\n")

    for args in (("search", "wombat"), ("recall", "quokka")):
        r = mem(*args, exit_code=13, timeout=60)
        assert "index/" + sub + "/CURRENT: bad content" in r.stderr and "not UTF-8" in r.stderr, r.stderr
        assert "mem reindex" in r.stderr and "internal error" not in r.stderr
    r = mem("fsck", exit_code=13, timeout=60)
    assert f"index/{sub}/CURRENT" in r.stdout + r.stderr and "internal error" not in r.stderr
    r = mem("doctor", exit_code=None, timeout=60)
    assert "index is damaged" in r.stdout + r.stderr and "interrupted write" not in r.stdout + r.stderr
    # a write goes on (the index it cannot read is derived)
    mem("remember", "project/x/b", "beta", timeout=60)
    mem("fsck", "--repair", timeout=120)
    assert "wombat" in mem("search", "wombat", timeout=60).stdout
    assert "quokka" in mem("search", "quokka", timeout=60).stdout
    assert current.read_bytes() != BAD + b"\n"

    current.write_bytes(BAD)
    mem("reindex", timeout=120)
    assert "wombat" in mem("search", "wombat", timeout=60).stdout
    current.write_bytes(BAD)
    mem("gc", timeout=120)


@pytest.mark.parametrize("sub", ["facts", "turns"])
def test_forget_with_an_unreadable_current_still_purges_the_index(mem, tmp_path, sub):
    store = tmp_path / "store"
    sid = "5e551011-0000-4000-8000-000000000002"
    transcript(tmp_path / "cc" / "p" / "s2.jsonl", sid,
               [("user", "the numbat token is zebrafinch"), ("assistant", "noted the zebrafinch")])
    mem("import", "claude-code", str(tmp_path / "cc"), timeout=120)
    mem("remember", "project/x/a", "alpha wombat")
    mem("remember", "project/x/k", "keep kookaburra")
    (store / "index" / sub / "CURRENT").write_bytes(BAD)
    what = ("project/x/a",) if sub == "facts" else ("--session", sid)
    r = mem("forget", *what, "--yes", timeout=120)
    assert "internal error" not in r.stderr
    assert not (store / "index-journal").exists() or not (store / "index-journal").read_bytes().strip()
    gone = "wombat" if sub == "facts" else "zebrafinch"
    assert mem("search", gone, timeout=60).stdout == ""
    for f in (store / "index").rglob("*"):
        if f.is_file():
            assert gone.encode() not in f.read_bytes(), f
    assert "kookaburra" in mem("search", "kookaburra", timeout=60).stdout
    mem("fsck", timeout=60)


def _replace(path: Path, kind: str) -> None:
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
        (path / "x").write_bytes(b"x")


@pytest.mark.parametrize("kind", ["fifo", "device", "dir"])
def test_an_object_that_is_no_regular_file_is_damage_never_waited_on(mem, tmp_path, kind):
    store = tmp_path / "store"
    _remember(mem, "project/x/a", "alpha one")
    _remember(mem, "project/x/a", "alpha two")
    oid = _remember(mem, "project/x/c", "gamma")
    obj = _object_path(store, oid)
    _replace(obj, kind)

    for args in (("get", "project/x/c"), ("log", "project/x/c")):
        r = mem(*args, exit_code=13, timeout=30)
        assert "not a regular file" in r.stderr and oid in r.stderr and "internal error" not in r.stderr
    assert mem("get", "project/x/a", timeout=30).stdout.strip() == "alpha two"   # other keys read on
    mem("search", "gamma", timeout=30)
    r = mem("fsck", exit_code=13, timeout=60)
    assert f"object {oid}" in r.stdout + r.stderr and "not a regular file" in r.stdout + r.stderr
    mem("gc", timeout=60)   # keeps every unreachable object while damage is reported; never hangs
    mem("fsck", "--repair", timeout=60)
    assert not obj.exists() and not obj.is_symlink()   # set aside (quarantine)
    mem("fsck", timeout=60)
    assert "was lost to damage" in mem("get", "project/x/c", exit_code=13, timeout=30).stderr   # lost-refs (test34 T2)
    assert mem("get", "project/x/a", timeout=30).stdout.strip() == "alpha two"


def test_hooks_fail_open_with_a_fifo_object(mem, tmp_path):
    store = tmp_path / "store"
    oid = _remember(mem, "project/x/c", "gamma")
    _replace(_object_path(store, oid), "fifo")
    sid = "5e551011-0000-4000-8000-000000000003"
    for event, extra in (("SessionStart", ""), ("UserPromptSubmit", ',"prompt":"what is gamma"')):
        payload = f'{{"hook_event_name":"{event}","session_id":"{sid}","cwd":"{tmp_path}"{extra}}}'
        mem("hook", "claude-code", input=payload, exit_code=0, timeout=30)


@pytest.mark.parametrize("kind", ["fifo", "dir"])
def test_contains_calls_a_non_regular_object_damage_not_absent(mem, tmp_path, kind):
    """q20: ``LooseObjects.contains`` (a full id's look-up, ``Store.has``) took a
    FIFO or a folder in an object's place for "no such object" (exit 4): it is
    damage like the read's answer, exit 13 naming the object."""
    store = tmp_path / "store"
    oid = _remember(mem, "project/x/c", "gamma")
    obj = _object_path(store, oid)
    full = obj.parent.name + obj.name
    _replace(obj, kind)
    r = mem("cat-object", full, exit_code=13, timeout=30)
    assert "not a regular file" in r.stderr and full in r.stderr and "internal error" not in r.stderr

    from objstore.core.errors import CorruptObject
    from objstore.core.loose import LooseObjects
    loose = LooseObjects(store / "objects")
    with pytest.raises(CorruptObject, match="not a regular file"):
        loose.contains(full)
    assert loose.contains("0" * 64) is False
