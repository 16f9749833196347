"""test34 T7: ``mem gc --prune=now`` (the step the README puts after every
forget) deleted the quarantine folder ``mem fsck --repair`` had just filled
with the only copy of the lost keys' data.  Session 35 kept such a folder
by the time of the repair, and then ``mem forget KEY; mem gc --prune=now``
left the forgotten value in it.  Now the repair marks the folder with the
refs it removed (``quarantine/<name>/lost-refs``); gc keeps a folder while
its marker names a ref ``lost-refs`` still names, whatever its age, and says
so; a forget of such a ref deletes the folder (no byte of the forgotten
value left anywhere), naming the other lost refs whose data went with it.
Real stores, real ``mem`` processes, two real flipped bits."""

from __future__ import annotations

import json

from tests.cmds.test_repair_lost_refs import _flip_one_bit

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
KEYS = {f"project/acme/k{i}": f"value number {i} for key {i} zq" for i in range(1, 7)}


def _repaired(mem, store_path) -> list[str]:
    """Six keys in one pack, two bits flipped, ``fsck --repair``: the keys
    it removed (at least two)."""
    for key, value in KEYS.items():
        mem("remember", key, value)
    mem("gc", "--prune=now")
    _flip_one_bit(store_path)
    gone = json.loads(mem("fsck", "--repair", "--json", exit_code=None).stdout)["repair"]["dropped_refs"]
    assert len(gone) >= 2, gone
    return [g.split("/", 1)[1] for g in gone]


def _folders(store_path) -> list:
    q = store_path / "quarantine"
    return sorted(q.iterdir()) if q.is_dir() else []


def test_gc_keeps_the_folder_while_its_refs_are_lost(mem, store_path):
    lost = _repaired(mem, store_path)
    (folder,) = _folders(store_path)
    marker = (folder / "lost-refs").read_text()
    assert all(f"facts/{k}" in marker for k in lost), marker
    r = mem("gc", "--prune=now", "--json")
    kept = json.loads(r.stdout)["quarantine_kept"]
    assert list(kept) == [str(folder)] and kept[str(folder)] == sorted(f"facts/{k}" for k in lost), kept
    out = mem("gc", "--prune=now").stdout
    assert f"kept quarantine folder {folder.name}: it may hold the only copy" in out, out
    assert "delete 1 quarantine folder" not in out and folder.is_dir()
    # accepting the loss (the documented way: delete lost-refs) lets gc delete it
    (store_path / "lost-refs").unlink()
    out = mem("gc", "--prune=now").stdout
    assert "delete 1 quarantine folder (--prune=now: whatever their age)" in out, out
    assert _folders(store_path) == []


def test_forget_of_a_lost_key_deletes_its_folder_and_names_the_others(mem, store_path):
    lost = _repaired(mem, store_path)
    (folder,) = _folders(store_path)
    r = mem("forget", lost[0], "--dry-run")
    assert f"would delete quarantine/{folder.name}" in r.stderr and folder.is_dir(), r.stderr
    r = mem("forget", lost[0], "--yes", env=PERSON)
    assert f"deleted quarantine/{folder.name}: the repair that removed it set its damaged data aside there" \
        in r.stderr, r.stderr
    assert f"facts/{lost[1]}" in r.stderr and not folder.exists(), r.stderr
    mem("gc", "--prune=now")
    for k in lost:
        assert json.loads(mem("scan", KEYS[k], "--json", "--no-remotes", exit_code=None).stdout) == []
    assert f"facts/{lost[1]}" in mem("fsck", exit_code=None).stdout   # still lost, still named


def test_forget_of_a_key_set_again_since_deletes_its_folder(mem, store_path):
    lost = _repaired(mem, store_path)
    (folder,) = _folders(store_path)
    mem("remember", lost[1], "a new value for it 4711")
    assert json.loads(mem("gc", "--prune=now", "--json").stdout)["quarantine_kept"]   # lost[0] still lost
    r = mem("forget", lost[1], "--yes", "--json", env=PERSON)
    assert json.loads(r.stdout)["quarantine_deleted"] == {f"quarantine/{folder.name}": sorted(
        f"facts/{k}" for k in lost if k != lost[1])}
    assert not folder.exists()
    mem("gc", "--prune=now")
    assert json.loads(mem("scan", KEYS[lost[1]], "--json", "--no-remotes", exit_code=None).stdout) == []


def test_a_forget_after_the_repair_lets_gc_delete_the_folder(mem, store_path):
    """dmg36's left-out: a ``forget --match`` (or a forget of a key that
    survived the repair, whose older versions were in the damaged pack) does
    not look into a kept folder, so its damaged files could still hold the
    forgotten text.  A folder filled before the store's newest forget is no
    longer kept."""
    lost = _repaired(mem, store_path)
    (folder,) = _folders(store_path)
    assert json.loads(mem("gc", "--prune=now", "--json").stdout)["quarantine_kept"]
    mem("forget", "--match", "value number", "--yes", env=PERSON)
    r = json.loads(mem("gc", "--prune=now", "--json").stdout)
    assert r["quarantine_kept"] == {} and not folder.exists(), r
    assert json.loads(mem("scan", "value number", "--json", "--no-remotes", exit_code=None).stdout) == []
    assert f"facts/{lost[0]}" in mem("fsck", exit_code=None).stdout   # still lost, still named
