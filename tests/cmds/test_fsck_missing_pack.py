"""Session 33 (test33 T17): a pack whose ``.pack`` file is only MISSING for a
while (a sync client that has not fetched it yet; its ``.idx`` intact) was
treated as damage: ``mem fsck --repair`` moved the index to the quarantine
and removed every ref pointing into the pack with its reflog; when the file
came back, fsck and doctor said "ok" with 0 refs and ``mem gc`` deleted the
returned pack.  Now the missing file is named by fsck, doctor and every
read, ``--repair`` keeps every ref and reflog, and a sound pack an older
repair set aside is named and put back.  Real stores, real ``mem``
processes, real moves of the pack files."""

from __future__ import annotations

import json
import shutil

KEYS = {f"project/p/k{i}": f"value number {i} of the missing pack" for i in range(1, 5)}


def _packed_store(mem, store_path) -> tuple:
    for key, value in KEYS.items():
        mem("remember", key, value)
    mem("remember", "project/p/k1", "value number 1, second version")
    mem("gc", "--prune=now")
    pack_dir = store_path / "objects" / "pack"
    (pack,) = pack_dir.glob("pack-*.pack")
    (idx,) = pack_dir.glob("pack-*.idx")
    return pack, idx


def _values_back(mem, lost: str = "") -> None:
    assert mem("get", "project/p/k1").stdout.strip() == "value number 1, second version"
    for key, value in list(KEYS.items())[1:]:
        assert mem("get", key).stdout.strip() == value
    log = mem("log", "project/p/k1").stdout   # the whole history, not only the head
    assert "value number 1 of the missing pack" in log and "v2" in log, log
    out = mem("fsck").stdout
    if lost:   # a ref the repair removed with nothing readable stays named (test33b T13)
        assert out.startswith("warning: lost-refs: 1 ref(s) removed") and f"since: {lost};" in out, out
        out = out.split("\n", 1)[1]
    assert out.startswith("ok: "), out


def test_repair_keeps_every_ref_while_a_pack_file_is_missing(mem, store_path, tmp_path):
    pack, idx = _packed_store(mem, store_path)
    aside = tmp_path / "aside"
    aside.mkdir()
    shutil.move(pack, aside / pack.name)    # the sync client has not fetched it yet
    reflog = (store_path / "logs" / "refs" / "facts" / "project" / "p" / "k1").read_bytes()

    got = mem("get", "project/p/k1", exit_code=13)
    assert pack.name in got.stderr and "missing" in got.stderr, got.stderr
    assert "keeps every ref" in got.stderr, got.stderr

    out = mem("fsck", exit_code=13)
    assert f"{pack}: missing (not damaged" in out.stdout, out.stdout
    assert "a pack file is missing: put it back" in out.stderr, out.stderr
    doc = mem("doctor", exit_code=None)
    assert f"{pack} is missing (not damaged" in doc.stdout + doc.stderr

    rep = mem("fsck", "--repair", exit_code=13)
    assert f"{pack} is missing (its index is intact): every ref and reflog is kept" in rep.stdout, rep.stdout
    assert "removed" not in rep.stdout, rep.stdout
    assert idx.exists(), "the intact index stays where it is"
    assert not (store_path / "quarantine").exists() or not any((store_path / "quarantine").rglob("pack-*"))
    assert (store_path / "logs" / "refs" / "facts" / "project" / "p" / "k1").read_bytes() == reflog
    js = mem("fsck", "--repair", "--json", exit_code=13).json
    assert js["repair"]["absent_packs"] == [str(pack)] and js["repair"]["dropped_refs"] == []
    assert js["refs"] == len(KEYS)

    shutil.move(aside / pack.name, pack)    # the file is back
    _values_back(mem)
    assert len(mem("keys").stdout.splitlines()) == len(KEYS)


