"""The packs the resident helper keeps open across requests
(``objstore.keep_packs_open``, ``pack.KeptPacks``): the next store of the
thread takes back the same open pack with its block cache, and never one
whose files a forget + gc removed or whose files were replaced under the
same name; ``refresh()`` closes those.  Real stores written by real ``mem``
processes; each test keeps packs in a thread of its own (the cache belongs
to the thread that made it) and stops keeping them at its end."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from importlib import resources
from pathlib import Path

import pytest

import objstore
from objstore.core.errors import NotFound
from objstore.core.pack import PackSet, kept_packs
from objstore.core.packformat import BLOCK_CACHE, KEPT_BLOCKS

REPO = Path(__file__).resolve().parents[2]
SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects"))


def mem(store: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(store), MEM_NO_HELPER="1",
               PYTHONPATH=os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    subprocess.run([sys.executable, "-m", "cmds", *args], env=env, cwd=REPO, check=True, capture_output=True,
                   timeout=300)


@pytest.fixture(scope="module")
def base_store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("kept") / "store"
    mem(root, "import", "claude-code", str(SAMPLE))
    mem(root, "gc", "--prune=now")   # every object in packs
    return root


@pytest.fixture
def store(base_store, tmp_path) -> Path:
    dst = tmp_path / "store"
    shutil.copytree(base_store, dst)
    return dst


def in_thread(fn):
    """Run ``fn(kept)`` in a new thread that keeps packs, then stop keeping
    them; re-raise what it raised."""
    box: list = []

    def body():
        kept = objstore.keep_packs_open()
        try:
            box.append(("ok", fn(kept)))
        except BaseException as e:   # noqa: BLE001 - handed to the test's thread
            box.append(("err", e))
        finally:
            kept.clear()
    t = threading.Thread(target=body)
    t.start()
    t.join(600)
    assert box, "the thread did not finish"
    if box[0][0] == "err":
        raise box[0][1]
    return box[0][1]


def deleted_fds(store: Path) -> list[str]:
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if str(store) in target and target.endswith("(deleted)"):
            out.append(target)
    return out


def read_all(ps: PackSet) -> dict[str, bytes]:
    return {oid: ps.get(oid) for oid in ps}


def test_the_next_packset_takes_back_the_open_pack_with_its_blocks(store):
    pack_dir = store / "objects" / "pack"

    def body(kept):
        ps = PackSet(pack_dir)
        first = {p.name: p for p in ps.packs}
        assert first and all(p.block_cache == max(BLOCK_CACHE, KEPT_BLOCKS // len(first)) > BLOCK_CACHE
                              for p in first.values())
        frames = read_all(ps)
        ps.close()   # a kept pack stays open
        again = PackSet(pack_dir)
        assert {p.name: p for p in again.packs} == first
        assert all(again.packs[i] is first[p.name] for i, p in enumerate(again.packs))
        assert read_all(again) == frames
        again.close()
        assert kept.refresh() == len(first)
        return first, {p.name: next(iter(p)) for p in first.values()}

    first, ids = in_thread(body)
    # kept.clear() closed them; this thread keeps nothing: its packs are its own and of the default cache
    assert kept_packs() is None
    ps = PackSet(pack_dir)
    try:
        assert all(p.block_cache == BLOCK_CACHE and p is not first.get(p.name) for p in ps.packs)
    finally:
        ps.close()
    for name, p in first.items():
        with pytest.raises(ValueError):
            p.get(ids[name])


def test_forget_and_gc_in_another_process_leave_nothing_forgotten_served(store):
    pack_dir = store / "objects" / "pack"

    def body(kept):
        ps = PackSet(pack_dir)
        before = read_all(ps)   # every block read: the kept caches hold the turns forget takes out
        old = {p.name for p in ps.packs}
        ps.close()
        mem(store, "forget", "--match", "flaky", "--yes")
        mem(store, "gc", "--prune=now")
        after = PackSet(pack_dir)
        gone = set(before) - set(after)
        assert gone, "forget took no object out of the packs"
        assert {p.name for p in after.packs} != old
        for oid in gone:
            with pytest.raises(NotFound):
                after.get(oid)
        assert all(b"flaky" not in f for f in read_all(after).values())
        now = {p.name for p in after.packs}
        after.close()
        assert kept.refresh() == len(now)
        assert deleted_fds(store) == []   # the removed packs' files are let go

    in_thread(body)


def test_a_pack_replaced_under_the_same_name_is_opened_again(store):
    pack_dir = store / "objects" / "pack"

    def body(kept):
        ps = PackSet(pack_dir)
        p = ps.packs[0]
        oid = next(iter(p))
        frames = read_all(ps)
        ps.close()
        for f in (p.idx_path, p.pack_path):   # the same bytes in new files (a restore from a copy)
            tmp = f.with_name("copy-" + f.name)
            shutil.copy2(f, tmp)
            os.replace(tmp, f)
        again = PackSet(pack_dir)
        q = next(x for x in again.packs if x.name == p.name)
        assert q is not p
        with pytest.raises(ValueError):   # the replaced one was closed
            p.get(oid)
        assert read_all(again) == frames
        again.close()
        assert deleted_fds(store) == []

    in_thread(body)
