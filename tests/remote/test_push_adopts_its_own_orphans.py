"""A first ``mem push`` to a new remote SIGKILLed after it uploaded its pack
and before it wrote the manifest: the next plain ``mem push`` of the same
store verifies the packs, sees that it holds every object in them, adopts
them and finishes (rob10; before, it waited and then needed ``mem push
--repair``).  A pack that does not verify, or holds an object this store
lacks, is never adopted and never deleted.  Folder and S3."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from objstore import IntegrityError, RemoteUnavailable, clone, current, remember

REPO = Path(__file__).resolve().parents[2]

# push, SIGKILLed by itself once its packs are uploaded, as the manifest is about to be written
_KILLED_PUSH = r"""
import os, signal, sys
from objstore import open_store, push
from objstore.remote import config as rconfig
from objstore.remote import sync
def die(self):
    os.kill(os.getpid(), signal.SIGKILL)
sync.Manifest.encode = die
store = open_store(sys.argv[1])
spec = rconfig.get_remote(store, "origin")
push(store, spec, env=dict(os.environ))
"""


def _killed_first_push(m, target) -> None:
    m.store.close()
    env = dict(os.environ, **target.env)
    p = subprocess.run([sys.executable, "-c", _KILLED_PUSH, str(m.root)], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == -signal.SIGKILL, p.stderr
    from objstore import open_store
    m.store = open_store(m.root)


def _listing(target) -> tuple[list[str], bool]:
    from objstore.remote.transport import open_transport
    t = open_transport(target.url, endpoint=target.endpoint, env=target.env)
    packs = sorted(n.rsplit("/", 1)[-1] for n, _s, _m in t.list("packs/"))
    try:
        t.read("manifest")
        return packs, True
    except Exception:  # noqa: BLE001 - NotFound: no manifest
        return packs, False


def test_the_next_push_finishes_a_killed_first_push(machines, target, tmp_path):
    a = machines("a")
    remember(a.store, "user/editor", "helix")
    _killed_first_push(a, target)
    packs, has_manifest = _listing(target)
    assert packs and not has_manifest                      # the state the tester left
    remember(a.store, "user/editor", "vim")                 # and the store went on meanwhile
    res = a.push()                                          # plain push: no --repair, no wait
    assert res.remote_packs_adopted == len(packs)
    _after, has_manifest = _listing(target)
    assert has_manifest
    c, _r = clone(tmp_path / "c", target.url, endpoint=target.endpoint, key=a.key(), env=target.env)
    try:
        assert current(c, "user/editor").fact.body == "vim"
        assert current(c, "user/editor").fact.version == 2
    finally:
        c.close()
    assert a.push().remote_packs_adopted == 0               # done: the next push is an ordinary one


def test_a_pack_this_store_does_not_hold_whole_is_not_adopted(machines, target):
    a = machines("a")
    remember(a.store, "user/editor", "helix")
    _killed_first_push(a, target)
    packs, _m = _listing(target)
    other = machines("b")                                    # a store that shares the sync key but not the data
    from objstore import import_sync_key
    import_sync_key(other.store, a.key())
    remember(other.store, "user/shell", "fish")
    with pytest.raises((RemoteUnavailable, IntegrityError)) as e:
        other.push()
    assert "--repair" in (e.value.hint or "")
    assert _listing(target) == (packs, False)               # nothing adopted, nothing deleted


def test_a_damaged_orphan_pack_is_not_adopted(tmp_path, folder_target):
    from tests.remote.conftest import Machine
    a = Machine(tmp_path / "a", folder_target)
    remember(a.store, "user/editor", "helix")
    _killed_first_push(a, folder_target)
    packs, _m = _listing(folder_target)
    p = Path(folder_target.url) / "packs" / packs[0]
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))
    old = time.time() - 3600
    os.utime(p, (old, old))                                  # old: the read does not wait for a manifest
    with pytest.raises(IntegrityError) as e:
        a.push()
    assert "push --repair" in (e.value.hint or "")
    assert p.exists() and _listing(folder_target) == (packs, False)
    a.close()
