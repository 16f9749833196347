"""Creating a store: processes that create the same new store at once all
get it (CI: the first shell commands' records of a new store were lost when
one hook saw another's half-made skeleton), and a creation that died
before its config is finished, not refused."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import objstore.core.storemake as store_mod   # the creation code (Store.init) since pid39
from objstore import open_store, remember
from objstore.core.errors import CorruptObject, InvalidInput
from objstore.core.store import Store

REPO = Path(__file__).resolve().parents[2]


def test_a_second_creator_mid_creation_waits_for_the_config(tmp_path, monkeypatch):
    root = tmp_path / "s"
    real_write, seen = store_mod.atomic_write, {}

    def write(path, data, *a, **kw):
        if Path(path).name == "config" and "t" not in seen:
            # a second process arrives between the skeleton and the config
            def second():
                try:
                    Store.init(root).close()
                    seen["ok"] = True
                except Exception as e:  # noqa: BLE001
                    seen["err"] = repr(e)
            seen["t"] = threading.Thread(target=second)
            seen["t"].start()
            seen["t"].join(2)   # the old code failed at once; the new one waits on the init lock
        return real_write(path, data, *a, **kw)
    monkeypatch.setattr(store_mod, "atomic_write", write)
    Store.init(root).close()
    seen["t"].join(60)
    assert not seen["t"].is_alive()
    assert seen.get("ok") and "err" not in seen, seen


def test_a_skeleton_left_by_a_dead_creation_is_finished(tmp_path):
    root = tmp_path / "s"
    for d in ("objects", "refs/facts", "logs"):
        (root / d).mkdir(parents=True)
    st = open_store(root, create=True)
    remember(st, "user/k", "v")
    st.close()
    assert (root / "config").exists()


def test_a_store_without_config_that_holds_data_is_still_refused(tmp_path):
    root = tmp_path / "s"
    st = open_store(root, create=True)
    remember(st, "user/k", "v")
    st.close()
    (root / "config").unlink()
    with pytest.raises(CorruptObject, match="config is missing"):   # as a reader is told (exit 13)
        open_store(root, create=True)
    with pytest.raises(CorruptObject, match="config is missing"):
        open_store(root)


def test_a_folder_of_something_else_is_refused(tmp_path):
    root = tmp_path / "s"
    root.mkdir()
    (root / "notes.txt").write_text("mine")
    with pytest.raises(InvalidInput, match="not a mem store"):
        open_store(root, create=True)
    assert (root / "notes.txt").read_text() == "mine"


def test_first_shell_records_of_a_new_store_all_kept(tmp_path):
    """Eight `mem hook shell` processes started at once on a store that does
    not exist yet: every record is stored."""
    store = tmp_path / "store"
    env = {**os.environ, "MEM_HOME": str(store), "MEM_SHELL_CAPTURE": "1", "PYTHONPATH": str(REPO)}
    env.pop("MEM_NO_CAPTURE", None)
    now = int(time.time() * 1000)
    procs = [subprocess.Popen([sys.executable, "-m", "cmds", "hook", "shell", "--session", "shell-t-1", "--cwd",
                               str(tmp_path), "--status", "0", "--start", str(now + i), "--duration", "5", "--",
                               f"echo first-record-{i}"], env=env, cwd=str(tmp_path))
             for i in range(8)]
    for p in procs:
        assert p.wait(120) == 0
    st = open_store(store)
    try:
        from objstore import session_turns
        texts = [t.turn.text for t in session_turns(st, "shell-t-1")]
    finally:
        st.close()
    assert sorted(x.split("\n")[0] for x in texts) == sorted(f"$ echo first-record-{i}" for i in range(8)), texts


def test_a_batch_writes_without_fsync_and_gives_durability_back_even_on_an_error(tmp_path):
    """``Store.batch`` (a class since session 21, lat21: ``mem get`` loads no
    contextlib): objects written inside are not fsynced one by one, are
    stored and readable after it, and the store is durable again after it,
    also when the body raised (which propagates)."""
    store = open_store(tmp_path / "s", create=True)
    assert store.objects.durable
    with store.batch() as nothing:
        assert nothing is None and not store.objects.durable
        oid = remember(store, "project/batch/one", "written in a batch").current
    assert store.objects.durable
    assert store.get(oid).body == "written in a batch"
    with pytest.raises(RuntimeError, match="boom"):
        with store.batch():
            assert not store.objects.durable
            raise RuntimeError("boom")
    assert store.objects.durable
