"""fresh40 F19: a changed byte in ``vault/identity.age``'s scrypt stanza read
as "wrong vault passphrase" with the right passphrase (the two cannot be
told apart without the MAC: the message now says both), and with the vault
folder gone while keys are sealed, the hint "create one with: mem vault
init" led into init's refusal.  Real ``mem`` processes on a real vault."""

from __future__ import annotations

import shutil


def _vault(mem, tmp_path):
    pp = tmp_path / "pp"
    pp.write_text("correct horse pass dmg41\n")
    mem("vault", "init", "--passphrase-file", str(pp))
    mem("remember", "user/pin", "pear-moose-4471", "--sensitivity", "secret")
    return pp


def test_a_flip_in_the_identity_stanza_is_not_called_only_a_wrong_passphrase(mem, store_path, tmp_path):
    pp = _vault(mem, tmp_path)
    ident = store_path / "vault" / "identity.age"
    data = bytearray(ident.read_bytes())
    body = data.index(b"\n", data.index(b"-> scrypt")) + 3   # inside the stanza's body line
    data[body] = ord("A") if data[body] != ord("A") else ord("B")
    ident.write_bytes(bytes(data))
    r = mem("sealed", "show", "user/pin", "--passphrase-file", str(pp), exit_code=12)
    assert "wrong vault passphrase, or vault/identity.age is damaged" in r.stderr, r.stderr
    assert "put back your copy of the vault folder" in r.stderr and "pear-moose" not in r.stdout


def test_no_vault_while_keys_are_sealed_does_not_point_at_vault_init(mem, store_path, tmp_path):
    pp = _vault(mem, tmp_path)
    shutil.rmtree(store_path / "vault")
    for args in (("sealed", "show", "user/pin", "--passphrase-file", str(pp)),
                 ("remember", "user/pin2", "5555", "--sensitivity", "secret")):
        r = mem(*args, exit_code=4)
        assert "keys are sealed to one" in r.stderr and "mem vault init' makes a new key" in r.stderr, r.stderr
        assert "create one with" not in r.stderr
