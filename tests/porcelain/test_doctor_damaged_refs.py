"""``mem doctor`` on a store whose ref files were damaged (test29 P6): it
said "ok: no problem found" (exit 0) while ``mem fsck`` said CORRUPT for a
key's ref holding garbage, a reflog with a garbage line, and a tombstone's
ref holding another id (what it forgets could be written back).  Now each
is an error naming the ref and ``mem fsck``; a sound store stays "ok"."""

from __future__ import annotations

import json

import pytest


def _store(mem, home):
    for k, v in (("project/d/a", "alpha value"), ("project/d/b", "beta value")):
        mem("--home", str(home), "remember", k, v)
    mem("--home", str(home), "gc")
    mem("--home", str(home), "remember", "project/d/loose", "loose one")
    r = mem("--home", str(home), "doctor", "--json", exit_code=None)
    assert not [f for f in json.loads(r.stdout)["findings"] if f["check"] == "refs"], r.stdout


def _garbage_ref(home):
    (home / "refs" / "facts" / "project" / "d" / "loose").write_text("zzzz-not-an-id\n")
    return "facts/project/d/loose"


def _garbage_reflog(home):
    with open(home / "logs" / "refs" / "facts" / "project" / "d" / "b", "a") as f:
        f.write("garbage line\n")
    return "reflog"


def _damaged_tombstone_refs(mem, home, delete: bool):
    """Forget a key, then overwrite its tombstone refs with another id (or delete them)."""
    mem("--home", str(home), "forget", "project/d/b", "--yes")
    refs = [p for p in (home / "refs" / "tombstones").rglob("*") if p.is_file()]
    assert refs
    for p in refs:
        p.unlink() if delete else p.write_text("0" * 64 + "\n")
    return "its ref tombstones/" if delete else "could be written back"


@pytest.mark.parametrize("damage", ["ref", "reflog", "tombstone", "tombstone-ref-deleted"])
def test_a_damaged_ref_reflog_or_tombstone_ref_is_an_error(mem, tmp_path, damage):
    home = tmp_path / "s"
    _store(mem, home)
    said = {"ref": lambda: _garbage_ref(home), "reflog": lambda: _garbage_reflog(home),
            "tombstone": lambda: _damaged_tombstone_refs(mem, home, False),
            "tombstone-ref-deleted": lambda: _damaged_tombstone_refs(mem, home, True)}[damage]()   # test29b Q4
    r = mem("--home", str(home), "doctor", exit_code=1)
    assert "error: [refs]" in r.stdout and said in r.stdout and "fix: mem fsck" in r.stdout, r.stdout
    assert "no problem found" not in r.stdout
    mem("--home", str(home), "fsck", exit_code=13)
