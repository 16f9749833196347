"""fresh43 F15 (session 44, fil44): with no ``vault-pair`` (a vault from
before session 42, or the file lost), a swapped ``vault/recipient`` went
unseen: ``mem seal`` encrypted to a foreign key and removed the plain
copy (the value destroyed), and recorded the wrong pair as the store's.
Now, while values are sealed and no pair is recorded, ``mem seal`` removes
no plaintext (exit 13, nothing sealed) until ``mem sealed rebuild-rules``
(the passphrase) proves and records the pair.  Real ``mem`` processes."""

from __future__ import annotations

import shutil

PERSON = {"MEM_AGENT": "0"}


def test_seal_without_vault_pair_removes_no_plaintext_until_the_pair_is_proven(mem, tmp_path):
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    a, b = tmp_path / "a", tmp_path / "b"
    for h in (a, b):
        mem("--home", str(h), "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    h = ["--home", str(a)]
    mem(*h, "remember", "user/tok", "tok-abcdefgh-12345678", "--sensitivity", "secret", env=PERSON)
    mem(*h, "remember", "project/web/port", "port-8443-zq", env=PERSON)
    own = (a / "vault" / "recipient").read_bytes()
    (a / "vault-pair").unlink()
    shutil.copy(b / "vault" / "recipient", a / "vault" / "recipient")
    r = mem(*h, "fsck", env=PERSON)
    assert "vault-pair is missing while 1 key is sealed" in r.stdout + r.stderr, r.stdout + r.stderr
    r = mem(*h, "doctor", exit_code=None, env=PERSON)
    assert "warning: [vault] vault-pair is missing while 1 key is sealed" in r.stdout, r.stdout
    r = mem(*h, "seal", "project/web/port", exit_code=13, env=PERSON)
    assert "vault-pair is missing while values are sealed" in r.stderr and "no plain version removed" in r.stderr
    assert "mem sealed rebuild-rules" in r.stderr, r.stderr
    assert mem(*h, "get", "project/web/port", env=PERSON).stdout.strip() == "port-8443-zq"   # nothing lost
    assert not (a / "vault-pair").exists()   # the foreign pair is not recorded as the store's
    # a new secret is not sealed to the recipient no pair proves either (test44 T6: the other vault's owner could
    # read it, the person not); nothing is stored
    r = mem(*h, "remember", "user/pin", "pin-kestrel-55172", "--sensitivity", "secret", exit_code=13, env=PERSON)
    assert "nothing was sealed" in r.stderr and "mem sealed rebuild-rules" in r.stderr, r.stderr
    assert not (a / "refs" / "sealed" / "user" / "pin").exists()
    mem(*h, "get", "user/pin", exit_code=4, env=PERSON)
    r = mem(*h, "sealed", "rebuild-rules", "--passphrase-file", str(pp), exit_code=None, env=PERSON)
    assert r.exit_code == 13 and "does not match the vault recipient" in r.stderr, r.stderr
    assert not (a / "vault-pair").exists()
    (a / "vault" / "recipient").write_bytes(own)   # the store's own put back: proven, then sealed
    mem(*h, "sealed", "rebuild-rules", "--passphrase-file", str(pp), env=PERSON)
    assert (a / "vault-pair").is_file()
    assert "vault-pair" not in mem(*h, "doctor", exit_code=None, env=PERSON).stdout
    mem(*h, "seal", "project/web/port", env=PERSON)
    r = mem(*h, "sealed", "show", "project/web/port", "--passphrase-file", str(pp), env=PERSON)
    assert "port-8443-zq" in r.stdout
