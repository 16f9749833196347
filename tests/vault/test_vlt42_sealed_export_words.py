"""fresh41 F8: ``mem sealed export KEY -o FILE`` into a folder that does
not exist exited 4 ("no such file", the code of a missing key), while
``mem export`` says exit 2 "cannot write FILE: FOLDER does not exist";
and a successful one printed nothing.  Real ``mem`` processes; the file
written is opened by Debian's ``age`` with the vault's identity."""

from __future__ import annotations

import shutil

import pytest

AGE = shutil.which("age")
PASSPHRASE = "correct horse battery staple"
PERSON = {"MEM_AGENT": "0"}


def test_sealed_export_into_a_missing_folder_and_its_word_when_written(mem, tty, tmp_path):
    home = tmp_path / "s"
    pp = tmp_path / "pp"
    pp.write_text(PASSPHRASE + "\n")
    mem("--home", str(home), "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem("--home", str(home), "remember", "user/pin", "pear-moose-4471-otter", "--sensitivity", "secret", env=PERSON)
    r = mem("--home", str(home), "sealed", "export", "user/pin", "-o", str(tmp_path / "nope" / "pin.age"),
            exit_code=2, env=PERSON)
    assert "does not exist (mem creates the file, never the folders above it)" in r.stderr, r.stderr
    assert not (tmp_path / "nope").exists()
    out = tmp_path / "pin.age"
    r = mem("--home", str(home), "sealed", "export", "user/pin", "-o", str(out), env=PERSON)
    assert f"wrote user/pin v1's age file ({out.stat().st_size} bytes, still encrypted) to {out}" in r.stderr, r.stderr
    if AGE is None:
        pytest.skip("the age binary is not installed (apt-get install age)")
    plain = tmp_path / "pin.txt"
    code, transcript = tty([AGE, "-d", "-i", str(home / "vault" / "identity.age"), "-o", str(plain), str(out)],
                           [PASSPHRASE])
    assert code == 0, transcript
    assert plain.read_text() == "pear-moose-4471-otter"