def _harmed_store(mem, store_path, tmp_path, move_pack_too: bool):
    """The state an older ``mem fsck --repair`` left (test33 T17): the index in
    the quarantine, every ref into the pack and its reflog removed, the pack
    back in ``objects/pack`` (or, after a second repair, in another
    quarantine folder)."""
    pack, idx = _packed_store(mem, store_path)
    q1 = store_path / "quarantine" / "20260101T000000Z-1"
    q1.mkdir(parents=True)
    shutil.move(idx, q1 / idx.name)
    shutil.rmtree(store_path / "refs" / "facts")
    shutil.rmtree(store_path / "logs" / "refs" / "facts")
    if move_pack_too:
        q2 = store_path / "quarantine" / "20260101T000500Z-2"
        q2.mkdir(parents=True)
        shutil.move(pack, q2 / pack.name)
    return pack, idx


def test_a_pack_an_older_repair_set_aside_is_named_kept_by_gc_and_put_back(mem, store_path, tmp_path):
    pack, idx = _harmed_store(mem, store_path, tmp_path, move_pack_too=False)
    out = mem("fsck", exit_code=13).stdout
    assert f"pack {pack.stem}: sound" in out and "'mem fsck --repair' puts it back" in out, out
    doc = mem("doctor", exit_code=None)
    assert "mem fsck --repair  (puts it back)" in doc.stdout + doc.stderr
    mem("gc", "--prune=now")       # neither the returned pack nor the quarantined index is deleted
    assert pack.exists()
    assert any((store_path / "quarantine").rglob(idx.name))
    rep = mem("fsck", "--repair").stdout
    assert f"put back {pack} and its index" in rep, rep
    assert idx.exists()
    _values_back(mem)


def test_a_pack_whose_both_files_are_in_the_quarantine_is_put_back(mem, store_path, tmp_path):
    pack, idx = _harmed_store(mem, store_path, tmp_path, move_pack_too=True)
    js = mem("fsck", "--json", exit_code=13).json
    assert any("in the quarantine" in p and "are" in p for p in js["problems"]), js["problems"]
    rep = json.loads(mem("fsck", "--repair", "--json").stdout)["repair"]
    assert rep["put_back"] == [str(pack)]
    assert pack.exists() and idx.exists()
    _values_back(mem)


def test_a_damaged_pack_the_repair_set_aside_is_never_put_back(mem, store_path):
    pack, idx = _packed_store(mem, store_path)
    data = bytearray(pack.read_bytes())
    data[-5] ^= 0xFF                     # its trailer checksum: the pack does not open
    pack.write_bytes(bytes(data))
    rep = mem("fsck", "--repair", "--json", exit_code=None).json["repair"]
    assert any(p.endswith(pack.name) for p in rep["quarantined"]), rep
    assert rep["put_back"] == [] and rep["absent_packs"] == []
    assert "puts it back" not in mem("fsck", exit_code=None).stdout
    again = mem("fsck", "--repair", "--json", exit_code=None).json["repair"]
    assert again["put_back"] == [] and not pack.exists()


def test_other_damage_is_set_aside_while_a_pack_file_is_missing_and_mended_once_it_is_back(mem, store_path,
                                                                                             tmp_path):
    pack, idx = _packed_store(mem, store_path)
    mem("remember", "project/p/loose", "a loose value that gets damaged")
    loose = [p for p in (store_path / "objects").glob("??/*") if p.is_file()]
    assert len(loose) == 1, loose             # the new key's one version
    loose[0].write_bytes(b"garbage, not an object")
    shutil.move(pack, tmp_path / pack.name)
    rep = mem("fsck", "--repair", "--json", exit_code=13).json
    assert rep["repair"]["quarantine"] and rep["repair"]["dropped_refs"] == [], rep
    assert rep["refs"] == len(KEYS) + 1          # every ref kept while the pack is missing
    shutil.move(tmp_path / pack.name, pack)
    out = mem("fsck", "--repair").stdout         # now the damaged key is mended as before
    assert "project/p/loose" in out, out
    _values_back(mem, lost="facts/project/p/loose")
