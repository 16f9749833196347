"""Session 13 (lane fix13): ``mem remote add NAME /no/such/folder`` exited
0 and only the later push failed; and ``mem fsck`` said ok while the sync
key an encrypted remote needs was gone.  Now a folder remote must exist when
it is added (exit 15, nothing written, not even ``--key``), and fsck exits
13 naming the remotes a lost ``sync-key`` locks out (``--repair`` never
makes a key); push and pull to them exit 12 with a message naming it, and
no push makes a new key in its place."""

from __future__ import annotations

import json

PERSON = {"MEM_AGENT": "0"}


def test_add_of_a_missing_folder_or_a_file_exits_15_and_writes_nothing(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    mem(*h, "remember", "user/editor", "vim", env=PERSON)
    before = sorted(p.relative_to(home) for p in home.rglob("*") if "locks" not in p.parts)
    missing = tmp_path / "usb" / "mem"
    r = mem(*h, "remote", "add", "origin", str(missing), exit_code=15, env=PERSON)
    assert r.stderr.startswith(f"Error: the remote folder {missing} does not exist\n"), r.stderr
    assert f"mkdir -p {missing}" in r.stderr
    (tmp_path / "a-file").write_text("x")
    r = mem(*h, "remote", "add", "origin", f"file://{tmp_path / 'a-file'}", exit_code=15, env=PERSON)
    assert "is not a folder" in r.stderr and "mem remote remove" not in r.stderr
    # the --key of a refused add is not stored either
    src = tmp_path / "src"
    mem("--home", str(src), "remember", "user/x", "y", env=PERSON)
    (tmp_path / "r").mkdir()
    mem("--home", str(src), "remote", "add", "r", str(tmp_path / "r"), env=PERSON)
    mem("--home", str(src), "push")
    mem("--home", str(src), "remote", "key", "export", "-o", str(tmp_path / "k"), env=PERSON)
    mem(*h, "remote", "add", "origin", str(missing), "--key", str(tmp_path / "k"), exit_code=15, env=PERSON)
    assert not missing.exists() and not (tmp_path / "usb").exists()          # never created
    assert sorted(p.relative_to(home) for p in home.rglob("*") if "locks" not in p.parts) == before
    assert mem(*h, "remote", "list", "--json").json == []
    # once the folder is there, the same add works and the push reaches it
    missing.mkdir(parents=True)
    mem(*h, "remote", "add", "origin", str(missing), env=PERSON)
    assert mem(*h, "push", "--json").json["objects_sent"] == 1


def test_a_first_command_that_is_refused_leaves_no_store(mem, tmp_path):
    home = tmp_path / "new"
    mem("--home", str(home), "remote", "add", "origin", str(tmp_path / "nope"), exit_code=15, env=PERSON)
    assert not home.exists()


def test_add_of_an_existing_folder_contacts_nothing_else(mem, tmp_path):
    """An S3 remote is still recorded without a request (no endpoint runs here)."""
    h = ["--home", str(tmp_path / "s")]
    r = mem(*h, "remote", "add", "b", "s3://bucket/mem", "--endpoint", "http://127.0.0.1:9", "--json", env=PERSON)
    assert r.json["url"] == "s3://bucket/mem"


def _synced(mem, tmp_path):
    home, remote = tmp_path / "s", tmp_path / "remote"
    remote.mkdir()
    (tmp_path / "plain").mkdir()
    (tmp_path / "unused").mkdir()
    h = ["--home", str(home)]
    mem(*h, "remember", "user/editor", "vim", env=PERSON)
    mem(*h, "remote", "add", "origin", str(remote), env=PERSON)
    mem(*h, "remote", "add", "plain", str(tmp_path / "plain"), "--no-encrypt", env=PERSON)
    mem(*h, "push", "origin")
    mem(*h, "push", "plain")
    mem(*h, "remote", "add", "unused", str(tmp_path / "unused"), env=PERSON)   # never synced: needs no key yet
    return home, h


def test_fsck_names_the_remotes_a_lost_sync_key_locks_out(mem, tmp_path):
    home, h = _synced(mem, tmp_path)
    assert mem(*h, "fsck").stdout.startswith("ok:")
    key = (home / "sync-key").read_bytes()
    (home / "sync-key").unlink()
    r = mem(*h, "fsck", exit_code=13)
    assert "error: sync-key is missing: the encrypted remote 'origin' cannot be read" in r.stdout
    assert "'plain'" not in r.stdout and "'unused'" not in r.stdout
    (home / "cache" / "remotes" / "origin.ids").unlink()   # the stamps witness the sync too (fix14)
    assert "the encrypted remote 'origin' cannot be read" in mem(*h, "fsck", exit_code=13).stdout
    assert "hint: sync-key: put back a copy" in r.stderr and "mem remote key import" in r.stderr
    doc = json.loads(mem(*h, "fsck", "--json", exit_code=13).stdout)
    assert any("'origin'" in p for p in doc["problems"]) and not doc["ok"]
    r = mem(*h, "fsck", "--repair", exit_code=13)
    assert "repair: left sync-key as it is" in r.stdout and not (home / "sync-key").exists()   # never invented
    for args in (["push", "origin"], ["pull", "origin"]):
        r = mem(*h, *args, exit_code=12)
        assert "the remote origin is encrypted and this store has no sync key" in r.stderr, r.stderr
        assert "mem remote key import" in r.stderr and not (home / "sync-key").exists()
    mem(*h, "pull", "plain")                            # a remote in the clear needs no key
    # a first push to another encrypted remote makes no new key in the lost one's place (it would lock
    # 'origin' out for good: a store keeps one key, so the old one could not be imported again)
    r = mem(*h, "push", "unused", exit_code=12)
    assert "sync-key is missing" in r.stderr and "'origin'" in r.stderr, r.stderr
    assert not (home / "sync-key").exists() and not any((tmp_path / "unused").iterdir())
    (tmp_path / "k").write_bytes(key)
    mem(*h, "remote", "key", "import", str(tmp_path / "k"), env=PERSON)
    assert mem(*h, "fsck").stdout.startswith("ok:")
    mem(*h, "push", "origin")
