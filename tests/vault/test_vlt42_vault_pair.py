"""test41 T20: ``vault/recipient`` replaced by another vault's valid
recipient (a synced folder) sealed new secrets to a key this store cannot
open, exit 0, and ``mem fsck`` / ``mem doctor`` said "ok"; the value was
lost at its next read.  ``vault init`` now records the pair (``vault-pair``:
the SHA-256 of the recipient and of identity.age); a seal whose vault is not
that pair is refused (exit 13, nothing sealed, nothing lost), and fsck and
doctor name the file.  Also: identity.age replaced by a folder read "is
missing"."""

from __future__ import annotations

import shutil

PERSON = {"MEM_AGENT": "0"}


def _vaults(mem, tmp_path):
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    a, b = tmp_path / "a", tmp_path / "b"
    for h in (a, b):
        mem("--home", str(h), "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem("--home", str(a), "remember", "user/tok", "tok-abcdefgh-12345678", "--sensitivity", "secret", env=PERSON)
    return a, b, pp


def test_a_foreign_recipient_refuses_the_seal_and_fsck_doctor_name_it(mem, tmp_path):
    a, b, pp = _vaults(mem, tmp_path)
    h = ["--home", str(a)]
    own = (a / "vault" / "recipient").read_bytes()
    shutil.copy(b / "vault" / "recipient", a / "vault" / "recipient")
    r = mem(*h, "remember", "user/tok3", "tok-qqqqqqqq-11112222", "--sensitivity", "secret", exit_code=13, env=PERSON)
    assert "vault/recipient is not this store's" in r.stderr and "nothing was sealed" in r.stderr, r.stderr
    assert "user/tok3" not in mem(*h, "keys", env=PERSON).stdout
    mem(*h, "remember", "user/plain", "plain-value-7781", env=PERSON)
    r = mem(*h, "seal", "user/plain", exit_code=13, env=PERSON)
    assert "vault/recipient is not this store's" in r.stderr, r.stderr
    assert "plain-value-7781" in mem(*h, "get", "user/plain", env=PERSON).stdout   # nothing lost
    r = mem(*h, "fsck", exit_code=13, env=PERSON)
    assert "vault/recipient is not this store's" in r.stdout + r.stderr, r.stdout + r.stderr
    r = mem(*h, "doctor", exit_code=None, env=PERSON)
    assert "vault/recipient is not this store's" in r.stdout + r.stderr, r.stdout + r.stderr
    (a / "vault" / "recipient").write_bytes(own)   # the copy put back: sealing works and reads back
    mem(*h, "remember", "user/tok3", "tok-qqqqqqqq-11112222", "--sensitivity", "secret", env=PERSON)
    r = mem(*h, "sealed", "show", "user/tok3", "--passphrase-file", str(pp), env=PERSON)
    assert "tok-qqqqqqqq-11112222" in r.stdout
    mem(*h, "fsck", env=PERSON)


def test_a_foreign_identity_warns_a_foreign_folder_refuses_and_an_old_vault_records_its_pair(mem, tmp_path):
    a, b, _pp = _vaults(mem, tmp_path)
    h = ["--home", str(a)]
    own_recipient = (a / "vault" / "recipient").read_bytes()
    shutil.copy(b / "vault" / "identity.age", a / "vault" / "identity.age")
    # the recipient is the store's own: the value is sealed to its key, with a warning; fsck names the file
    r = mem(*h, "remember", "user/t1", "tok-wwwwwwww-99990000", "--sensitivity", "secret", env=PERSON)
    assert "warning: vault/identity.age is not the identity file vault-pair recorded" in r.stderr, r.stderr
    r = mem(*h, "fsck", exit_code=13, env=PERSON)
    assert "vault/identity.age is not the identity file" in r.stdout, r.stdout
    shutil.copy(b / "vault" / "recipient", a / "vault" / "recipient")   # the whole other vault
    r = mem(*h, "remember", "user/t2", "tok-zzzzzzzz-33334444", "--sensitivity", "secret", exit_code=13, env=PERSON)
    assert "the vault folder vault/ is not this store's" in r.stderr, r.stderr
    # a vault made before the record (no vault-pair): the first seal records the pair it finds
    c = tmp_path / "c"
    shutil.copytree(b, c)
    (c / "vault-pair").unlink()
    mem("--home", str(c), "remember", "user/t4", "tok-yyyyyyyy-55556666", "--sensitivity", "secret", env=PERSON)
    assert (c / "vault-pair").is_file()
    (c / "vault" / "recipient").write_bytes(own_recipient)
    mem("--home", str(c), "remember", "user/t5", "tok-xxxxxxxx-77778888", "--sensitivity", "secret",
        exit_code=13, env=PERSON)


def test_identity_replaced_by_a_folder_is_not_called_missing(mem, tmp_path):
    a, _b, _pp = _vaults(mem, tmp_path)
    ident = a / "vault" / "identity.age"
    ident.unlink()
    ident.mkdir()
    r = mem("--home", str(a), "fsck", exit_code=13, env=PERSON)
    out = r.stdout + r.stderr
    assert "vault/identity.age is not a regular file" in out and "identity.age is missing" not in out, out
