"""Interop with the reference ``age`` binary (Debian's package; skipped where
it is not installed): a sealed value decrypts with
``age -d -i <the vault's passphrase-protected identity file>`` (age asks for
the passphrase on a terminal, driven here through a pseudo-terminal), and a
file made by ``age -r <the vault's recipient>`` is read by ``mem sealed show``."""

from __future__ import annotations

import shutil
import subprocess

import pytest

AGE = shutil.which("age")
PASSPHRASE = "correct horse battery staple"  # tests/vault/conftest.py

needs_age = pytest.mark.skipif(AGE is None, reason="the age binary is not installed (apt-get install age)")

VALUE = "PIN 4821 for the garage\nrecovery: alpha-bravo-ünïcode-日本"


@needs_age
@pytest.mark.parametrize("armor", [False, True])
def test_age_decrypts_a_sealed_value_with_the_vault_identity(vstore, store_path, invoke, tty, tmp_path, armor):
    invoke("remember", "user/garage", VALUE, "--sensitivity", "secret")
    ct = tmp_path / "garage.age"
    invoke("sealed", "export", "user/garage", "-o", str(ct), *(["--armor"] if armor else []))
    out = tmp_path / "garage.txt"
    code, transcript = tty([AGE, "-d", "-i", str(store_path / "vault" / "identity.age"), "-o", str(out), str(ct)],
                           [PASSPHRASE])
    assert code == 0, transcript
    assert "passphrase" in transcript.lower()  # age asked for the vault passphrase
    assert out.read_text(encoding="utf-8") == VALUE
    # a wrong passphrase: age fails, nothing decrypted
    out.unlink()
    code, transcript = tty([AGE, "-d", "-i", str(store_path / "vault" / "identity.age"), "-o", str(out), str(ct)],
                           ["wrong passphrase entirely"])
    assert code != 0 and not out.exists()


@needs_age
def test_a_sealed_object_holds_the_exact_age_file(vstore, store_path, invoke, tty, tmp_path):
    """The bytes in the store are the age file itself (no wrapping): the
    sealed object's payload field, written out, is what age decrypts."""
    from objstore.vault import chains
    invoke("remember", "user/garage", VALUE, "--sensitivity", "secret")
    sv = chains.sealed_versions(vstore, "user/garage")[0]
    (tmp_path / "raw.age").write_bytes(sv.sealed.age)
    code, transcript = tty([AGE, "-d", "-i", str(store_path / "vault" / "identity.age"),
                            "-o", str(tmp_path / "raw.txt"), str(tmp_path / "raw.age")], [PASSPHRASE])
    assert code == 0, transcript
    assert (tmp_path / "raw.txt").read_text(encoding="utf-8") == VALUE


@needs_age
@pytest.mark.parametrize("armor", [False, True])
def test_mem_reads_a_file_made_by_age_for_the_vault_recipient(vstore, invoke, tmp_path, pwfile, armor):
    rcpt = invoke("vault", "recipient").stdout.strip()
    src = tmp_path / "code.txt"
    src.write_text(VALUE, encoding="utf-8")
    ct = tmp_path / "code.age"
    subprocess.run([AGE, *(["-a"] if armor else []), "-r", rcpt, "-o", str(ct), str(src)], check=True, timeout=60)
    invoke("sealed", "import", "global/door/code", str(ct), "--passphrase-file", str(pwfile))
    assert invoke("sealed", "show", "global/door/code", "--raw", "--passphrase-file", str(pwfile)).stdout == VALUE
    # from standard input too, as a second version
    invoke("sealed", "import", "global/door/code", "-", "--passphrase-file", str(pwfile), input=ct.read_bytes())
    js = invoke("sealed", "show", "global/door/code", "--all", "--json", "--passphrase-file", str(pwfile)).json
    assert [(s["version"], s["value"]) for s in js] == [(2, VALUE), (1, VALUE)]
