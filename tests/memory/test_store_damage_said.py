"""Bad input and store damage that were internal errors or a false
all-clear (session 29's fresh helper, test29b Q4): each now exits with a
documented code and a message naming what is wrong, and loses nothing
stored.  Real ``mem`` processes on real stores."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest


@pytest.fixture
def home(mem) -> Path:
    mem("remember", "project/x/a", "walrus deploys on friday")
    mem("remember", "project/x/a", "walrus deploys on monday")
    mem("remember", "project/x/b", "the narwhal port is open")
    return Path(os.environ["MEM_HOME"])


def _no_crash(r) -> None:
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr


def _refs_problems(mem) -> str:
    """doctor's refs finding (exit 1; other findings, e.g. no agent hooks, do not matter)."""
    r = mem("doctor", exit_code=1)
    return "\n".join(ln for ln in r.stdout.splitlines() if "[refs]" in ln)


@pytest.mark.parametrize("digits", [300, 5000])
@pytest.mark.parametrize("cmd", ["show", "forget", "diff", "revert"])
def test_a_huge_version_number_is_bad_input(home, mem, cmd, digits):
    """255+ digits reached a file name (ENAMETOOLONG), 4,300+ int()'s limit."""
    r = mem(cmd, "project/x/a@v" + "9" * digits, exit_code=2, input="n\n")
    _no_crash(r)
    assert "at most 18 digits" in r.stderr
    assert "9" * 100 not in r.stderr   # the selector is clipped, not echoed whole
    assert mem("get", "project/x/a").stdout.strip() == "walrus deploys on monday"


def test_diff_versions_refuse_what_is_no_number(home, mem):
    for bad in ("v²", "v" + "9" * 5000):
        r = mem("diff", "project/x/a", "v1", bad, exit_code=2)
        _no_crash(r)
        assert "is not a version" in r.stderr
    assert "monday" in mem("diff", "project/x/a", "v1", "v2").stdout


@pytest.mark.parametrize("what", ["file", "loop"])
def test_refs_replaced_is_exit_13_and_repair_restores_every_key(home, mem, what):
    refs = home / "refs"
    shutil.rmtree(refs)
    if what == "file":
        refs.write_text("not a folder\n")
    else:
        os.symlink("refs", refs)
    for args in (("keys",), ("fsck",), ("get", "project/x/a"), ("remember", "project/x/c", "new value")):
        r = mem(*args, exit_code=13)
        _no_crash(r)
        assert "refs" in r.stderr and "mem fsck --repair" in r.stderr, r.stderr
    r = mem("doctor", exit_code=1)
    assert "[store]" in r.stdout and "refs" in r.stdout, r.stdout
    r = mem("fsck", "--repair")
    assert "set it aside" in r.stdout, r.stdout
    assert mem("get", "project/x/a").stdout.strip() == "walrus deploys on monday"
    assert mem("get", "project/x/b").stdout.strip() == "the narwhal port is open"
    assert "v2" in mem("log", "project/x/a").stdout
    mem("fsck")
    kept = [d / "refs" for d in (home / "quarantine").iterdir() if os.path.lexists(d / "refs")]
    assert len(kept) == 1 and os.path.islink(kept[0]) == (what == "loop")


def test_a_ref_file_that_loops_is_damage_not_a_crash(home, mem):
    d = home / "refs" / "facts" / "project" / "x"
    os.symlink("loop2", d / "loop1")
    os.symlink("loop1", d / "loop2")
    r = mem("keys")
    assert "project/x/a" in r.stdout and "damaged ref" in r.stderr
    r = mem("fsck", exit_code=13)
    assert "project/x/loop1" in r.stdout + r.stderr
    mem("fsck", "--repair")
    mem("fsck")
    assert mem("get", "project/x/a").stdout.strip() == "walrus deploys on monday"


@pytest.mark.parametrize("name", ["refs/packed-sessions", "logs/packed-sessions", "logs/packed-facts"])
def test_a_folder_in_place_of_a_packed_file_is_set_aside_by_repair(home, mem, name):
    (home / name).mkdir()
    (home / name / "x").write_text("x")
    mem("fsck", exit_code=13)
    r = mem("fsck", "--repair")
    _no_crash(r)
    mem("fsck")
    assert not (home / name).exists()
    assert len(list((home / "quarantine").glob("*/*packed-*"))) == 1
    assert mem("get", "project/x/a").stdout.strip() == "walrus deploys on monday"


def test_a_folder_in_place_of_a_reflog_fails_the_write_before_the_ref_moves(home, mem):
    """test29b Q4: remember moved the ref, then died on the reflog."""
    log = home / "logs" / "refs" / "facts" / "project" / "x" / "a"
    ref_before = (home / "refs" / "facts" / "project" / "x" / "a").read_bytes()
    log.unlink()
    log.mkdir()
    r = mem("fsck", exit_code=13)
    assert "logs/refs/facts/project/x/a: not a regular file" in r.stdout + r.stderr
    assert "logs/refs/facts/project/x/a" in _refs_problems(mem)
    r = mem("remember", "project/x/a", "walrus deploys on tuesday", exit_code=13)
    _no_crash(r)
    assert "was not moved" in r.stderr and "mem fsck --repair" in r.stderr
    assert (home / "refs" / "facts" / "project" / "x" / "a").read_bytes() == ref_before
    assert mem("get", "project/x/a").stdout.strip() == "walrus deploys on monday"
    mem("fsck", "--repair")
    mem("remember", "project/x/a", "walrus deploys on tuesday")
    assert "v3" in mem("log", "project/x/a").stdout
    mem("fsck")


