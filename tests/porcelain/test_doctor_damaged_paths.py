"""``mem doctor`` stopped with exit 13 (a bare ``Error``) on an
``index-journal`` that is a folder, and with an internal error on a
``logs/audit`` folder (test30 R2, R1's doctor side): a damaged store is
doctor's to report.  Now each path of the store replaced by the other file
type is an ``error: [store]`` line naming it and its fix, a check stopped by
the damage is a finding of that check, every other check still runs, and
doctor exits 1.  ``mem fsck --repair``, the fix named for the journal, sets
it aside and the store works again."""

from __future__ import annotations

import shutil

import pytest


def _swap(path):
    """Replace ``path`` by the other file type (a folder by a file, a file by a folder)."""
    if path.is_dir():
        shutil.rmtree(path)
        path.write_text("garbage\n")
    else:
        path.unlink(missing_ok=True)
        path.mkdir(parents=True)


@pytest.mark.parametrize("rel", ["index-journal", "logs/audit", "locks", "locks/store.lock", "index-journal.d",
                                 "cache", "objects"])
def test_doctor_names_a_path_of_the_other_type_and_goes_on(mem, store_path, rel):
    mem("remember", "project/api/db", "Postgres 16 on port 5433")
    for d in ("cache", "index-journal.d"):    # made on first use: here before they are damaged
        (store_path / d).mkdir(exist_ok=True)
    (store_path / "config.toml").write_bytes(b"\xff\xfe not toml")   # another check's finding
    _swap(store_path / rel)
    r = mem("doctor", exit_code=1)
    out = r.stdout + r.stderr
    assert "Traceback" not in out and "internal error" not in out
    want = "a folder where the store keeps a file" if (store_path / rel).is_dir() else \
        "a file, not a folder: the store's objects cannot be read" if rel == "objects" else \
        "a file, not a folder: the store's caches cannot be read" if rel == "cache" else \
        "a file where the store keeps a folder"   # (objects/, cache/: every command refuses the store, test30c
    # T12, fresh40 F4)
    assert f"error: [store] {store_path / rel} is {want}" in r.stdout
    assert "[config]" in r.stdout                 # the other checks ran
    j = mem("doctor", "--json", exit_code=1).json
    assert j["ok"] is False and {"store", "config", "hooks"} <= {f["check"] for f in j["findings"]}


def test_fsck_repair_sets_a_journal_folder_aside(mem, store_path):
    mem("remember", "project/api/db", "Postgres 16 on port 5433")
    _swap(store_path / "index-journal")
    r = mem("doctor", exit_code=1)
    assert "[index] the check could not run" in r.stdout     # the check the damage stopped says so
    assert "fix: mem fsck --repair" in r.stdout
    rep = mem("fsck", "--repair")
    assert "moved 1 damaged file" in rep.stdout
    assert not (store_path / "index-journal").is_dir()
    assert list((store_path / "quarantine").glob("*/index-journal"))
    mem("remember", "project/api/port", "the api listens on 8080")
    assert "Postgres 16" in mem("search", "Postgres").stdout
    again = mem("doctor", "--json", exit_code=None).json
    assert not {"store", "index"} & {f["check"] for f in again["findings"]}
