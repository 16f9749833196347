"""fresh42 F3: with ``objects/pack`` replaced by a file,
``mem fsck --repair`` (what every hint prescribes) removed every fact and
sealed ref and deleted their reflogs; with the folder back nothing came back
and gc then deleted the versions and the sealed values.  Now fsck names the
folder, the repair stops (exit 13) touching nothing, gc refuses, and once
the folder is back every key and sealed value reads.  Real ``mem``
processes."""

from __future__ import annotations

import shutil

import pytest

PERSON = {"MEM_AGENT": "0"}


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()
                  and p.parts[len(root.parts)] in ("refs", "logs", "objects"))


# "moved": the folder moved away is caught by objects/info/packs, the record of the packs (session 43,
# pak43); a store that never packed has no record, so test_repair_changed_digit's lost head is still lost
@pytest.mark.parametrize("how", ["file", "moved"])
def test_repair_and_gc_keep_everything_while_the_pack_folder_is_away(mem, tmp_path, how):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem(*h, "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "remember", "user/pin", "okapi-quetzal-5521", "--sensitivity", "secret", env=PERSON)
    mem(*h, "remember", "project/api/port", "8080", env=PERSON)
    mem(*h, "remember", "project/api/port", "8081", env=PERSON)
    mem(*h, "remember", "user/editor", "vim", env=PERSON)
    mem(*h, "gc", "--prune=now", env=PERSON)
    pack = home / "objects" / "pack"
    assert list(pack.glob("*.pack"))
    before = _files(home)
    aside = tmp_path / "aside"
    shutil.move(str(pack), str(aside))
    if how == "file":
        pack.write_text("junk\n")
    r = mem(*h, "fsck", env=PERSON, exit_code=None)
    assert r.exit_code == 13 and str(pack) in r.stdout, r.stdout
    assert "put the pack folder or the packs named back first" in r.stderr and "sets the damage aside" not in r.stderr, r.stderr
    r = mem(*h, "fsck", "--repair", env=PERSON, exit_code=None)
    assert r.exit_code == 13, r.stdout + r.stderr
    assert "repair: stopped: " in r.stdout and "removed" not in r.stdout, r.stdout
    r = mem(*h, "gc", "--prune=now", env=PERSON, exit_code=None)
    assert r.exit_code == 13 and "gc refused" in r.stderr, r.stderr
    assert not (home / "lost-refs").exists()
    if how == "file":
        pack.unlink()
    shutil.move(str(aside), str(pack))
    assert _files(home) == before   # no ref, reflog or object was deleted
    r = mem(*h, "fsck", env=PERSON)
    assert r.stdout.startswith("ok:"), r.stdout
    assert mem(*h, "get", "project/api/port", env=PERSON).stdout.strip() == "8081"
    assert mem(*h, "get", "user/editor", env=PERSON).stdout.strip() == "vim"
    r = mem(*h, "sealed", "show", "user/pin", "--passphrase-file", str(pp), env=PERSON)
    assert "okapi-quetzal-5521" in r.stdout

