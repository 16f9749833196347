"""``push --repair`` on a remote whose manifest is there but damaged (rob9
item 1: it exited 13 with a hint naming itself; only deleting the manifest
by hand let it adopt the packs), folder and S3."""

from __future__ import annotations

import pytest

from objstore import current, remember

PERSON = {"MEM_AGENT": "0"}


def _overwrite_manifest(target, data: bytes) -> None:
    from objstore.remote.transport import open_transport
    t = open_transport(target.url, endpoint=target.endpoint, env=target.env)
    t.delete("manifest")
    assert t.create("manifest", data)


def test_push_repair_rebuilds_a_garbage_manifest_without_losing_what_only_the_remote_held(machines, target):
    from objstore import IntegrityError, clone, forget
    a = machines("a")
    remember(a.store, "user/shared", "from a")
    remember(a.store, "user/gone", "the wombat7373 value")
    a.push()
    b = machines("b", clone_from=a)
    remember(b.store, "user/only-b", "b v1")
    remember(b.store, "user/only-b", "b v2")
    remember(b.store, "user/shared", "from b")
    b.push()                                    # a never pulled these: only the remote holds them
    _overwrite_manifest(target, b"this is not a manifest \x00\xff" * 8)
    with pytest.raises(IntegrityError) as e:
        a.pull()
    assert "mem push --repair" in (e.value.hint or "")
    forget(a.store, what="user/gone")                # forgotten here: the adopted packs must lose it too
    res = a.push(repair=True)
    assert res.remote_packs_checked == 2 and res.remote_objects_lost == []
    # the refs the damaged manifest named are read back from the packs and merged, not dropped
    assert current(a.store, "user/only-b").fact.body == "b v2"
    assert current(a.store, "user/shared").fact.body == "from b"
    c, _r = clone(a.root.parent / "c", target.url, endpoint=target.endpoint, key=a.key(), env=target.env)
    try:
        assert current(c, "user/only-b").fact.body == "b v2"
        assert current(c, "user/only-b").fact.version == 2
        assert current(c, "user/shared").fact.body == "from b"
        assert c.refs.read("facts/user/gone") is None
    finally:
        c.close()
    from tests.remote.test_sync import _all_remote_plaintexts
    assert not any(b"wombat7373" in p for p in _all_remote_plaintexts(target, a.key()))
    assert b.pull().objects_received >= 0      # the other machine goes on syncing
    assert b.store.refs.read("facts/user/gone") is None


def test_push_repair_of_a_garbage_manifest_from_the_cli(mem, tmp_path):
    """The tester's report, as run: exit 13 before, exit 0 after, and the
    remote clones whole."""
    remote, key = tmp_path / "remote", tmp_path / "sync.key"
    remote.mkdir()
    a = ["--home", str(tmp_path / "a")]
    mem(*a, "init")
    mem(*a, "remote", "add", "origin", str(remote))
    mem(*a, "remember", "project/r/note", "kept value", env=PERSON)
    mem(*a, "push")
    mem(*a, "remote", "key", "export", "-o", str(key))
    (remote / "manifest").write_bytes(b"garbage")
    r = mem(*a, "pull", exit_code=13)
    assert "push --repair" in r.stderr
    mem(*a, "push", "origin", "--repair")
    mem("--home", str(tmp_path / "c"), "clone", str(remote), "--key", str(key))
    assert mem("--home", str(tmp_path / "c"), "get", "project/r/note").stdout.strip() == "kept value"