@pytest.mark.parametrize("gone", ["file", "refs/facts"])
def test_a_deleted_fact_ref_is_named_and_no_write_restarts_the_key(home, mem, gone):
    if gone == "file":
        (home / "refs" / "facts" / "project" / "x" / "a").unlink()
    else:
        shutil.rmtree(home / "refs" / "facts")
    found = _refs_problems(mem)
    assert "missing, while its reflog names its head" in found and "facts/project/x/" in found, found
    r = mem("remember", "project/x/a", "walrus deploys on tuesday", exit_code=13)
    _no_crash(r)
    assert "start the key again at v1" in r.stderr and "mem fsck --repair" in r.stderr
    mem("fsck", exit_code=13)
    mem("fsck", "--repair")
    mem("remember", "project/x/a", "walrus deploys on tuesday")
    log = mem("log", "project/x/a").stdout
    assert "v3" in log and "v1" in log
    assert mem("get", "project/x/b").stdout.strip() == "the narwhal port is open"
    mem("fsck")
    assert _refs_problems_or_none(mem) == ""


def _refs_problems_or_none(mem) -> str:
    r = mem("doctor", exit_code=None)
    return "\n".join(ln for ln in r.stdout.splitlines() if "[refs]" in ln)


def test_a_deleted_packed_sessions_file_is_named_by_doctor(mem, tmp_path):
    from tests.derive._util import transcript
    projects = tmp_path / "claude" / "projects" / "-home-dev-acme-api"
    transcript(projects / "s.jsonl", "s1", [("user", "the walrus deploy runs on friday"), ("assistant", "noted")])
    transcript(projects / "t.jsonl", "s2", [("user", "the narwhal port is open"), ("assistant", "ok")])
    mem("import", "claude-code", str(tmp_path / "claude" / "projects"))
    home = Path(os.environ["MEM_HOME"])
    assert _refs_problems_or_none(mem) == ""
    for p in [home / "refs" / "packed-sessions", *(home / "refs" / "sessions").iterdir()]:
        p.unlink()
    found = _refs_problems(mem)
    assert "missing, while its reflog names its head" in found and "ref sessions/s" in found, found
    mem("fsck", "--repair")
    assert "2 turns" in mem("sessions").stdout


def test_a_ref_naming_another_keys_version_is_named_by_doctor(home, mem):
    d = home / "refs" / "facts" / "project" / "x"
    assert _refs_problems_or_none(mem) == ""
    shutil.copyfile(d / "b", d / "a")
    assert "facts/project/x/a" in _refs_problems(mem) and "another key (project/x/b)" in _refs_problems(mem)
    mem("fsck", exit_code=13)


def test_a_ref_naming_another_keys_version_is_never_served_as_its_value(home, mem):
    """crash30's left-out: ``mem get``, recall and the session block served the
    other key's value under the damaged ref's key.  Now get exits 13 naming
    the damage, the listing readers skip the key with a warning, and
    ``fsck --repair`` sets the ref back to its own key's head."""
    d = home / "refs" / "facts" / "project" / "x"
    shutil.copyfile(d / "b", d / "a")
    r = mem("get", "project/x/a", exit_code=13)
    assert "narwhal" not in r.stdout and "names a version of another key (project/x/b)" in r.stderr, r
    _no_crash(r)
    r = mem("recall", "walrus deploys", "--project", "x", "--json")
    facts = [(h.get("key"), h.get("text")) for h in json.loads(r.stdout)["hits"] if h.get("kind") == "fact"]
    assert not any("narwhal" in (t or "") for _k, t in facts), facts
    r = mem("keys")
    assert "project/x/a" not in r.stdout and "project/x/b" in r.stdout
    r = mem("fsck", "--repair")
    assert "facts/project/x/a reached the versions of another key (project/x/b): set to its own last" in r.stdout, r
    assert mem("get", "project/x/a").stdout == "walrus deploys on monday\n"
    mem("fsck")


@pytest.mark.parametrize("write", [("remember", "project/x/a", "walrus deploys on tuesday"), ("pin", "project/x/a"),
                                   ("export", "-o", "EXPORT")])
def test_no_write_goes_on_top_of_another_keys_chain(home, mem, write):
    """test31b V1: ``mem remember`` on a key whose ref names another key's
    version wrote v3 on top of the other key's chain (exit 0), which no
    repair could undo, and ``mem export`` wrote the other key's versions
    under this key.  Each now refuses (exit 13) and ``fsck --repair``
    still restores the key from its reflog."""
    d = home / "refs" / "facts" / "project" / "x"
    shutil.copyfile(d / "b", d / "a")
    args = [str(home.parent / "out.jsonl") if a == "EXPORT" else a for a in write]
    r = mem(*args, exit_code=13)
    assert "names a version of another key (project/x/b)" in r.stderr, r.stderr
    mem("fsck", "--repair")
    assert mem("get", "project/x/a").stdout == "walrus deploys on monday\n"
    assert [ln.split()[0] for ln in mem("log", "project/x/a").stdout.splitlines() if ln[:1] == "v"] == ["v2", "v1"]
