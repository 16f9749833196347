"""Session 22 (test22 X2, the part the recovery fix left): a store that
already holds a reflog entry naming an object a tombstone forgets (left by
an older mem's recovery of a killed forget) kept that object for good: gc
counts reflog entries as roots, and ``mem fsck`` said ok.  Now fsck reports
it (a problem: exit 13), and ``mem fsck --repair`` (or ``mem forget
--credentials`` run again, for an old text it redacted) drops the entry,
so gc deletes the object.

The state is built as such a recovery left it: the forget done, then the
old object put back and a reflog entry naming it appended; real ``mem``
processes check and repair it."""

from __future__ import annotations

import pytest

from objstore import remember, scan_store
from objstore.core.refs import fact_ref
from objstore.memory.opening import open_store

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}


def _put_back(store_path, key: str, old) -> None:
    """The old version stored again and named by its key's reflog, as an
    older mem's recovery left it."""
    with open_store(store_path) as s, s.lock("test"):
        assert s.put(old.fact) == old.id
        s.reflog.append(fact_ref(key), None, old.id, 1, "recovery (an older mem)")


def _repaired_clean(mem, store_path, key: str, needle: bytes, current: str) -> None:
    """``mem fsck --repair`` drops the one entry, fsck passes, gc deletes
    what it kept, and the key's current value is as it was."""
    r = mem("fsck", "--repair")
    assert f"dropped 1 entry of the reflog of facts/{key}" in r.stdout, r.stdout
    mem("fsck")
    mem("gc", "--prune=now")
    assert not scan_store(store_path, [needle])
    assert mem("get", key).stdout.strip() == current


def _versions(store_path, key: str):
    from objstore.memory.facts import walk
    with open_store(store_path) as s:
        return list(walk(s, s.refs.read(fact_ref(key))))


def test_fsck_reports_and_repair_drops_a_reflog_entry_naming_a_forgotten_version(mem, store_path):
    key = "project/p/a"
    with open_store(store_path, create=True) as s:
        remember(s, key, "heron velvet seven quillwort")
        remember(s, key, "a later value that stays")
    old = _versions(store_path, key)[-1]           # v1, oldest last
    mem("forget", "--match", "heron velvet seven quillwort", "--yes", env=PERSON)
    _put_back(store_path, key, old)

    r = mem("fsck", exit_code=13)
    assert f"reflog entry names {old.id}, a version of {key} that a tombstone forgets" in r.stdout, r.stdout
    mem("gc", "--prune=now")
    assert scan_store(store_path, [b"quillwort"])  # the reflog entry keeps it

    _repaired_clean(mem, store_path, key, b"quillwort", "a later value that stays")


def test_forget_credentials_again_drops_a_reflog_entry_naming_an_old_text_it_redacted(mem, store_path):
    key = "project/p/summary"
    with open_store(store_path, create=True) as s:   # a cut token, as a mem before session 18 stored it
        remember(s, key, "summary " + "b" * 3000 + " ghp_Q9w2E3r4T5y6U7i8\u2026", kind="summary")
    old = _versions(store_path, key)[0]
    mem("forget", "--credentials", "--yes", env=PERSON)
    _put_back(store_path, key, old)
    assert "nothing holds" not in mem("fsck", exit_code=13).stdout

    r = mem("forget", "--credentials", "--yes", env=PERSON)
    assert "dropped 1 reflog entry" in r.stderr, r.stderr
    mem("fsck")
    mem("gc", "--prune=now")
    assert not scan_store(store_path, [b"ghp_Q9w2E3r4T5y6U7i8"])


def test_a_reflog_that_cannot_be_read_is_reported_by_fsck_not_a_traceback(mem, store_path):
    # the check reads every reflog: a damaged one is fsck's damage to report (it stopped fsck before it)
    import os
    with open_store(store_path, create=True) as s:   # as a mem before session 18 stored it: a cut token
        remember(s, "project/demo/summary/s1", "summary " + "b" * 3000 + " ghp_Q9w2E3r4T5y6U7i8…", kind="summary")
    os.mkfifo(store_path / "logs/packed-facts")
    out = mem("fsck", exit_code=13, timeout=60).stdout
    assert "logs/packed-facts (not a regular file)" in out, out
    r = mem("forget", "--credentials", "--yes", env=PERSON, exit_code=13, timeout=60)   # nothing half-done
    assert "'mem fsck --repair' sets it aside" in r.stderr and "Traceback" not in r.stderr, r.stderr
    # the stopped forget's recovery cannot read that reflog either: the repair sets it aside all the same
    mem("fsck", "--repair", timeout=60)
    assert not (store_path / "logs/packed-facts").exists()
    mem("forget", "--credentials", "--yes", env=PERSON, timeout=60)   # (the next lock's recovery finishes it)
    mem("gc", "--prune=now")
    assert scan_store(store_path, [b"Q9w2E3r4T5y6U7i8"]) == []
    assert mem("fsck", "--json").json["ok"]


