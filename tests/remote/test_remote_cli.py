"""The remote commands through the CLI: remote add/list/remove, push, pull,
clone --key, key export, backup and restore, --json summaries."""

from __future__ import annotations

import json


def test_two_machines_by_cli(invoke, tmp_path):
    remote = str(tmp_path / "remote")
    (tmp_path / "remote").mkdir()
    a = ["--home", str(tmp_path / "a")]
    b = ["--home", str(tmp_path / "b")]
    invoke(*a, "remember", "project/acme/db", "Postgres 16")
    invoke(*a, "remote", "add", "origin", remote)
    assert [r["name"] for r in invoke(*a, "remote", "list", "--json").json] == ["origin"]
    res = invoke(*a, "push", "--json").json
    assert res["objects_sent"] == 1 and res["packs_sent"] == 1 and res["bytes_sent"] > 0
    invoke(*a, "remote", "key", "export", "-o", str(tmp_path / "k"))
    assert (tmp_path / "k").stat().st_mode & 0o777 == 0o600
    out = invoke(*b, "clone", remote, "--key", str(tmp_path / "k"), "--json").json
    assert out["objects_received"] == 1
    assert invoke(*b, "get", "project/acme/db").stdout.strip() == "Postgres 16"
    invoke(*b, "remember", "project/acme/db", "Postgres 17")
    invoke(*b, "push")
    assert "1 ref updated" in invoke(*a, "pull").stdout
    assert invoke(*a, "get", "project/acme/db").stdout.strip() == "Postgres 17"
    # a second clone into an existing store is refused, and nothing changes
    r = invoke(*a, "clone", remote, "--key", str(tmp_path / "k"), exit_code=2)
    assert "a store exists" in r.stderr
    invoke(*a, "remote", "remove", "origin")
    assert invoke(*a, "remote", "list", "--json").json == []


def test_clone_without_key_fails_cleanly(invoke, tmp_path):
    remote = str(tmp_path / "remote")
    (tmp_path / "remote").mkdir()
    a = ["--home", str(tmp_path / "a")]
    invoke(*a, "remember", "user/x", "y")
    invoke(*a, "remote", "add", "origin", remote)
    invoke(*a, "push")
    r = invoke("--home", str(tmp_path / "c"), "clone", remote, exit_code=12)
    assert "sync key" in r.stderr
    assert not (tmp_path / "c").exists()
    r = invoke("--home", str(tmp_path / "d"), "clone", str(tmp_path / "nothing-here"), exit_code=15)
    assert not (tmp_path / "d").exists()


def test_backup_and_restore(invoke, tmp_path):
    remote = str(tmp_path / "remote")
    (tmp_path / "remote").mkdir()
    a = ["--home", str(tmp_path / "a")]
    invoke(*a, "remember", "user/editor", "vim")
    invoke(*a, "remote", "add", "origin", remote)
    snap = invoke(*a, "backup", "--json").json["snapshot"]
    invoke(*a, "remember", "user/editor", "helix")
    invoke(*a, "backup")
    snaps = invoke(*a, "backup", "--list", "--json").json
    assert len(snaps) == 2 and snaps[0]["name"] == snap
    invoke(*a, "remote", "key", "export", "-o", str(tmp_path / "k"))
    r = ["--home", str(tmp_path / "r")]
    invoke(*r, "restore", remote, "--snapshot", snap, "--key", str(tmp_path / "k"))
    assert invoke(*r, "get", "user/editor").stdout.strip() == "vim"
    assert "ok" in invoke(*r, "fsck").stdout
    r2 = ["--home", str(tmp_path / "r2")]
    invoke(*r2, "restore", remote, "--latest", "--key", str(tmp_path / "k"))
    assert invoke(*r2, "get", "user/editor").stdout.strip() == "helix"
    assert json.loads(invoke(*r2, "search", "helix", "--json").stdout)


def test_snapshot_tiers():
    from objstore.remote.sync import DAY_MS, keep_snapshots
    now = 100 * DAY_MS
    times = [now - d * DAY_MS for d in (0, 0.5, 2, 2.5, 5, 6, 10, 13, 20, 30)]
    kept = sorted(times[i] for i in keep_snapshots(times, now))
    # the newest, and the oldest within 1, 3, 7 and 14 days; nothing older than 14 days
    assert kept == sorted({now, now - 0.5 * DAY_MS, now - 2.5 * DAY_MS, now - 6 * DAY_MS, now - 13 * DAY_MS})


