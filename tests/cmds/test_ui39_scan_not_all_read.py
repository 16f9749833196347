"""fresh38 F10/F14: ``mem scan`` said "found nowhere" and exited 0 when
remotes.json was damaged or a symlink whose target is gone sat in the
store: a scan that could not read everything read as an all-clear.  Now
it says so ("found nowhere it could read", each place named on stderr)
and exits 3; a FIFO, which stores nothing, is named and not counted."""

from __future__ import annotations

import os


def test_scan_that_could_not_read_everything_exits_3(invoke, store_path):
    invoke("remember", "project/x/a", "heron velvet seven")
    invoke("scan", "nowhere-at-all-4417", exit_code=0)
    os.symlink("/nonexistent/ui39-target", store_path / "logs" / "dangling")
    r = invoke("scan", "nowhere-at-all-4417", exit_code=3)
    assert r.stdout.startswith("found nowhere it could read: "), r.stdout
    assert f"skipped {store_path / 'logs' / 'dangling'}: could not be read" in r.stderr, r.stderr
    assert "not everything could be read" in r.stderr
    assert invoke("scan", "nowhere-at-all-4417", "--json", exit_code=3).json == []
    invoke("scan", "heron velvet", exit_code=1)        # found: 1, whatever else was not read
    (store_path / "logs" / "dangling").unlink()
    (store_path / "remotes.json").write_text("{bad")
    r = invoke("scan", "nowhere-at-all-4417", exit_code=3)
    assert "could not read the remotes" in r.stderr and r.stdout.startswith("found nowhere it could read")
    invoke("scan", "nowhere-at-all-4417", "--no-remotes", exit_code=0)   # not asked to read them


def test_a_fifo_in_the_store_stores_nothing_and_does_not_count(invoke, store_path):
    invoke("remember", "project/x/a", "heron velvet seven")
    os.mkfifo(store_path / "logs" / "zz-fifo")
    r = invoke("scan", "nowhere-at-all-4417", exit_code=0)
    assert "not a regular file" in r.stderr and r.stdout.startswith("found nowhere: ")
