"""pin39 (fresh38 F8): ``mem sealed import FILE``

* kept an age file also encrypted to a foreign recipient as is, so whoever held that key could read the store's
  copy (and every ``mem sealed export`` of it): the value is now written by ``remember_sealed``, encrypted to the
  vault's recipient alone, with a warning that the others can read FILE itself;
* accepted values ``mem remember --sensitivity secret`` refuses (empty, blank, over 100,000 characters) and
  bytes that are not UTF-8 (stored with surrogate escapes), and kept a file's final line end
  (``echo 4471 > pin.txt``) that ``mem remember KEY - < pin.txt`` drops: one validation and one reading for both.

Files made with this package's age (``objstore.vault.age``, interoperable with the stock tool:
test_vault_interop.py), imported by the real command on a real store."""

from __future__ import annotations

import pytest

from objstore.vault import age


@pytest.fixture
def imp(vstore, invoke, tmp_path, pwfile):
    """``imp(plaintext, *other_recipients, key=…, exit_code=0)``: the value encrypted to the vault (and the others)
    and imported; the command's result."""
    recipient = invoke("vault", "recipient").stdout.strip()

    def run(value: bytes, *others: str, key: str = "user/bank/pin", exit_code: int = 0):
        f = tmp_path / "pin.age"
        f.write_bytes(age.encrypt(value, [recipient, *others]))
        return invoke("sealed", "import", key, str(f), "--passphrase-file", str(pwfile), exit_code=exit_code)
    return run


def _show(invoke, pwfile, key="user/bank/pin") -> str:
    return invoke("sealed", "show", key, "--passphrase-file", str(pwfile)).stdout


def test_a_file_also_for_another_recipient_is_stored_for_the_vault_alone_with_a_warning(imp, invoke, tmp_path):
    other_identity, other = age.generate_x25519()
    r = imp(b"4471", other)
    assert "also encrypted to 1 other recipient" in r.stderr and "4471" not in r.stderr + r.stdout, r.stderr
    exported = tmp_path / "exported.age"
    invoke("sealed", "export", "user/bank/pin", "-o", str(exported))
    with pytest.raises(age.NoIdentityMatched):   # the store's copy: not for the foreign key
        age.decrypt(exported.read_bytes(), [other_identity])
    assert sum(1 for _ in age.parse_header(exported.read_bytes())[0]) == 1


def test_a_file_for_the_vault_alone_gives_no_warning(imp):
    r = imp(b"4471")
    assert "warning" not in r.stderr and "(imported)" in r.stdout


@pytest.mark.parametrize("value,says", [(b"", "empty"), (b"  \n", "empty"), (b"x" * 100_001, "longer than"),
                                        (b"44\xff71", "not UTF-8")])
def test_a_value_remember_refuses_is_refused_and_nothing_stored(imp, invoke, pwfile, value, says):
    r = imp(value, exit_code=2)
    assert says in r.stderr, r.stderr
    assert "user/bank/pin" not in invoke("sealed", "list").stdout


def test_the_files_final_line_end_is_read_as_remember_reads_a_file(imp, invoke, pwfile, tmp_path):
    imp(b"4471\n", key="user/a")
    imp(b"4471\r\n", key="user/b")
    imp(b"line one\nline two\n", key="user/c")
    assert _show(invoke, pwfile, "user/a") == _show(invoke, pwfile, "user/b") == "4471\n"
    assert _show(invoke, pwfile, "user/c") == "line one\nline two\n"
