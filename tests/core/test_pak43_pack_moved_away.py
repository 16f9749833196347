"""fresh42 F3, the rest (session 43, pak43): one pack (its ``.pack`` and
``.idx``) moved away read as loss.  ``mem fsck --repair`` removed the keys
whose versions it held *and deleted their reflogs*; ``mem keys`` promised
"a repair after the pack is back rebuilds them", which was false; gc then
deleted the versions and the sealed values.

Now every pack written is recorded in ``objects/info/packs``: fsck names
the recorded pack that is missing, the repair and gc stop touching
nothing, and with the pack back everything reads.  A store without the
record (an older mem's) still gets the repair's old answer, but the
removed ref keeps its reflog, gc keeps what ``lost-refs`` names, and the
repair after the pack is back sets every key again.  Real ``mem``
processes."""

from __future__ import annotations

import shutil

from tests.core.test_fsk42_pack_folder_away import PERSON, _files


def _two_packs(mem, tmp_path):
    """A store with a vault, whose second pack holds a sealed key and a
    key's second version (the first pack: the keys' first versions)."""
    home = tmp_path / "s"
    h = ["--home", str(home)]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem(*h, "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "remember", "project/api/port", "8080", env=PERSON)
    mem(*h, "remember", "user/editor", "vim", env=PERSON)
    mem(*h, "gc", "--prune=now", env=PERSON)
    pack_dir = home / "objects" / "pack"
    first = {p.name for p in pack_dir.iterdir()}
    mem(*h, "remember", "user/pin", "okapi-quetzal-5521", "--sensitivity", "secret", env=PERSON)
    mem(*h, "remember", "project/api/port", "8081", env=PERSON)
    mem(*h, "remember", "user/shell", "zsh", env=PERSON)
    mem(*h, "gc", "--prune=now", env=PERSON)
    second = sorted(p for p in pack_dir.iterdir() if p.name not in first)
    assert [p.suffix for p in second] == [".idx", ".pack"], sorted(p.name for p in pack_dir.iterdir())
    return home, h, pp, second


def _all_back(mem, h, pp):
    assert mem(*h, "get", "project/api/port", env=PERSON).stdout.strip() == "8081"
    assert mem(*h, "get", "user/shell", env=PERSON).stdout.strip() == "zsh"
    assert mem(*h, "get", "user/editor", env=PERSON).stdout.strip() == "vim"
    assert "8080" in mem(*h, "log", "project/api/port", env=PERSON).stdout
    r = mem(*h, "sealed", "show", "user/pin", "--passphrase-file", str(pp), env=PERSON)
    assert "okapi-quetzal-5521" in r.stdout


def test_one_pack_moved_away_stops_repair_and_gc(mem, tmp_path):
    home, h, pp, second = _two_packs(mem, tmp_path)
    record = (home / "objects" / "info" / "packs").read_text()
    assert f"P {second[1].name}\n" in record, record
    before = _files(home)
    aside = tmp_path / "aside"
    aside.mkdir()
    for p in second:
        shutil.move(str(p), str(aside / p.name))
    r = mem(*h, "fsck", env=PERSON, exit_code=None)
    assert r.exit_code == 13 and f"{second[1].name} (and its .idx) missing from" in r.stdout, r.stdout
    assert "put the pack folder or the packs named back first" in r.stderr, r.stderr
    r = mem(*h, "fsck", "--repair", env=PERSON, exit_code=None)
    assert r.exit_code == 13 and "repair: stopped: " in r.stdout and "removed" not in r.stdout, r.stdout
    r = mem(*h, "gc", "--prune=now", env=PERSON, exit_code=None)
    assert r.exit_code == 13 and "gc refused" in r.stderr and "changes nothing while it is away" in r.stderr
    assert not (home / "lost-refs").exists()
    for p in second:
        shutil.move(str(aside / p.name), str(p))
    assert _files(home) == before   # no ref, reflog, object or record line was deleted
    assert mem(*h, "fsck", env=PERSON).stdout.startswith("ok:")
    _all_back(mem, h, pp)


def test_an_older_store_without_the_record_gets_every_key_back(mem, tmp_path):
    """No ``objects/info/packs`` (an older mem packed): the repair cannot
    tell the pack moved away from loss and removes the refs, but keeps
    their reflogs; gc keeps what lost-refs names; with the pack back the
    next repair sets every key again and gc deletes none of it."""
    home, h, pp, second = _two_packs(mem, tmp_path)
    (home / "objects" / "info" / "packs").unlink()
    reflogs = sorted(p.relative_to(home) for p in (home / "logs" / "refs").rglob("*") if p.is_file())
    aside = tmp_path / "aside"
    aside.mkdir()
    for p in second:
        shutil.move(str(p), str(aside / p.name))
    r = mem(*h, "fsck", "--repair", env=PERSON, exit_code=None)
    assert "removed" in r.stdout, r.stdout + r.stderr   # what it can tell: the objects are not there
    assert sorted(p.relative_to(home) for p in (home / "logs" / "refs").rglob("*") if p.is_file()) == reflogs
    mem(*h, "gc", "--prune=now", env=PERSON, exit_code=None)
    for p in second:
        shutil.move(str(aside / p.name), str(p))
    mem(*h, "gc", "--prune=now", env=PERSON, exit_code=None)   # nothing lost-refs names is garbage
    r = mem(*h, "fsck", "--repair", env=PERSON, exit_code=None)
    for name in ("facts/user/shell", "sealed/user/pin", "facts/project/api/port"):
        assert f"set {name} again" in r.stdout, r.stdout
    assert mem(*h, "fsck", env=PERSON).stdout.startswith("ok:")
    mem(*h, "gc", "--prune=now", env=PERSON)
    _all_back(mem, h, pp)
