"""test40 T11: a sealed ``mem remember`` with a garbage ``vault/recipient``
(``age1garbage``) was an internal error (AgeKeyError, exit 1).  It is now
exit 13 naming the file, with the hint to put the vault folder back, and
nothing is stored."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_a_sealed_write_to_a_garbage_recipient_is_damage_not_a_crash(mem, tmp_path):
    home = tmp_path / "s"
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem("--home", str(home), "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    (home / "vault" / "recipient").write_text("age1garbage\n")
    r = mem("--home", str(home), "remember", "user/s/d", "pear-moose-4471", "--sensitivity", "secret",
            exit_code=13, env=PERSON)
    assert "vault/recipient is damaged" in r.stderr and "internal error" not in r.stderr, r.stderr
    assert "put back your copy of the vault folder" in r.stderr
    assert "user/s/d" not in mem("--home", str(home), "keys", env=PERSON).stdout
