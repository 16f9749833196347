"""fresh35 F3-F5: ``mem sealed rebuild-rules``'s bad input.  An empty
passphrase file read as "wrong vault passphrase" (exit 12); with a vault and
nothing sealed a wrong passphrase was accepted (exit 0); with sealed keys and
no vault it asked for a passphrase (exit 2, no terminal) before saying there
is no vault.  Real ``mem`` processes on real stores."""

from __future__ import annotations

import shutil

from tests.vault.conftest import PASSPHRASE


def test_f3_an_empty_passphrase_file_is_named_empty(vstore, mem, tmp_path):
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    r = mem("sealed", "rebuild-rules", "--passphrase-file", str(empty), exit_code=2)
    assert "first line is empty" in r.stderr and "wrong vault passphrase" not in r.stderr, r.stderr
    r = mem("sealed", "rebuild-rules", "--passphrase-file", "-", input="", exit_code=2)
    assert "standard input: the passphrase file's first line is empty" in r.stderr, r.stderr


def test_f4_a_vault_with_nothing_sealed_checks_the_passphrase(vstore, mem, tmp_path):
    bad = tmp_path / "bad"
    bad.write_text("not the passphrase at all\n")
    r = mem("sealed", "rebuild-rules", "--passphrase-file", str(bad), exit_code=12)
    assert "wrong vault passphrase" in r.stderr, r.stderr
    good = tmp_path / "good"
    good.write_text(PASSPHRASE + "\n")
    r = mem("sealed", "rebuild-rules", "--passphrase-file", str(good))
    assert "nothing is sealed" in r.stdout and "the passphrase opens the vault" in r.stdout, r.stdout


def test_f5_no_vault_is_said_before_any_passphrase_is_asked(vstore, mem, store_path, tmp_path):
    good = tmp_path / "good"
    good.write_text(PASSPHRASE + "\n")
    mem("remember", "project/x/locker", "locker combination 31-07-4455", "--sensitivity", "secret")
    shutil.rmtree(store_path / "vault")
    r = mem("sealed", "rebuild-rules", input="", exit_code=4)   # stdin a pipe: no terminal to ask
    assert "this store has no vault, but 1 sealed key" in r.stderr and "terminal" not in r.stderr, r.stderr
    assert "restore" in r.stderr, r.stderr
    mem("sealed", "rebuild-rules", "--passphrase-file", str(good), exit_code=4)
    assert mem("sealed", "list").stdout.count("project/x/locker") == 1   # nothing stored is lost
