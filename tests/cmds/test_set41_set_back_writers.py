"""test40 T7/T8/T16/T17/T24, through real ``mem`` processes: commands that
went around ``Store.update_ref``'s refusal on a set-back ref (a synced
folder's older copy of a ref file).  ``seal``/``unseal``, ``reinforce``,
``unpin``, ``forget KEY@vN`` and ``forget --match`` acted on the old
version alone (the newest value dropped, gc deleted it, fsck said ok);
``remember`` of the old value said "unchanged"; a reflog whose cut last
line named the newer version lost it.  Now each refuses with exit 13,
nothing changed, and after ``fsck --repair`` the newest value is current."""

from __future__ import annotations

import shutil
from tests._setback import set_back

KEY = "project/db/port"


def _set_back(mem, store_path, tmp_path, key=KEY, ns="facts", values=("5432", "6543", "7654"), extra=()):
    ref = set_back(mem, store_path, tmp_path, key, values, ns=ns, extra=extra)
    mem("fsck", exit_code=13)
    return ref


def _newest_kept(mem, value="7654", key=KEY):
    mem("gc", "--prune=now", exit_code=None)
    mem("fsck", "--repair", exit_code=None)
    assert mem("get", key).stdout == value + "\n"
    assert [v["version"] for v in mem("log", key, "--json").json] == [3, 2, 1]


def _refused(r):
    assert "set back" in r.stderr and "nothing was written" in r.stderr and "mem fsck --repair" in r.stderr, r.stderr


def test_t16_reinforce_and_unpin_of_a_set_back_key_refuse(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    log = (store_path / "logs" / "refs" / "facts" / KEY).read_bytes()
    _refused(mem("reinforce", KEY, exit_code=13))
    _refused(mem("unpin", KEY, exit_code=13))
    assert (store_path / "logs" / "refs" / "facts" / KEY).read_bytes() == log   # no line appended
    mem("fsck", exit_code=13)   # still said
    _newest_kept(mem)


def test_t16_an_activity_line_is_not_the_reflogs_last_move(mem, store_path, tmp_path):
    ref = _set_back(mem, store_path, tmp_path)
    log = store_path / "logs" / "refs" / "facts" / KEY
    old = ref.read_text().strip()
    with open(log, "a") as f:   # what an older mem's reinforce appended: old = new = the set-back head
        f.write(f"{old} {old} 1700000000000 reinforce\n")
    assert "was set back" in mem("get", KEY).stderr
    mem("fsck", exit_code=13)
    _refused(mem("remember", KEY, "9999", exit_code=13))
    _newest_kept(mem)


def test_t8_remember_of_the_old_value_on_a_set_back_key_refuses(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    r = mem("remember", KEY, "6543", exit_code=13)
    _refused(r)
    assert "unchanged" not in r.stdout
    _newest_kept(mem)


def test_t17_forget_a_version_of_a_set_back_key_refuses(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    _refused(mem("forget", f"{KEY}@v1", "--yes", exit_code=13))
    mem("fsck", exit_code=13)
    _newest_kept(mem)


def test_t17_forget_match_on_a_set_back_key_refuses(mem, store_path, tmp_path):
    _set_back(mem, store_path, tmp_path)
    _refused(mem("forget", "--match", "6543", "--yes", exit_code=13))
    mem("fsck", exit_code=13)
    _newest_kept(mem)


def test_t7_seal_of_a_set_back_key_refuses(mem, store_path, tmp_path):
    pp = tmp_path / "pp"
    pp.write_text("correct horse pass set41\n")
    mem("vault", "init", "--passphrase-file", str(pp))
    _set_back(mem, store_path, tmp_path)
    _refused(mem("seal", KEY, exit_code=13))
    assert not (store_path / "refs" / "sealed" / KEY).exists()
    _newest_kept(mem)


def test_t7_unseal_of_a_set_back_sealed_key_refuses(mem, store_path, tmp_path):
    pp = tmp_path / "pp"
    pp.write_text("correct horse pass set41\n")
    mem("vault", "init", "--passphrase-file", str(pp))
    key = "user/pw"
    _set_back(mem, store_path, tmp_path, key, "sealed", ("hunter2-alpha", "hunter2-bravo", "hunter2-charlie"),
              ("--sensitivity", "secret"))
    _refused(mem("unseal", key, "--keep-credentials", "--passphrase-file", str(pp), exit_code=13))
    assert not (store_path / "refs" / "facts" / key).exists()
    mem("gc", "--prune=now", exit_code=None)
    mem("fsck", "--repair", exit_code=None)
    assert mem("sealed", "show", key, "--passphrase-file", str(pp)).stdout == "hunter2-charlie\n"


def test_t24_a_cut_last_reflog_line_naming_another_id_is_kept(mem, store_path, tmp_path):
    ref = store_path / "refs" / "facts" / KEY
    mem("remember", KEY, "5432")
    shutil.copy(ref, tmp_path / "old-ref")
    mem("remember", KEY, "6543")
    shutil.copy(tmp_path / "old-ref", ref)
    log = store_path / "logs" / "refs" / "facts" / KEY
    data = log.read_bytes()
    log.write_bytes(data[:-40])   # a partly synced reflog: its last line keeps the old id and 48 hex of the new
    r = mem("remember", KEY, "7777", exit_code=13)
    assert "cut short" in r.stderr and "nothing was written" in r.stderr, r.stderr
    assert log.read_bytes() == data[:-40]
    mem("remember", KEY, "5432", exit_code=13)   # nor "unchanged"


def test_a_crash_cut_line_naming_the_refs_own_id_is_still_dropped(mem, store_path):
    mem("remember", KEY, "5432")
    mem("remember", KEY, "6543")
    log = store_path / "logs" / "refs" / "facts" / KEY
    log.write_bytes(log.read_bytes()[:-20])   # a crash in the middle of the append: the ref moved first
    mem("remember", KEY, "7777")
    assert mem("get", KEY).stdout == "7777\n"


def test_a_set_back_ref_whose_reflog_is_only_packed_is_said_and_refused(mem, store_path, tmp_path):
    """ref40's limit: a fact ref whose reflog lines are only in
    ``logs/packed-facts`` (a bulk import's) got no check from readers or the
    writer: a write on it reused v3 and dropped the newest value."""
    _set_back(mem, store_path, tmp_path)
    log = store_path / "logs" / "refs" / "facts" / KEY
    lines = [ln.split(" ", 3) for ln in log.read_text().splitlines()]
    (store_path / "logs" / "packed-facts").write_text("".join(f"{o} {n} {t} {KEY}\t{c}\n" for o, n, t, c in lines))
    log.unlink()
    assert [e["command"] for e in mem("reflog", KEY, "--json").json][:1] == ["remember"]
    assert "was set back" in mem("get", KEY).stderr
    _refused(mem("remember", KEY, "9999", exit_code=13))
    _refused(mem("reinforce", KEY, exit_code=13))
    _newest_kept(mem)
