"""test36 T11.2: ``mem status`` did not exist (exit 2, "No such command").
It says what is waiting on the store, as git status does on a work tree:
review proposals, the refs a remote lacks since the last sync (a forget not
pushed yet among them), work a killed process stopped.  Real processes on a
real store and a real folder remote."""

from __future__ import annotations

import json

import objstore


def _status(mem, home, *extra, code=0):
    return mem("--home", str(home), "status", *extra, exit_code=code)


def test_status_names_what_a_push_would_send_and_a_forget_not_pushed_yet(mem, tmp_path):
    home, remote = tmp_path / "store", tmp_path / "remote"
    remote.mkdir()
    mem("--home", str(home), "remember", "project/api/db-port", "5432")
    mem("--home", str(home), "remember", "project/api/db-host", "pg-7")
    out = _status(mem, home).stdout
    assert "2 keys, 0 sessions" in out and "review queue: empty" in out and "remotes: none" in out, out

    mem("--home", str(home), "remote", "add", "origin", str(remote), "--no-encrypt")
    out = _status(mem, home).stdout
    assert "remote origin" in out and "never synced from here; 2 refs to send (mem push origin)" in out, out

    mem("--home", str(home), "push", "origin")
    out = _status(mem, home).stdout
    assert "remote origin" in out and "up to date with the last sync" in out, out

    mem("--home", str(home), "remember", "project/api/db-port", "6543")
    got = json.loads(_status(mem, home, "--json").stdout)
    assert got["remotes"] == [{"name": "origin", "url": str(remote), "synced": True, "to_send": 1,
                               "refs": ["facts/project/api/db-port"]}], got
    assert got["keys"] == 2 and got["queued"] == 0 and got["stopped_forgets"] == [], got

    mem("--home", str(home), "push", "origin")
    mem("--home", str(home), "forget", "project/api/db-host", "--yes")
    out = _status(mem, home).stdout
    assert "1 key, 0 sessions" in out, out
    assert "tombstones of a forget or seal" in out and "(mem push origin)" in out, out   # not pushed yet
    assert "pg-7" not in out and "6543" not in out                            # never a value
    mem("--home", str(home), "push", "origin")
    assert "up to date with the last sync" in _status(mem, home).stdout


def test_status_counts_queued_proposals_and_names_a_stopped_forget_and_a_missing_store(mem, tmp_path):
    home = tmp_path / "store"
    mem("--home", str(home), "remember", "user/editor", "vim")
    mem("--home", str(home), "remember", "user/editor", "helix", "--trust", "agent_observed")   # parked
    out = _status(mem, home).stdout
    assert "review queue: 1 proposal waiting for you" in out, out
    with objstore.open_store(home) as s:   # what a forget killed before its tombstones leaves
        s.unfinished.mark("what", "user/editor", objstore.now_ms())
    out = _status(mem, home).stdout
    assert "stopped: a forget did not finish; finish it: mem forget user/editor --yes" in out, out
    assert json.loads(_status(mem, home, "--json").stdout)["stopped_forgets"] == ["mem forget user/editor --yes"]
    r = _status(mem, tmp_path / "none", code=10)
    assert "no mem store" in r.stderr and not (tmp_path / "none").exists()


def test_status_plain_prints_one_record_a_remote(mem, tmp_path):
    home, remote = tmp_path / "store", tmp_path / "remote"
    remote.mkdir()
    mem("--home", str(home), "remember", "project/api/db-port", "5432")
    mem("--home", str(home), "remote", "add", "usb", str(remote), "--no-encrypt")
    lines = _status(mem, home, "--plain").stdout.splitlines()
    assert lines == [f"usb\t{remote}\tfalse\t1\tfacts/project/api/db-port"], lines


def test_status_names_a_remotes_json_that_is_no_regular_file_and_does_not_hang(mem, tmp_path):
    """fresh37: remotes.json made a folder gave "internal error" (exit 1); made a FIFO, status waited forever."""
    import os
    home = tmp_path / "store"
    mem("--home", str(home), "remember", "project/api/db-port", "5432")
    (home / "remotes.json").mkdir()
    r = _status(mem, home, code=13)
    assert "remotes.json is damaged: not a regular file" in r.stderr, r.stderr
    (home / "remotes.json").rmdir()
    os.mkfifo(home / "remotes.json")
    r = mem("--home", str(home), "status", exit_code=13, timeout=60)
    assert "not a regular file" in r.stderr, r.stderr
