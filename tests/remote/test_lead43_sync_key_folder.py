"""fresh43 F3: ``sync-key`` replaced by a folder made push, pull, backup, scan and key export an internal error
(exit 1; for scan, 1 reads "found somewhere").  It is now the damage fsck names: exit 13 with the file and the way
back (scan: 3, not everything could be read).  Real ``mem`` processes and a folder remote."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_a_folder_in_place_of_the_sync_key_is_damage_not_an_internal_error(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    mem(*h, "init")
    mem(*h, "remember", "project/a/b", "a value", env=PERSON)
    (tmp_path / "remote").mkdir()
    mem(*h, "remote", "add", "origin", str(tmp_path / "remote"), env=PERSON)
    mem(*h, "push", env=PERSON)
    (home / "sync-key").unlink()
    (home / "sync-key").mkdir()
    for args in (("push",), ("pull",), ("backup",)):
        r = mem(*h, *args, env=PERSON, exit_code=13)
        assert "sync-key is damaged: cannot be read" in r.stderr and "internal error" not in r.stderr, (args, r.stderr)
    r = mem(*h, "scan", "zebra-never-stored", env=PERSON, exit_code=3)
    assert "internal error" not in r.stderr, r.stderr
    assert "sync-key is damaged" in mem(*h, "fsck", exit_code=13).stdout
