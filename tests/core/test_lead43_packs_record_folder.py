"""test43 T19: a folder in place of ``objects/info/packs`` (pak43's record of the packs) made every ``mem gc`` an
internal error, after it had written and installed its pack, while fsck, ``--repair`` and doctor said ok.  Now gc
refuses before it writes anything (exit 13), fsck names it, and the repair sets it aside; the next gc records the
packs again.  Real ``mem`` processes."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_a_folder_in_place_of_the_packs_record_is_named_and_set_aside(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    mem(*h, "init")
    for i in range(3):
        mem(*h, "remember", f"project/p/k{i}", f"value {i}", env=PERSON)
    mem(*h, "gc", env=PERSON)
    record = home / "objects" / "info" / "packs"
    packs = sorted(p.name for p in (home / "objects" / "pack").glob("*.pack"))
    record.unlink()
    record.mkdir()
    mem(*h, "remember", "project/p/k5", "five", env=PERSON)
    r = mem(*h, "gc", env=PERSON, exit_code=13)
    assert "objects/info/packs is a folder" in r.stderr and "internal error" not in r.stderr, r.stderr
    assert sorted(p.name for p in (home / "objects" / "pack").glob("*.pack")) == packs   # nothing written
    assert "objects/info/packs is a folder" in mem(*h, "fsck", exit_code=13).stdout
    (tmp_path / "remote").mkdir()   # fresh43 F12: a pull ended in an internal error after installing its pack
    mem(*h, "remote", "add", "origin", str(tmp_path / "remote"), env=PERSON)
    for args in (("push",), ("pull",)):
        r = mem(*h, *args, env=PERSON, exit_code=13)
        assert "objects/info/packs is a folder" in r.stderr and "internal error" not in r.stderr, (args, r.stderr)
    assert "set it aside" in mem(*h, "fsck", "--repair", env=PERSON).stdout
    mem(*h, "gc", env=PERSON)
    assert record.is_file() and len(record.read_text().splitlines()) == len(list((home / "objects" / "pack").glob("*.pack")))
    assert mem(*h, "get", "project/p/k5").stdout.strip() == "five"
    assert "ok:" in mem(*h, "fsck").stdout


def test_a_file_in_place_of_objects_info_is_named_and_set_aside(mem, tmp_path):
    """fresh43 F4: ``objects/info`` a file: fsck and ``--repair`` said ok while push and gc stopped."""
    home = tmp_path / "s"
    h = ["--home", str(home)]
    mem(*h, "init")
    mem(*h, "remember", "project/p/k", "a value", env=PERSON)
    mem(*h, "gc", env=PERSON)
    info = home / "objects" / "info"
    (info / "packs").unlink()
    info.rmdir()
    info.write_text("junk\n")
    assert "objects/info is a file where the store keeps a folder" in mem(*h, "fsck", exit_code=13).stdout
    assert "set it aside" in mem(*h, "fsck", "--repair", env=PERSON).stdout
    assert info.is_dir()
    mem(*h, "remember", "project/p/k2", "another", env=PERSON)
    mem(*h, "gc", env=PERSON)
    assert "ok:" in mem(*h, "fsck").stdout and mem(*h, "get", "project/p/k").stdout.strip() == "a value"
