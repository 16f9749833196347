"""A version chain is read from loose objects first while the packs are not
open (``Store.walk_chain``; issue 12, "Start-up"): ``mem get`` of a key
written since the last gc opens no pack, and the answer is the one the packs
give, whether the chain is all loose, loose above packed, or a loose copy is
damaged and a sound one is packed."""

from __future__ import annotations

import os
import subprocess
import sys
import zlib

from objstore import remember, versions
from objstore.memory.opening import open_store
from tests.conftest import REPO


def mem_get(key: str) -> str:
    """stdout of a new ``mem get KEY`` process (exit 0)."""
    p = subprocess.run([sys.executable, "-m", "cmds", "get", key], capture_output=True, text=True, cwd=REPO,
                       env=dict(os.environ), timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout


def _chain(store_path, key):
    with open_store(store_path) as s:
        got = [(v.id, v.fact.body) for v in versions(s, key)]
        return got, s._packs is not None


def _ids(store_path, key):
    return [oid for oid, _body in _chain(store_path, key)[0]]


def test_a_loose_chain_is_read_without_opening_a_pack(store_path):
    with open_store(store_path, create=True) as s:
        for i in range(3):
            remember(s, "project/lf/old", f"old value {i}")
        with s.lock("test"):
            s.pack_loose(_ids(store_path, "project/lf/old"))     # the store has a pack
        assert list((store_path / "objects" / "pack").glob("*.pack"))
        for i in range(3):
            remember(s, "project/lf/new", f"new value {i}")
    got, opened = _chain(store_path, "project/lf/new")
    assert [b for _i, b in got] == ["new value 2", "new value 1", "new value 0"] and not opened
    got, opened = _chain(store_path, "project/lf/old")          # a packed head: the packs, as before
    assert [b for _i, b in got] == ["old value 2", "old value 1", "old value 0"] and opened
    assert mem_get("project/lf/new") == "new value 2\n"


def test_loose_above_packed_and_a_damaged_loose_copy_read_as_the_packs_do(store_path):
    with open_store(store_path, create=True) as s:
        for i in range(2):
            remember(s, "project/lf/k", f"value {i}")
        older = _ids(store_path, "project/lf/k")
        with s.lock("test"):
            s.pack_loose(older)
        for i in range(2, 4):
            remember(s, "project/lf/k", f"value {i}")
    got, opened = _chain(store_path, "project/lf/k")            # two loose, then two packed
    assert [b for _i, b in got] == ["value 3", "value 2", "value 1", "value 0"] and opened
    head = got[0][0]
    with open_store(store_path) as s, s.lock("test"):
        s.repack([], keep=lambda _p, _o: True, loose=[head])    # a packed copy of the head, the loose one kept
    loose = store_path / "objects" / head[:2] / head[2:]
    loose.chmod(0o600)
    loose.write_bytes(zlib.compress(b"not the object"))          # the loose copy damaged
    got2, _opened = _chain(store_path, "project/lf/k")
    assert got2 == got
    assert mem_get("project/lf/k") == "value 3\n"