def test_a_reflog_entry_that_keeps_a_forgotten_version_through_its_parents_is_reported_and_dropped(mem, store_path):
    # (session 23, Y1) an older mem's recovery of a killed 'forget --credentials' left only the entry
    # 'old v2 -> old v3': both clean, but old v2's parent is the old v1 holding the token; gc kept it
    key = "project/p/summary"
    with open_store(store_path, create=True) as s:   # a cut token, as a mem before session 18 stored it
        remember(s, key, "summary " + "b" * 3000 + " ghp_Q9w2E3r4T5y6U7i8\u2026", kind="summary")
        remember(s, key, "a second value, clean", kind="summary")
        remember(s, key, "a third value, clean", kind="summary")
    v3, v2, v1 = _versions(store_path, key)
    mem("forget", "--credentials", "--yes", env=PERSON)
    assert {v.id for v in _versions(store_path, key)}.isdisjoint({v1.id, v2.id, v3.id})   # rewritten
    with open_store(store_path) as s, s.lock("test"):
        for old in (v1, v2, v3):
            assert s.put(old.fact) == old.id
        s.reflog.append(fact_ref(key), v2.id, v3.id, 1, "recovery (an older mem)")
    mem("gc", "--prune=now")
    assert scan_store(store_path, [b"ghp_Q9w2E3r4T5y6U7i8"])   # the entry keeps v1 through v2's parent
    r = mem("scan", "ghp_Q9w2E3r4T5y6U7i8", "--no-remotes", exit_code=1)   # its advice: the repair, not a forget
    assert f"1 object only a reflog entry keeps ({v1.id[:12]}): 'mem fsck --repair'" in r.stderr, r.stderr
    assert "forget --match" not in r.stderr, r.stderr

    r = mem("fsck", exit_code=13)
    assert f"reflog entries name {', '.join(sorted([v2.id, v3.id]))}, whose parents lead to {v1.id}, a version " \
           f"of {key} that a tombstone forgets" in r.stdout, r.stdout
    _repaired_clean(mem, store_path, key, b"ghp_Q9w2E3r4T5y6U7i8", "a third value, clean")


@pytest.mark.parametrize("through_parents", [False, True])
def test_repair_drops_the_entry_from_another_keys_reflog_where_fsck_found_it(mem, store_path, through_parents):
    # (session 23, V7) the entry was in the reflog of project/p/other, not of the key whose forgotten
    # version it keeps: fsck said "'mem fsck --repair' drops the entry", the repair said "nothing to
    # repair" and the text stayed in the pack; both now use the reflogs the entry is in
    key, other = "project/p/a", "project/p/other"
    with open_store(store_path, create=True) as s:
        remember(s, key, "heron velvet seven quillwort")
        for i in range(2, 5):
            remember(s, key, f"clean value {i}")
        remember(s, other, "a value that stays")
    v4, v3, v2, v1 = _versions(store_path, key)
    mem("forget", "--match", "heron velvet seven quillwort", "--yes", env=PERSON)
    with open_store(store_path) as s, s.lock("test"):
        for old in (v1, v2, v3, v4):
            assert s.put(old.fact) == old.id
        s.reflog.append(fact_ref(other), v3.id if through_parents else None, v4.id if through_parents else v1.id,
                        1, "recovery (an older mem)")
    mem("gc", "--prune=now")
    assert scan_store(store_path, [b"quillwort"])
    assert "'mem fsck --repair' drops the entry" in mem("fsck", exit_code=13).stdout

    r = mem("fsck", "--repair")
    assert f"dropped 1 entry of the reflog of facts/{other}" in r.stdout, r.stdout
    mem("fsck")
    mem("gc", "--prune=now")
    assert not scan_store(store_path, [b"quillwort"])
    assert mem("get", key).stdout.strip() == "clean value 4"
    assert mem("get", other).stdout.strip() == "a value that stays"


