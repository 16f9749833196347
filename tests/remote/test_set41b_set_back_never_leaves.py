"""test41 T5, through real ``mem`` processes, a real folder remote: a
set-back fact ref (a synced folder's older copy of the ref file) was pushed,
backed up and exported as the current value, exit 0, silently, so every
clone or import held the older value alone.  Now push, backup and export
refuse (exit 13, the ``mem fsck --repair`` hint, nothing sent or written);
after the repair the newest value travels.  A pull that would move a
set-back ref off its newer version is refused before its first change."""

from __future__ import annotations

import shutil
from tests._setback import set_back

KEY = "project/app/db-port"


def _set_back(mem, store_path, tmp_path):
    return set_back(mem, store_path, tmp_path, KEY, ("5432", "6543", "7654"))


def _refused(r, action):
    assert r.exit_code == 13, (r.stdout, r.stderr)
    assert f"{action} refused" in r.stderr and "set back" in r.stderr and "mem fsck --repair" in r.stderr, r.stderr


def _remote(mem, tmp_path):
    (tmp_path / "remote").mkdir()
    mem("remote", "add", "origin", str(tmp_path / "remote"))
    return tmp_path / "remote"


def _files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_push_and_backup_of_a_set_back_ref_refuse_and_send_nothing(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    remote = _remote(mem, tmp_path)
    before = _files(remote)
    _refused(mem("push", "origin", exit_code=None), "push")
    _refused(mem("backup", "origin", exit_code=None), "backup")
    assert _files(remote) == before   # no manifest, no pack
    mem("fsck", "--repair", exit_code=None)
    mem("push", "origin")
    mem("remote", "key", "export", "-o", str(tmp_path / "k"))
    clone = tmp_path / "clone"
    mem("--home", str(clone), "clone", "--key", str(tmp_path / "k"), str(remote))
    assert mem("--home", str(clone), "get", KEY).stdout == "7654\n"


def test_export_of_a_set_back_ref_refuses_and_leaves_the_file(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    out = tmp_path / "out.jsonl"
    out.write_text("an earlier export\n")
    _refused(mem("export", "-o", str(out), exit_code=None), "export")
    assert out.read_text() == "an earlier export\n"   # refused before -o truncates it
    _refused(mem("export", "--format", "markdown", "-o", str(tmp_path / "md"), exit_code=None), "export")
    assert not (tmp_path / "md").exists()
    mem("fsck", "--repair", exit_code=None)
    mem("export", "-o", str(out), "--force")   # over the earlier export (rem42: -o replaces a file only when told)
    imported = tmp_path / "imp"
    mem("--home", str(imported), "import", "jsonl", str(out))
    assert mem("--home", str(imported), "get", KEY).stdout == "7654\n"


def test_a_pull_onto_a_set_back_ref_refuses_before_its_first_change(mem, store_path, tmp_path):
    remote = _remote(mem, tmp_path)
    mem("remember", KEY, "5432")
    mem("remember", KEY, "6543")
    mem("push", "origin")
    mem("remote", "key", "export", "-o", str(tmp_path / "k"))
    other = tmp_path / "other"
    mem("--home", str(other), "clone", "--key", str(tmp_path / "k"), str(remote))
    mem("--home", str(other), "forget", f"{KEY}@v1", "--yes")   # the history rewritten elsewhere
    mem("--home", str(other), "push", "origin")
    ref = store_path / "refs" / "facts" / KEY
    shutil.copy(ref, tmp_path / "old-ref")
    mem("remember", KEY, "7654")
    shutil.copy(tmp_path / "old-ref", ref)   # set back to v2
    refs, logs = _files(store_path / "refs"), _files(store_path / "logs")
    log = (store_path / "logs" / "refs" / "facts" / KEY).read_bytes()
    r = mem("pull", "origin", exit_code=13)
    assert "set back" in r.stderr and "mem fsck --repair" in r.stderr, r.stderr
    assert _files(store_path / "refs") == refs   # no tombstone ref, nothing moved
    assert _files(store_path / "logs") == logs
    assert (store_path / "logs" / "refs" / "facts" / KEY).read_bytes() == log
    assert not (store_path / "refs" / "tombstones").exists() or not any((store_path / "refs" / "tombstones").iterdir())
    mem("fsck", "--repair", exit_code=None)
    mem("pull", "origin")
    assert mem("get", KEY).stdout == "7654\n"
