"""fsck40 (fresh39 F5, F13): damaged files that keep forgotten values out.

F5: a cut-short or deleted ``tombstone-digests`` let an agent write a
forgotten value back while fsck and doctor said all was well.  Now fsck warns
(exit 0: no repair can rebuild a one-way keyed digest) counting the
tombstones that can no longer stop their value, and doctor says it.
F13: an unreadable ``forget-unfinished/`` note blocked push, backup and
export for good, the hint asking for "the forget that was stopped, run
again".  Now the hint names ``mem fsck --repair``, which sets the note aside
in the quarantine naming the audit log's last forgets; export then works.
Real ``mem`` processes on real store folders."""

from __future__ import annotations

import json

VALUE = "Redis 7 at cache-zebra-9911"


def _forgotten(mem):
    mem("remember", "project/api/cache", VALUE)
    mem("forget", "project/api/cache", "--yes")
    r = mem("remember", "project/api/cache", VALUE, "--trust", "agent_observed", exit_code=6)
    assert "forgotten" in r.stderr


def test_cut_digests_are_counted(store_path, mem):
    _forgotten(mem)
    assert "warning" not in mem("fsck").stdout
    f = store_path / "tombstone-digests"
    f.write_bytes(f.read_bytes()[:100])
    r = mem("fsck")
    assert "warning: tombstone-digests: 2 tombstones can no longer stop their values from coming back" in r.stdout
    assert "cut short or damaged" in r.stdout and "cannot be rebuilt" in r.stdout
    r = mem("doctor", exit_code=None)
    assert "[tombstones] tombstone-digests: 2 tombstones can no longer stop" in r.stdout, r.stdout


def test_deleted_digests_are_counted(store_path, mem):
    _forgotten(mem)
    saved = (store_path / "tombstone-digests").read_bytes()
    (store_path / "tombstone-digests").unlink()
    doc = json.loads(mem("fsck", "--json").stdout)
    assert any("the file is missing" in w for w in doc["warnings"]), doc
    # (what the warning says of the tombstones; since val43 the value's forgotten-value rules in seal-rules, which
    # its code "cache-zebra-9911" gives, still refuse it: the tombstones are not its only guard)
    mem("remember", "project/api/cache", VALUE, "--trust", "agent_observed", exit_code=6)
    (store_path / "tombstone-digests").write_bytes(saved)   # the user's copy put back
    assert "tombstone-digests" not in mem("fsck").stdout


def test_unreadable_forget_note_is_set_aside(store_path, mem, tmp_path):
    mem("remember", "user/fruit", "apple-kw-1")
    mem("forget", "user/fruit", "--yes")
    (store_path / "forget-unfinished" / "zzz").write_text("garbage\n")
    r = mem("export", "-o", str(tmp_path / "x.jsonl"), exit_code=6)
    assert "mem fsck --repair" in r.stderr and "run again" not in r.stderr.split("mem fsck --repair")[0], r.stderr
    assert "mem fsck --repair" in mem("doctor", exit_code=1).stdout
    r = mem("fsck", "--repair")
    assert "repair: set aside the unreadable forget note forget-unfinished/zzz" in r.stdout, r.stdout
    # the forget of user/fruit finished before the note was written: never offered as its forget (test40 T19)
    assert "which forget it was cannot be told" in r.stdout and "user/fruit" not in r.stdout, r.stdout
    assert "nothing to repair" not in r.stdout
    assert not (store_path / "forget-unfinished" / "zzz").exists()
    assert list((store_path / "quarantine").glob("*/forget-unfinished-zzz"))
    mem("export", "-o", str(tmp_path / "x.jsonl"))
    assert "ok:" in mem("fsck").stdout


def test_import_says_the_forget_guard_does_not_travel(mem, tmp_path):
    """F8: ``mem export`` then ``mem import jsonl`` into another store
    dropped the guard silently (keyed digests do not travel)."""
    mem("remember", "project/api/staging-host", "staging-7.internal")
    mem("forget", "project/api/staging-host", "--yes")
    out = tmp_path / "exp.jsonl"
    mem("export", "-o", str(out))
    other = str(tmp_path / "store2")
    r = mem("--home", other, "import", "jsonl", str(out))
    assert ("note: 2 imported tombstones cannot stop their values in this store" in r.stderr
            and "an agent can write a forgotten value again here" in r.stderr), r.stderr
    doc = json.loads(mem("--home", str(tmp_path / "store3"), "import", "jsonl", str(out), "--json").stdout)
    assert doc["tombstones_by_key_only"] == 2, doc
    text = out.read_text()
    assert "staging-7.internal" not in text and "hash-key" not in text


def test_damaged_hash_key_is_named_by_fsck_and_doctor(store_path, mem):
    """F4's remainder: a cut hash-key made every forget exit 13 while fsck said ok."""
    _forgotten(mem)
    key = store_path / "hash-key"
    saved = key.read_bytes()
    key.write_bytes(saved[:10])
    r = mem("fsck", exit_code=13)
    assert "error: hash-key: the store's hash key cannot be read" in r.stdout, r.stdout
    assert "sets the damage aside" not in r.stderr
    assert "hash-key" in mem("fsck", "--repair", exit_code=13).stdout and key.read_bytes() == saved[:10]
    assert "[tombstones] hash-key" in mem("doctor", exit_code=1).stdout
    key.write_bytes(saved)
    assert "ok:" in mem("fsck").stdout