def test_forget_credentials_again_drops_an_entry_that_keeps_the_old_text_through_its_parents(mem, store_path):
    # (session 24, mend24) the parent form above, left by an older mem's recovery of a killed
    # 'forget --credentials': running the same forget again (nothing left to redact) dropped only
    # an entry that names the old text, never 'old v2 -> old v3' whose parents lead to it
    key = "project/p/summary"
    with open_store(store_path, create=True) as s:   # a cut token, as a mem before session 18 stored it
        remember(s, key, "summary " + "b" * 3000 + " ghp_Q9w2E3r4T5y6U7i8\u2026", kind="summary")
        remember(s, key, "a second value, clean", kind="summary")
        remember(s, key, "a third value, clean", kind="summary")
    v3, v2, v1 = _versions(store_path, key)
    mem("forget", "--credentials", "--yes", env=PERSON)
    with open_store(store_path) as s, s.lock("test"):
        for old in (v1, v2, v3):
            assert s.put(old.fact) == old.id
        s.reflog.append(fact_ref(key), v2.id, v3.id, 1, "recovery (an older mem)")

    r = mem("forget", "--credentials", "--yes", env=PERSON)
    assert "dropped 1 reflog entry" in r.stderr, r.stderr
    mem("fsck")
    mem("gc", "--prune=now")
    assert not scan_store(store_path, [b"ghp_Q9w2E3r4T5y6U7i8"])
    assert mem("get", key).stdout.strip() == "a third value, clean"


def test_forget_credentials_drops_such_an_entry_while_it_redacts_another_value(mem, store_path):
    # the same entry, in the reflog of a third key, met by a run that has something else to redact
    # (the second drop path; the redacted key's own reflog is written anew by its rewrite)
    key, other, third = "project/p/summary", "project/p/notes", "project/p/third"
    with open_store(store_path, create=True) as s:
        remember(s, third, "a value that stays")
        remember(s, key, "summary " + "b" * 3000 + " ghp_Q9w2E3r4T5y6U7i8\u2026", kind="summary")
        remember(s, key, "a second value, clean", kind="summary")
        remember(s, key, "a third value, clean", kind="summary")
    v3, v2, v1 = _versions(store_path, key)
    mem("forget", "--credentials", "--yes", env=PERSON)
    with open_store(store_path) as s, s.lock("test"):
        for old in (v1, v2, v3):
            assert s.put(old.fact) == old.id
        s.reflog.append(fact_ref(third), v2.id, v3.id, 1, "recovery (an older mem)")
        remember(s, other, "summary " + "c" * 3000 + " ghp_Z8x7C6v5B4n3M2l1\u2026", kind="summary")

    mem("forget", "--credentials", "--yes", env=PERSON)
    mem("fsck")
    mem("gc", "--prune=now")
    assert not scan_store(store_path, [b"ghp_Q9w2E3r4T5y6U7i8"])
    assert not scan_store(store_path, [b"ghp_Z8x7C6v5B4n3M2l1"])
    assert mem("get", third).stdout.strip() == "a value that stays"


@pytest.mark.parametrize("through_parents", [False, True])
def test_a_plain_forget_leaves_no_reflog_entry_that_keeps_what_it_forgot(mem, store_path, through_parents):
    # (session 24, mend24: checked, not a gap) entries in another key's reflog naming the versions
    # a 'forget --match' then forgets or rewrites: the forget deletes every one of them at once,
    # so no entry, whatever its parents, keeps the text; fsck says nothing keeps it
    key, other = "project/p/a", "project/p/other"
    with open_store(store_path, create=True) as s:
        remember(s, key, "heron velvet seven quillwort")
        for i in range(2, 5):
            remember(s, key, f"clean value {i}")
        remember(s, other, "a value that stays")
    v4, v3, v2, v1 = _versions(store_path, key)
    with open_store(store_path) as s, s.lock("test"):
        s.reflog.append(fact_ref(other), v3.id if through_parents else None, v4.id if through_parents else v1.id,
                        1, "an entry naming another key's versions")
    mem("forget", "--match", "heron velvet seven quillwort", "--yes", env=PERSON)
    mem("gc", "--prune=now")
    assert not scan_store(store_path, [b"quillwort"])
    assert mem("fsck", "--json").json["ok"]
