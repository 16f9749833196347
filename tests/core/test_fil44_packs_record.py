"""test43 T6 (session 44, fil44): ``objects/info/packs`` deleted or cut to
0 bytes went unnoticed (fsck, doctor, gc and the repair all "ok") and was
never written again, so the pack-folder protection was silently off: the
pack folder then moved away read as loss.  Now fsck warns, and ``mem fsck
--repair`` and ``mem gc`` write the record back from the complete packs
present.  And pak43's left-out: a key an older repair removed and that was
written since is not set back when its history reads again; the repair
says so.  Real ``mem`` processes."""

from __future__ import annotations

import shutil

import pytest

from tests.core.test_fsk42_pack_folder_away import PERSON


def _packed(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    for k in (1, 2, 3):
        mem(*h, "remember", f"project/p/k{k}", f"value {k} a", env=PERSON)
        mem(*h, "remember", f"project/p/k{k}", f"value {k} b", env=PERSON)
    mem(*h, "gc", "--prune=now", env=PERSON)
    record = home / "objects" / "info" / "packs"
    text = record.read_text()
    assert text.startswith("P pack-"), text
    return home, h, record, text


@pytest.mark.parametrize("how", ["deleted", "emptied"])
@pytest.mark.parametrize("fix", [("fsck", "--repair"), ("gc",)])
def test_a_lost_packs_record_is_said_and_written_back(mem, tmp_path, how, fix):
    home, h, record, text = _packed(mem, tmp_path)
    if how == "deleted":
        record.unlink()
    else:
        record.write_text("")
    r = mem(*h, "fsck", env=PERSON)
    assert "objects/info/packs is " + ("missing" if how == "deleted" else "empty") in r.stderr + r.stdout, r
    assert "'mem fsck --repair' or 'mem gc' writes the record back" in r.stderr + r.stdout
    r = mem(*h, *fix, env=PERSON)
    assert "wrote back 1 pack into objects/info/packs" in r.stdout, r.stdout
    assert record.read_text() == text
    r = mem(*h, "fsck", env=PERSON)
    assert "objects/info/packs" not in r.stdout + r.stderr
    # the protection is on again: the folder moved away stops the repair, nothing removed
    shutil.move(str(home / "objects" / "pack"), str(tmp_path / "away"))
    r = mem(*h, "fsck", "--repair", env=PERSON, exit_code=None)
    assert r.exit_code == 13 and "repair: stopped: " in r.stdout, r.stdout
    shutil.move(str(tmp_path / "away"), str(home / "objects" / "pack"))
    assert mem(*h, "get", "project/p/k2", env=PERSON).stdout.strip() == "value 2 b"


def test_a_key_written_after_the_repair_that_removed_it_is_said(mem, tmp_path):
    home, h, record, _ = _packed(mem, tmp_path)
    record.unlink()
    shutil.move(str(home / "objects" / "pack"), str(tmp_path / "away"))
    r = mem(*h, "fsck", "--repair", env=PERSON, exit_code=None)
    assert "removed" in r.stdout, r.stdout   # no record: it cannot tell the folder moved away from loss
    mem(*h, "remember", "project/p/k1", "value 1 NEW", env=PERSON)
    shutil.move(str(tmp_path / "away"), str(home / "objects" / "pack"))
    r = mem(*h, "fsck", "--repair", env=PERSON)
    assert "set facts/project/p/k2 again" in r.stdout, r.stdout
    said = [line for line in r.stdout.splitlines() if line.startswith("repair: facts/project/p/k1:")]
    assert len(said) == 1 and "written since, so it is not set back" in said[0], r.stdout
    oid = said[0].split("'mem show ")[1].split("'")[0]
    assert "value 1 b" in mem(*h, "show", oid, env=PERSON).stdout
    assert mem(*h, "get", "project/p/k1", env=PERSON).stdout.strip() == "value 1 NEW"
