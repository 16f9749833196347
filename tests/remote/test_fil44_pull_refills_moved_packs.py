"""test43 T16 (session 44, fil44): with the pack folder moved away, ``mem
get``/``remember`` advised "'mem fsck --repair' sets it aside" (the
repair changes nothing then), and ``mem pull`` from a remote holding every
missing object said "received no new object" and restored nothing (the
bundles were this store's own push, known to it).  Now the hint names the
moved folder as fsck does, and the pull reads the known bundles again and
installs what this store lacks; once every key reads, the record no longer
waits for the pack away.  Real ``mem`` processes."""

from __future__ import annotations

import shutil

from tests.core.test_fil44_packs_record import _packed
from tests.core.test_fsk42_pack_folder_away import PERSON


def _pushed(mem, tmp_path):
    home, h, _record, _text = _packed(mem, tmp_path)
    (tmp_path / "rem").mkdir()
    mem(*h, "remote", "add", "r", str(tmp_path / "rem"), env=PERSON)
    mem(*h, "push", "r", env=PERSON)
    return home, h


def test_get_and_remember_name_the_moved_pack_folder(mem, tmp_path):
    home, h = _pushed(mem, tmp_path)
    shutil.move(str(home / "objects" / "pack"), str(tmp_path / "away"))
    for args in (("get", "project/p/k1"), ("remember", "project/p/k1", "value 1 c")):
        r = mem(*h, *args, env=PERSON, exit_code=None)
        assert r.exit_code == 13, (r.stdout, r.stderr)
        assert f"{home / 'objects' / 'pack'} is missing" in r.stderr and "put it back" in r.stderr, r.stderr
        assert "sets it aside" not in r.stderr, r.stderr


def test_pull_refills_the_objects_of_a_moved_pack_folder(mem, tmp_path):
    home, h = _pushed(mem, tmp_path)
    shutil.move(str(home / "objects" / "pack"), str(tmp_path / "away"))
    r = mem(*h, "pull", "r", env=PERSON)
    assert "received 6 objects" in r.stdout and "came back from the remote" in r.stdout, r.stdout
    for k in (1, 2, 3):
        assert mem(*h, "get", f"project/p/k{k}", env=PERSON).stdout.strip() == f"value {k} b"
        assert f"value {k} a" in mem(*h, "log", f"project/p/k{k}", env=PERSON).stdout
    assert mem(*h, "fsck", env=PERSON).stdout.startswith("ok:")
    mem(*h, "remember", "project/p/k1", "value 1 c", env=PERSON)
    # the folder put back later: its pack is recorded again, nothing lost
    for p in (tmp_path / "away").iterdir():
        shutil.move(str(p), str(home / "objects" / "pack" / p.name))
    mem(*h, "gc", "--prune=now", env=PERSON)
    assert mem(*h, "fsck", env=PERSON).stdout.startswith("ok:")
    assert mem(*h, "get", "project/p/k1", env=PERSON).stdout.strip() == "value 1 c"


def test_pull_from_a_remote_without_them_names_what_is_still_away(mem, tmp_path):
    home, h = _pushed(mem, tmp_path)
    mem(*h, "remember", "project/p/k4", "only here", env=PERSON)
    mem(*h, "gc", "--prune=now", env=PERSON)   # a second pack the remote never got
    packs = sorted(p for p in (home / "objects" / "pack").iterdir() if p.suffix == ".pack")
    shutil.move(str(home / "objects" / "pack"), str(tmp_path / "away"))
    r = mem(*h, "pull", "r", env=PERSON, exit_code=None)   # k4's head is read by the merge: not found
    assert r.exit_code == 4 and f"{packs[-1].name}" in r.stderr and "put the files back" in r.stderr, r.stderr
    r = mem(*h, "fsck", "--repair", env=PERSON, exit_code=None)
    assert r.exit_code == 13 and "repair: stopped" in r.stdout, r.stdout
    assert packs
