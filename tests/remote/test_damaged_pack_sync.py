"""A remote pack damaged, cut short or deleted after this store synced it
(fix14): a pull or push used to trust its pack-ids cache and exit 0 while
every clone failed.  Each sync now lists ``packs/`` once and reads again
every bundle whose size, mtime or etag changed since this store verified it
(``cache/remotes/<name>.seen``): damage is exit 13 naming the remote file,
nothing is taken, nothing local changes, and the push does not build on it
(the hint is ``mem push --repair``)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from objstore import IntegrityError
from objstore.memory.facts import current, remember
from objstore.remote.transport import open_transport

PERSON = {**os.environ, "MEM_AGENT": "0"}
for _k in ("CLAUDECODE", "MEM_SESSION"):
    PERSON.pop(_k, None)


def _damage(target, name: str, how: str) -> None:
    t = open_transport(target.url, endpoint=target.endpoint, env=target.env)
    data = bytearray(t.read(f"packs/{name}")[0])
    t.delete(f"packs/{name}")
    if how == "flip":
        data[len(data) // 2] ^= 0xFF
        t.create(f"packs/{name}", bytes(data))
    elif how == "truncate":
        t.create(f"packs/{name}", bytes(data[:len(data) // 3]))


def _packs(target) -> list[str]:
    t = open_transport(target.url, endpoint=target.endpoint, env=target.env)
    return sorted(n.rsplit("/", 1)[-1] for n, _s, _m in t.list("packs/"))


def _manifest(target) -> bytes:
    return open_transport(target.url, endpoint=target.endpoint, env=target.env).read("manifest")[0]


def _refs(store) -> dict:
    return {ns: dict(store.refs.iter(ns)) for ns in ("facts", "sessions", "tombstones")}


@pytest.mark.parametrize("how", ["flip", "truncate", "delete"])
def test_pull_and_push_notice_a_damaged_pack_they_already_hold(machines, target, how):
    a = machines("a")
    remember(a.store, "user/k0", "value 0")
    a.push()
    [first] = _packs(target)
    remember(a.store, "user/k1", "value 1")
    a.push()
    b = machines("b", clone_from=a)
    assert b.pull().packs_received == 0          # nothing changed: no bundle read again
    _damage(target, first, how)
    before_b, manifest = _refs(b.store), _manifest(target)
    with pytest.raises(IntegrityError) as e:
        b.pull()
    assert f"packs/{first}" in str(e.value) and "mem push --repair" in (e.value.hint or "")
    assert _refs(b.store) == before_b and current(b.store, "user/k0").fact.body == "value 0"
    remember(a.store, "user/k2", "value 2")
    with pytest.raises(IntegrityError) as e:     # a push does not build on it
        a.push()
    assert f"packs/{first}" in str(e.value)
    assert _manifest(target) == manifest
    res = a.push(repair=True)                    # the hint mends it, and sends user/k2
    assert res.remote_packs_repaired == [first]
    b.pull()
    assert current(b.store, "user/k2").fact.body == "value 2"
    assert current(b.store, "user/k0").fact.body == "value 0"


def test_an_unchanged_remote_is_not_read_again_and_a_store_without_stamps_verifies_once(machines, target):
    a = machines("a")
    remember(a.store, "user/k", "v")
    a.push()
    again = a.pull()
    assert again.packs_received == 0 and again.bytes_received == len(_manifest(target))
    (a.root / "cache" / "remotes" / "origin.seen").unlink()   # a store synced by an older mem
    local = sorted(p for p in (a.root / "objects").rglob("*") if p.is_file())
    once = a.pull()
    assert once.bytes_received > len(_manifest(target)) and once.objects_received == 0
    assert sorted(p for p in (a.root / "objects").rglob("*") if p.is_file()) == local   # verified, not installed
    assert a.pull().bytes_received == len(_manifest(target))


def test_a_push_replaces_a_damaged_copy_of_a_bundle_it_sends_under_the_same_name(tmp_path, folder_target):
    """An unencrypted remote's bundles are deterministic: a repair's new
    bundle can bear the damaged one's name.  It is written whole again and
    stays named (it was deleted as garbage, leaving the manifest naming a
    missing pack)."""
    from objstore import clone
    from tests.remote.conftest import Machine
    a = Machine(tmp_path / "a", folder_target, encrypt=False)
    try:
        remember(a.store, "user/k", "v")
        a.push()
        [name] = _packs(folder_target)
        _damage(folder_target, name, "flip")
        assert a.push(repair=True).remote_packs_repaired == [name]
        assert _packs(folder_target) == [name]
        a.pull()
        b, _res = clone(tmp_path / "b", folder_target.url, encrypt=False)
        try:
            assert current(b, "user/k").fact.body == "v"
        finally:
            b.close()
    finally:
        a.close()


def _mem(home, *args):
    return subprocess.run([sys.executable, "-m", "cmds", "--home", str(home), *args], env=PERSON,
                          capture_output=True, text=True, timeout=60)


def test_cli_pull_exits_13_naming_the_remote_file_for_a_new_damaged_pack(tmp_path):
    remote = tmp_path / "remote"
    remote.mkdir()
    a, b = tmp_path / "a", tmp_path / "b"
    assert _mem(a, "remember", "user/k", "one").returncode == 0
    assert _mem(a, "remote", "add", "origin", str(remote), "--no-encrypt").returncode == 0
    assert _mem(a, "push").returncode == 0
    assert _mem(b, "clone", str(remote)).returncode == 0
    held = set(os.listdir(remote / "packs"))
    assert _mem(a, "remember", "user/k", "two").returncode == 0
    assert _mem(a, "push").returncode == 0
    [new] = set(os.listdir(remote / "packs")) - held
    p = remote / "packs" / new
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))
    r = _mem(b, "pull")
    assert r.returncode == 13 and f"packs/{new} on the remote {remote}" in r.stderr, r.stderr
    assert _mem(b, "get", "user/k").stdout.strip() == "one"
    assert _mem(b, "fsck").returncode == 0
    r = _mem(a, "push")
    assert r.returncode == 13 and f"packs/{new}" in r.stderr and "mem push --repair" in r.stderr
