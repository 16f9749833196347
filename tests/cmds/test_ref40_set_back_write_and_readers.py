"""test39b B6/B17, through real ``mem`` processes: a key's ref set back to
an older version than its reflog's last move (a synced folder's older copy
of the ref file).  A write on it took the old head as parent, reused a
version number and dropped the newer versions from ``log`` and fsck for
good; ``recall``, ``keys``, ``search`` and ``context`` served the old value
with no word.  Now the write refuses (exit 13, nothing written, the repair
named), every reader warns once on stderr, and a sealed key's set-back ref
is said by ``sealed show`` and ``log`` too; ``sealed show`` without ``--version`` refuses it (test42 T13,
exit 13) as ``sealed export`` does."""

from __future__ import annotations

import shutil
from tests._setback import set_back

SAID = "project/a/db was set back: its ref holds v1"


def _set_back(mem, store_path, tmp_path):
    set_back(mem, store_path, tmp_path, "project/a/db", ("postgres 15", "postgres 16", "postgres 17"), keep=1)


def test_a_write_on_a_set_back_ref_refuses_and_loses_no_version(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    r = mem("remember", "project/a/db", "postgres 18", exit_code=13)
    assert "set back to v1" in r.stderr and "v3" in r.stderr and "mem fsck --repair" in r.stderr, r.stderr
    assert "nothing was written" in r.stderr
    log = mem("log", "project/a/db", "--json").json
    assert [v["version"] for v in log] == [1], log   # the ref's history; the newer ones are the reflog's
    assert "postgres 18" not in mem("reflog", "project/a/db").stdout
    mem("fsck", exit_code=13)   # still said (before: a write buried it, fsck 0 problems)
    mem("fsck", "--repair", exit_code=None)
    assert mem("get", "project/a/db").stdout == "postgres 17\n"
    mem("remember", "project/a/db", "postgres 18")
    log = mem("log", "project/a/db", "--json").json
    assert [(v["version"], v["body"]) for v in log][:2] == [(4, "postgres 18"), (3, "postgres 17")], log
    assert sorted(v["version"] for v in log) == [1, 2, 3, 4]


def test_readers_of_many_keys_warn_once(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    for args in (("recall", "postgres", "--project", "a"), ("keys",), ("search", "postgres"),
                 ("context", "--project", "a")):
        r = mem(*args)
        assert "postgres 15" in r.stdout, (args, r.stdout)
        assert r.stderr.count(SAID) == 1 and "mem fsck --repair" in r.stderr, (args, r.stderr)
    mem("fsck", "--repair", exit_code=None)
    for args in (("recall", "postgres", "--project", "a"), ("keys",)):
        assert "set back" not in mem(*args).stderr


def test_a_sealed_keys_set_back_ref_is_said_by_sealed_show_and_log(mem, store_path, tmp_path):
    pp = tmp_path / "pp"
    pp.write_text("correct horse pass ref40\n")
    mem("vault", "init", "--passphrase-file", str(pp))
    mem("remember", "user/k", "old-secret-111", "--sensitivity", "secret")
    ref = store_path / "refs" / "sealed" / "user" / "k"
    shutil.copy(ref, tmp_path / "old-ref")
    mem("remember", "user/k", "new-secret-222", "--sensitivity", "secret")
    shutil.copy(tmp_path / "old-ref", ref)
    r = mem("sealed", "show", "user/k", "--passphrase-file", str(pp), exit_code=13)   # test42 T13: never as current
    assert r.stdout == "" and "user/k was set back: its ref holds v1" in r.stderr and "--version N" in r.stderr, r
    r = mem("sealed", "show", "user/k", "--version", "1", "--passphrase-file", str(pp))   # asked for: shown, said old
    assert r.stdout == "old-secret-111\n" and "user/k was set back: its ref holds v1" in r.stderr, r.stderr
    r = mem("sealed", "show", "user/k", "--all", "--passphrase-file", str(pp), exit_code=13)   # (test43 T4: v1 read
    assert r.stdout == "" and "set back" in r.stderr, r                                     # "(current)", exit 0)
    assert "user/k was set back" in mem("log", "user/k").stderr
    r = mem("remember", "user/k", "third-secret-333", "--sensitivity", "secret", exit_code=13)
    assert "set back" in r.stderr
    mem("fsck", "--repair", exit_code=None)
    r = mem("sealed", "show", "user/k", "--passphrase-file", str(pp))
    assert r.stdout == "new-secret-222\n" and "set back" not in r.stderr
