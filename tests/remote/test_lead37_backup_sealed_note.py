"""test37 T8: ``mem backup`` / ``mem restore`` left out every sealed key
(sealed values never leave the machine) and nothing said so: a person who
restored after a lost disk found the keys gone without a trace.  Now the
backup names how many sealed keys it did not carry and the restore says a
backup holds none, each with what brings them back.  Real ``mem``
processes, a real vault and a folder remote."""

from __future__ import annotations

import json


def test_backup_and_restore_say_the_sealed_keys_are_not_in_the_backup(tmp_path, mem):
    a, r, restored = tmp_path / "a", tmp_path / "remote", tmp_path / "restored"
    r.mkdir()
    ea = {"MEM_HOME": str(a)}
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem("vault", "init", "--passphrase-file", str(pp), env=ea)
    mem("remember", "project/acme/gate-code", "the gate code is 7731-0042-9915", "--sensitivity", "secret", env=ea)
    mem("remember", "project/acme/door", "north side", env=ea)
    mem("remote", "add", "usb", str(r), env=ea)
    out = mem("backup", "usb", env=ea)
    assert "note: 1 sealed key is not in the backup" in out.stderr and "mem sealed export" in out.stderr, out.stderr
    assert "7731" not in out.stdout + out.stderr
    got = json.loads(mem("backup", "usb", "--json", env=ea).stdout)
    assert got["sealed_not_included"] == 1, got
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
    out = mem("--home", str(restored), "restore", str(r), "--key", str(tmp_path / "k.key"), env=ea)
    assert "a backup holds no sealed value" in out.stderr and "mem sealed import" in out.stderr, out.stderr
    assert mem("--home", str(restored), "get", "project/acme/door", env=ea).stdout.strip() == "north side"


def test_a_backup_without_sealed_keys_says_nothing_of_them(tmp_path, mem):
    a, r = tmp_path / "a", tmp_path / "remote"
    r.mkdir()
    ea = {"MEM_HOME": str(a)}
    mem("remember", "project/acme/door", "north side", env=ea)
    mem("remote", "add", "usb", str(r), "--no-encrypt", env=ea)
    out = mem("backup", "usb", env=ea)
    assert "sealed" not in out.stderr, out.stderr
