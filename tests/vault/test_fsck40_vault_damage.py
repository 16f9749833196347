"""fsck40 (fresh39 F6): a damaged ``vault/identity.age`` (one byte flipped)
or ``vault/recipient`` (garbage): the error's hint said "'mem fsck' lists the
damage" while fsck, --repair and doctor saw nothing, and new secrets were
sealed to a key whose identity no longer parsed, without a word.  Now fsck
exits 13 naming the file (checked without the passphrase: the age header and
its scrypt stanza), --repair says it cannot mend it, doctor reports it, the
errors' hint says to put back the user's copy, and a sealed write warns.
Real ``mem`` processes."""

from __future__ import annotations

import json
import shutil


def _flip(path, at=100):
    b = bytearray(path.read_bytes())
    b[at] ^= 0x55
    path.write_bytes(bytes(b))


def test_flipped_identity_is_seen(vstore, store_path, mem, tmp_path, pwfile):
    mem("remember", "user/pin", "4471-kw", "--sensitivity", "secret")
    assert "ok:" in mem("fsck").stdout
    shutil.copy(store_path / "vault" / "identity.age", tmp_path / "identity.copy")
    _flip(store_path / "vault" / "identity.age")
    r = mem("sealed", "show", "user/pin", "--passphrase-file", str(pwfile), exit_code=13)
    assert "put back your copy of the vault folder" in r.stderr and "lists the damage" not in r.stderr, r.stderr
    r = mem("fsck", exit_code=13)
    assert "error: vault/identity.age is not a passphrase-encrypted age file" in r.stdout, r.stdout
    assert "sets the damage aside" not in r.stderr, r.stderr
    r = mem("fsck", "--repair", exit_code=13)
    assert "vault/identity.age" in r.stdout and "cannot mend it" in r.stdout
    r = mem("doctor", exit_code=1)
    assert "[vault] vault/identity.age is not a passphrase-encrypted age file" in r.stdout, r.stdout
    r = mem("remember", "user/pin2", "9876-kw", "--sensitivity", "secret")
    assert "warning: vault/identity.age is not a passphrase-encrypted age file" in r.stderr, r.stderr
    shutil.copy(tmp_path / "identity.copy", store_path / "vault" / "identity.age")
    assert "ok:" in mem("fsck").stdout
    assert mem("sealed", "show", "user/pin2", "--passphrase-file", str(pwfile)).stdout == "9876-kw\n"


def test_garbage_recipient_is_seen(vstore, store_path, mem, tmp_path):
    mem("remember", "user/pin", "4471-kw", "--sensitivity", "secret")
    (store_path / "vault" / "recipient").write_text("garbage\n")
    r = mem("remember", "user/pin2", "9876-kw", "--sensitivity", "secret", exit_code=13)
    assert "put back your copy of the vault folder" in r.stderr, r.stderr
    doc = json.loads(mem("fsck", "--json", exit_code=13).stdout)
    assert any(p.startswith("vault/recipient holds no age recipient") for p in doc["problems"]), doc


def test_sound_vault_without_sealed_keys_is_ok(vstore, store_path, mem):
    mem("remember", "project/z/a", "hello plain")
    assert "ok:" in mem("fsck").stdout
    assert "[vault]" not in mem("doctor", exit_code=None).stdout
