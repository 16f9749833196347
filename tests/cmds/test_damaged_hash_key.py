"""fresh39 F4: with the store's ``hash-key`` damaged, ``mem forget`` ended in
"internal error" (exit 1) after marking itself unfinished, so push, backup
and export refused until a rerun that crashed the same way.  Now the forget
stops before any change, exit 13, naming the file and the way back."""

from __future__ import annotations


def test_a_damaged_hash_key_stops_a_forget_before_it_starts(tmp_path, mem):
    home = tmp_path / "s"
    mem("--home", str(home), "remember", "user/fruit", "apple")
    (home / "hash-key").write_text("mem-hash-key 1 zz\n")
    r = mem("--home", str(home), "forget", "user/fruit", "--yes", exit_code=13)
    assert "hash key cannot be read" in r.stderr and "internal error" not in r.stderr, r.stderr
    assert not list((home / "forget-unfinished").glob("*")) if (home / "forget-unfinished").exists() else True
    assert mem("--home", str(home), "get", "user/fruit").stdout == "apple\n"
    r = mem("--home", str(home), "fsck", exit_code=13)   # (fsck40: the damaged file is named, nothing else)
    assert "1 problem" in r.stdout and "error: hash-key: the store's hash key cannot be read" in r.stdout, r.stdout
