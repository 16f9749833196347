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


def test_restore_without_a_key_names_the_backup_and_restore_key_and_a_path_holding_a_credential_is_refused(
        tmp_path, mem):
    """fresh37 F11: a restore without --key said "the remote origin is
    encrypted" (a name the person never gave) and pointed to 'remote key
    import … here' or clone; F12: a folder path holding a credential got
    "does not exist" and a 'mkdir -p' of it (exit 15) instead of the refusal
    remote add, clone and backup give (exit 2)."""
    a, r = tmp_path / "a", tmp_path / "remote"
    r.mkdir()
    mem("--home", str(a), "remember", "project/acme/door", "north side")
    mem("--home", str(a), "remote", "add", "usb", str(r))
    out = mem("--home", str(a), "backup", "usb", "--list")     # F13: an empty list printed nothing
    assert out.stdout == "" and "no snapshots yet on usb (make one with: mem backup usb)" in out.stderr
    mem("--home", str(a), "backup", "usb")
    out = mem("--home", str(tmp_path / "b"), "restore", str(r), exit_code=12)
    assert f"Error: the backup at {r} is encrypted and no sync key was given" in out.stderr, out.stderr
    assert f"'mem restore {r} --key FILE'" in out.stderr and "origin" not in out.stderr
    assert not (tmp_path / "b").exists()
    akia = tmp_path / "AKIAIOSFODNN7EXAMPLE" / "x"
    for cmd in ("restore", "clone"):
        out = mem("--home", str(tmp_path / "c"), cmd, str(akia), exit_code=2)
        assert "the remote URL holds a credential" in out.stderr and "mkdir" not in out.stderr, out.stderr
        assert "AKIAIOSFODNN7EXAMPLE" not in out.stdout + out.stderr and not (tmp_path / "c").exists()
