"""A new process's ``mem remember`` answers once the version, its ref and
reflog are durable and commits the search index in a detached child that
holds the store lock (cmds/lean.py ``_index_after_answer``): a reader
started right after the answer finds the new value, writers queue behind
the child, and a store without an index yet commits before answering."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import REPO, wait_remember_done


def _run(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=REPO, timeout=120)


def test_a_reader_right_after_the_answer_finds_the_value(store_path):
    assert _run("remember", "project/x/db", "postgres 14 on port 5432").returncode == 0
    wait_remember_done(store_path)          # the first commit made the index
    for i in range(5):
        w = _run("remember", "project/x/db", f"mysql 8 on port {3300 + i}")
        assert w.returncode == 0 and w.stdout.startswith("wrote project/x/db"), w.stderr
        r = _run("search", "--json", f"{3300 + i}")     # no wait: the reader waits for the commit itself
        assert [h["key"] for h in json.loads(r.stdout) if h["kind"] == "fact"] == ["project/x/db"], r.stdout
        g = _run("get", "project/x/db")
        assert g.stdout == f"mysql 8 on port {3300 + i}\n"
    wait_remember_done(store_path)
    assert (store_path / "index-journal").read_bytes() == b""
    rec = _run("recall", "--all-projects", "--json", "mysql port")
    assert json.loads(rec.stdout)["hits"][0]["text"].startswith("mysql 8 on port 3304")


def test_writers_in_a_row_all_reach_the_index(store_path):
    assert _run("remember", "user/seed", "seed value").returncode == 0
    for i in range(4):
        assert _run("remember", f"user/k{i}", f"distinct{i}word").returncode == 0
    wait_remember_done(store_path)
    for i in range(4):
        r = _run("search", "--json", f"distinct{i}word")
        assert [h["key"] for h in json.loads(r.stdout)] == [f"user/k{i}"]
    assert _run("fsck").returncode == 0


def test_the_first_remember_of_a_store_commits_before_answering(store_path):
    """No facts sub-index yet: nothing is left for after the answer."""
    assert _run("remember", "user/editor", "helix").returncode == 0
    assert (store_path / "index" / "facts" / "CURRENT").is_file()
    assert (store_path / "index-journal").read_bytes() == b""


def test_the_child_leaves_nothing_open_and_the_lock_free(store_path):
    assert _run("remember", "user/a", "first").returncode == 0
    assert _run("remember", "user/a", "second").returncode == 0
    wait_remember_done(store_path)
    from objstore.core.lock import lock_held
    assert not lock_held(store_path / "locks" / "store.lock")
    # a writer that does not wait (lock timeout 0) gets the lock now
    r = _run("--lock-timeout", "0", "remember", "user/a", "third")
    assert r.returncode == 0, r.stderr
