"""test41 T6/T7, through real ``mem`` processes on a real store folder: a
set-back key (a synced folder's older copy of its ref file).  ``mem
context`` (what the SessionStart hook hands the agent) printed its older
value under "current values only" and ``mem status`` said nothing; ``forget
--match NEWER`` deleted the newer version as "a writer stopped before it
published it"; a refused ``remember`` still wrote its object; ``revert``
blamed "v1 created the key".  Now the context line is marked, status warns,
and each writer refuses with exit 13 before it writes anything."""

from __future__ import annotations

from tests._setback import set_back

KEY = "project/app/db-port"


def _set_back(mem, store_path, tmp_path):
    return set_back(mem, store_path, tmp_path, KEY, ("5432", "6543"), keep=1)   # set back to v1


def _objects(store_path):
    return sorted(p.name for p in (store_path / "objects").rglob("*") if p.is_file())


def _refused(r):
    assert r.exit_code == 13, (r.exit_code, r.stdout, r.stderr)
    assert "set back" in r.stderr and "mem fsck --repair" in r.stderr, r.stderr


def test_t6_context_marks_a_set_back_line_and_status_warns(mem, store_path, tmp_path):
    mem("remember", "project/app/cache", "redis")
    _set_back(mem, store_path, tmp_path)
    text = mem("context", "--project", "app").stdout
    line = next(ln for ln in text.splitlines() if ln.startswith(f"- {KEY} "))
    assert "SET BACK to older v1: NOT the current value, newer v2 is stored" in line, line
    assert "mem fsck --repair" in line and line.endswith(": 5432")
    other = next(ln for ln in text.splitlines() if ln.startswith("- project/app/cache "))
    assert "SET BACK" not in other
    for args in (("status",), ("status", "--json")):
        r = mem(*args)
        assert f"warning: ref facts/{KEY} was set back to v1" in r.stderr and "mem fsck --repair" in r.stderr, r.stderr
    mem("fsck", "--repair", exit_code=None)
    assert "SET BACK" not in mem("context", "--project", "app").stdout
    assert "set back" not in mem("status").stderr


def test_t7_forget_match_of_the_newer_value_refuses(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    before = _objects(store_path)
    _refused(mem("forget", "--match", "6543", "--yes", exit_code=None))
    _refused(mem("forget", "--match", "5432", "--yes", exit_code=None))
    assert _objects(store_path) == before
    assert not (store_path / "refs" / "tombstones").exists() or not any((store_path / "refs" / "tombstones").iterdir())
    mem("fsck", "--repair", exit_code=None)
    assert mem("get", KEY).stdout == "6543\n"


def test_t7_a_refused_remember_writes_no_object(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    before = _objects(store_path)
    _refused(mem("remember", KEY, "7777", exit_code=None))
    assert _objects(store_path) == before


def test_t7_revert_of_a_set_back_key_names_the_set_back(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    r = mem("revert", KEY, exit_code=None)
    _refused(r)
    assert "created the key" not in r.stderr
