"""fresh35: with a key sealed and the store's ``vault/`` folder gone (deleted,
or a copy of the store made without it), ``mem fsck`` said "ok: … 0
problems" although no sealed value could be read any more.  Now fsck names
it as a problem (exit 13, docs/exit-codes.md) with the way back (the folder
from where it was copied or backed up: a new vault cannot read them), the
repair does not pretend to mend it, and a store without a sealed key or with
its vault whole stays ok.  Real ``mem`` processes."""

from __future__ import annotations

import json
import shutil


def test_fsck_names_a_missing_vault_while_keys_are_sealed(vstore, store_path, mem, tmp_path, pwfile):
    mem("remember", "project/z/a", "hello plain")
    assert mem("fsck").exit_code == 0
    mem("remember", "project/z/pin", "1234-kw-77", "--sensitivity", "secret")
    assert "ok:" in mem("fsck").stdout
    shutil.move(store_path / "vault", tmp_path / "vault.away")
    r = mem("fsck", exit_code=13)
    assert ("error: the vault folder vault/ is missing while 1 key is sealed: no sealed value can be read"
            in r.stdout), r.stdout
    assert "a new vault ('mem vault init') cannot read them" in r.stdout and "CORRUPT" in r.stdout
    assert "sets the damage aside" not in r.stderr, r.stderr
    doc = json.loads(mem("fsck", "--json", exit_code=13).stdout)
    assert not doc["ok"] and any("vault/ is missing" in p for p in doc["problems"]), doc
    assert "vault/ is missing" in mem("fsck", "--repair", exit_code=13).stdout   # nothing it can mend
    (store_path / "vault").mkdir()
    shutil.copy(tmp_path / "vault.away" / "recipient", store_path / "vault" / "recipient")
    r = mem("fsck", exit_code=13)
    assert "error: vault/identity.age is missing while 1 key is sealed" in r.stdout, r.stdout
    shutil.copy(tmp_path / "vault.away" / "identity.age", store_path / "vault" / "identity.age")
    assert "ok:" in mem("fsck").stdout
    assert mem("sealed", "show", "project/z/pin", "--passphrase-file", str(pwfile)).stdout == "1234-kw-77\n"


def test_no_sealed_key_no_vault_problem(vstore, store_path, mem):
    mem("remember", "project/z/a", "hello plain")
    shutil.rmtree(store_path / "vault")
    assert "ok:" in mem("fsck").stdout


def test_vault_init_refuses_while_keys_are_sealed_to_a_missing_vault(vstore, store_path, mem, tmp_path, pwfile):
    """test36b T6: with vault/ gone while keys were sealed, ``mem vault init``
    made a new vault without a word, after which fsck said ok and every
    sealed value stayed unreadable.  It now refuses (exit 6), naming the way
    back; nothing is written."""
    mem("remember", "project/z/pin", "1234-kw-77", "--sensitivity", "secret")
    shutil.move(store_path / "vault", tmp_path / "vault.away")
    r = mem("vault", "init", "--passphrase-file", str(pwfile), exit_code=6)
    assert "1 key(s) are sealed to a vault this store no longer has" in r.stdout + r.stderr, r.stderr
    assert not (store_path / "vault" / "recipient").exists()
    assert mem("fsck", exit_code=13).exit_code == 13
    shutil.move(tmp_path / "vault.away", store_path / "vault")
    assert mem("sealed", "show", "project/z/pin", "--passphrase-file", str(pwfile)).stdout == "1234-kw-77\n"
