"""``mem scan`` right after a forget, before the push, suggested
``forget --match`` when the only places left were remotes, and its "found
nowhere" line did not name the remotes it had read (tester s14)."""

from __future__ import annotations


def test_scan_points_to_push_when_only_remotes_hold_it(invoke, tmp_path):
    remote = tmp_path / "remote"
    remote.mkdir()
    invoke("remote", "add", "origin", str(remote))
    invoke("remember", "project/a/tok", "the value zebra-quux-991")
    invoke("push")
    invoke("forget", "project/a/tok", "--yes")
    r = invoke("scan", "zebra-quux-991", exit_code=1)
    assert r.stdout.startswith("remote origin ")
    assert "only on remotes: 'mem push origin'" in r.stderr and "forget --match" not in r.stderr, r.stderr
    assert "zebra" not in r.stdout + r.stderr
    invoke("push")
    r = invoke("scan", "zebra-quux-991")
    assert r.stdout.startswith("found nowhere") and "remotes and their backups (origin)" in r.stdout, r.stdout
    assert "not read: --no-remotes" in invoke("scan", "zebra-quux-991", "--no-remotes").stdout


def test_scan_of_a_store_with_no_remote_says_so(invoke):
    invoke("remember", "project/a/f", "kept value plover-77")
    r = invoke("scan", "plover-77", exit_code=1)
    assert "found in 2 places;" in r.stderr and "'mem forget --match TEXT'" in r.stderr and "mem push" not in r.stderr
    assert "(no remotes)" in invoke("scan", "nothing-like-this-41").stdout
