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
                               "refs": ["facts/project/api/db-port"], "unusable": ""}], got
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


def test_status_plain_prints_the_store_record_then_one_a_remote_and_plain_errors(mem, tmp_path):
    """fresh37 F4/F5/F6: --plain printed the remotes' records alone when there
    was one (the store's line, queue count included, gone), or the store's
    line when there was none; its errors came out as JSON; sealed keys were
    counted nowhere."""
    home, remote = tmp_path / "store", tmp_path / "remote"
    remote.mkdir()
    mem("--home", str(home), "remember", "project/api/db-port", "5432")
    mem("--home", str(home), "remember", "project/api/db-port", "6543", "--trust", "agent_observed")   # queued
    assert _status(mem, home, "--plain").stdout.splitlines() == [f"store\t{home}\t1\t0\t0\t1\tfalse\tfalse"]
    mem("--home", str(home), "remote", "add", "usb", str(remote), "--no-encrypt")
    lines = _status(mem, home, "--plain").stdout.splitlines()
    assert lines == [f"store\t{home}\t1\t0\t0\t1\tfalse\tfalse",
                     f"remote\tusb\t{remote}\tfalse\t2\tfacts/project/api/db-port,queue/{_queued(home)}\t"], lines
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem("--home", str(home), "vault", "init", "--passphrase-file", str(pp))
    mem("--home", str(home), "remember", "project/api/pin", "7731-0042-9913", "--sensitivity", "secret")
    assert "1 key, 1 sealed key, 0 sessions" in _status(mem, home).stdout
    assert json.loads(_status(mem, home, "--json").stdout)["sealed"] == 1
    assert _status(mem, home, "--plain").stdout.splitlines()[0] == f"store\t{home}\t1\t1\t0\t1\tfalse\tfalse"
    r = _status(mem, tmp_path / "none", "--plain", code=10)
    assert r.stderr.startswith("Error: no mem store") and "exit_error" not in r.stderr
    r = mem("--home", str(home), "get", "project/api/nokey", "--plain", exit_code=4)
    assert r.stderr.startswith("Error: no key project/api/nokey"), r.stderr


def _queued(home) -> str:
    with objstore.open_store(home) as s:
        [name] = s.refs.names("queue")
    return name.split("/", 1)[1]


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


def test_status_of_a_remote_whose_pull_stopped_says_so_not_up_to_date(mem, tmp_path):
    """test37b T19.10: after a pull killed part way, status said both "up to
    date with the last sync" and "stopped: a pull did not finish"."""
    home, remote = tmp_path / "store", tmp_path / "remote"
    remote.mkdir()
    mem("--home", str(home), "remember", "project/api/db-port", "5432")
    mem("--home", str(home), "remote", "add", "origin", str(remote), "--no-encrypt")
    mem("--home", str(home), "push", "origin")
    assert "up to date with the last sync" in _status(mem, home).stdout
    from objstore.core import pullstop   # what a pull killed between its packs and its merge leaves
    pullstop.note(home, "origin", {"facts/project/api/other": "ab" * 32}, objstore.now_ms())
    out = _status(mem, home).stdout
    assert "remote origin" in out and "the last pull from it did not finish (mem pull origin)" in out, out
    assert "up to date" not in out and "stopped: a pull did not finish (1 ref not set)" in out, out
    assert json.loads(_status(mem, home, "--json").stdout)["stopped_pull_from"] == ["origin"]
    # test38 T9.1/T9.4/T9.9: several remotes: each named; a URL's control characters escaped; refs already set
    # are not counted as unset
    odd = tmp_path / "e\x1b]0;PWNED\x07z"
    odd.mkdir()
    # (test41 T15: 'remote add' refuses a URL holding a control character now; a hand-edited remotes.json
    # can still hold one, and status must show it escaped)
    cfg = json.loads((home / "remotes.json").read_text())
    cfg["second"] = {"url": str(odd), "encrypt": False}
    (home / "remotes.json").write_text(json.dumps(cfg))
    with objstore.open_store(home) as s:
        head = s.refs.read("facts/project/api/db-port")
    pullstop.note(home, "second", {"facts/project/api/db-port": head, "facts/project/api/x2": "cd" * 32}, 1)
    out = _status(mem, home).stdout
    assert "stopped: a pull did not finish (2 refs not set); run mem pull origin and mem pull second" in out, out
    assert "\x1b" not in out and "PWNED" in out
    assert _status(mem, home, "--plain").stdout.splitlines()[-1] == "stopped-pull\t2\torigin,second"


def test_status_reads_a_capitalised_scheme_and_names_an_unusable_url(mem, tmp_path):
    """test40 T13: ``FILE:///x`` in remotes.json (a scheme is read in any
    case, RFC 3986) and ``//x`` (Linux's ``/x``) read as "not synced since
    its URL changed"; a URL no push can use said "N refs to send (mem push)"."""
    home, remote = tmp_path / "store", tmp_path / "remote"
    remote.mkdir()
    mem("--home", str(home), "remember", "project/api/db-port", "5432")
    mem("--home", str(home), "remote", "add", "origin", str(remote), "--no-encrypt")
    mem("--home", str(home), "push", "origin")
    cfg = home / "remotes.json"
    d = json.loads(cfg.read_text())
    for spelling in (f"FILE://{remote}", f"/{remote}", f"File://localhost{remote}/"):
        d["origin"]["url"] = spelling
        cfg.write_text(json.dumps(d))
        out = _status(mem, home).stdout
        assert "up to date with the last sync" in out, (spelling, out)
    d["origin"]["url"] = f"ftp://{remote}"
    cfg.write_text(json.dumps(d))
    out = _status(mem, home).stdout
    assert "its URL cannot be used (unsupported remote URL scheme 'ftp')" in out, out
    assert "mem push" not in out, out
    row = json.loads(_status(mem, home, "--json").stdout)["remotes"][0]
    assert row["unusable"].startswith("unsupported remote URL scheme") and row["synced"] is False, row