def test_forget_reaches_backups(invoke, tmp_path):
    remote = str(tmp_path / "remote")
    (tmp_path / "remote").mkdir()
    a = ["--home", str(tmp_path / "a")]
    canary = "canary-tapir-9931"
    invoke(*a, "remember", "user/pin", canary)
    invoke(*a, "remember", "user/other", "keep me")
    invoke(*a, "remote", "add", "origin", remote, "--no-encrypt")
    invoke(*a, "backup")
    invoke(*a, "forget", "user/pin", "--yes")
    invoke(*a, "backup")
    from objstore.core.pack import Pack
    from objstore.remote.layout import unbundle
    import tempfile
    from pathlib import Path
    for f in Path(remote).rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            assert canary.encode() not in data
            if f.parent.name == "packs":
                pack, idx = unbundle(data)
                with tempfile.TemporaryDirectory() as d:
                    stem = Path(d) / f"pack-{idx[-64:-32].hex()}"
                    stem.with_suffix(".pack").write_bytes(pack)
                    stem.with_suffix(".idx").write_bytes(idx)
                    with Pack(stem.with_suffix(".idx")) as p:
                        assert not any(canary.encode() in p.get(o) for o in p)
    r = ["--home", str(tmp_path / "r")]
    invoke(*r, "restore", remote, "--snapshot", invoke(*a, "backup", "--list", "--json").json[0]["name"])
    invoke(*r, "get", "user/pin", exit_code=4)
    assert invoke(*r, "get", "user/other").stdout.strip() == "keep me"


def test_forget_names_only_the_remotes_a_push_sent_the_value_to(invoke, tmp_path):
    """Issue 21 re-attack: the note named every remote, also one never pushed to and one
    pushed to before the value was written.  Only remotes whose known packs hold a
    forgotten object are named."""
    a = ["--home", str(tmp_path / "a")]
    for n in ("early", "late", "never"):
        (tmp_path / n).mkdir()
        invoke(*a, "remote", "add", n, str(tmp_path / n))
    invoke(*a, "remember", "user/other", "unrelated")
    invoke(*a, "push", "early")                     # before the value exists
    invoke(*a, "remember", "user/x", "secret-ish value")
    invoke(*a, "push", "late")
    r = invoke(*a, "forget", "user/x", "--yes")
    assert "remote late held the value" in r.stderr and "mem push" in r.stderr, r.stderr   # (test33 T5: "held")
    assert "early" not in r.stderr and "never" not in r.stderr
    invoke(*a, "push", "late")                      # purged there: nothing holds the next one
    invoke(*a, "remember", "user/y", "other value")
    assert invoke(*a, "forget", "user/y", "--yes", "--json").json["remotes_holding"] == []
    r = invoke(*a, "forget", "user/other", "--yes")  # pushed to both early and late
    assert "remotes early, late held the value" in r.stderr, r.stderr


def test_push_to_a_folder_that_does_not_exist_exits_15_and_creates_nothing(invoke, tmp_path):
    """docs/exit-codes.md: 15 when the folder does not exist; mem never creates it (a disk
    that is not mounted must not be replaced by a folder on the system disk)."""
    a = ["--home", str(tmp_path / "a")]
    invoke(*a, "remember", "project/acme/db", "Postgres 16")
    gone = tmp_path / "media" / "usb" / "mem"
    r = invoke(*a, "remote", "add", "usb", str(gone), exit_code=15)   # session 13: refused at once
    assert f"the remote folder {gone} does not exist" in r.stderr and not (tmp_path / "media").exists()
    gone.mkdir(parents=True)
    invoke(*a, "remote", "add", "usb", str(gone))
    import shutil
    shutil.rmtree(tmp_path / "media")                   # the disk is unmounted after the add
    for cmd in (["push", "usb"], ["backup", "usb"], ["pull", "usb"]):
        r = invoke(*a, *cmd, exit_code=15)
        assert f"the remote folder {gone} does not exist" in r.stderr, r.stderr
        # a writer may make the folder; a reader is told to check the path or mount it (fresh41 F10)
        assert ("mkdir -p" in r.stderr) == (cmd[0] != "pull") and "mount its disk" in r.stderr, r.stderr
    r = invoke("--home", str(tmp_path / "b"), "clone", str(gone), exit_code=15)
    assert not (tmp_path / "media").exists()
    assert invoke(*a, "get", "project/acme/db").stdout.strip() == "Postgres 16"
    (tmp_path / "media" / "usb").mkdir(parents=True)
    r = invoke(*a, "push", "usb", exit_code=15)        # the parent exists now: still not created
    assert not gone.exists()
    gone.mkdir()
    invoke(*a, "push", "usb")
    assert (gone / "mem-remote").is_file()


def test_a_remote_that_is_a_file_or_has_a_damaged_descriptor_says_where_the_damage_is(invoke, tmp_path):
    a = ["--home", str(tmp_path / "a")]
    invoke(*a, "remember", "user/x", "v")
    (tmp_path / "afile").write_text("x")
    r = invoke(*a, "remote", "add", "f", str(tmp_path / "afile"), exit_code=15)
    assert "is not a folder" in r.stderr
    (tmp_path / "afile").unlink()
    (tmp_path / "afile").mkdir()
    invoke(*a, "remote", "add", "f", str(tmp_path / "afile"))
    (tmp_path / "afile").rmdir()
    (tmp_path / "afile").write_text("x")                # a file in the folder's place since the add
    r = invoke(*a, "push", "f", exit_code=15)
    assert "is not a folder" in r.stderr
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "mem-remote").write_bytes(b"junk")
    invoke(*a, "remote", "add", "r", str(tmp_path / "r"))
    r = invoke(*a, "push", "r", exit_code=13)
    assert "damage is on the remote, not in this store" in r.stderr and "mem fsck" not in r.stderr
