"""Key and ref-name validation, ref files, compare-and-swap."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from objstore.core.errors import CorruptObject, InvalidInput, RefConflict
from objstore.core.refs import Refs, fact_ref, validate_key, validate_session_id


@pytest.mark.parametrize("key", ["user/editor", "global/tz", "project/api/port", "project/api/db/host",
                                 "user/café", "project/日本/設定", "user/a b"])
def test_valid_keys(key):
    assert validate_key(key) == unicodedata.normalize("NFC", key)


@pytest.mark.parametrize("key", ["", "editor", "other/x", "project/api", "user/", "/user/x", "user//x",
                                 "user/../x", "user/./x", "user/x\n", "user/x\x00y", "user/a\\b",
                                 "user/.hidden", "user/x.lock", "user/ x", "user/x\ud83d", "project//x"])
def test_invalid_keys(key):
    with pytest.raises(InvalidInput):
        validate_key(key)


def test_nfc_makes_one_key():
    nfd = unicodedata.normalize("NFD", "user/café")
    assert nfd != "user/café"
    assert validate_key(nfd) == "user/café"


@given(st.text(max_size=40))
def test_validate_key_never_crashes_and_is_idempotent(s):
    try:
        k = validate_key(s)
    except InvalidInput:
        return
    assert validate_key(k) == k
    assert ".." not in k.split("/") and not k.startswith("/")


def test_key_and_longer_key_coexist(tmp_path):
    refs = Refs(tmp_path / "refs")
    a, b = "1" * 64, "2" * 64
    refs.set_if_equals(fact_ref("project/x/db"), None, a)
    refs.set_if_equals(fact_ref("project/x/db/host"), None, b)
    assert refs.read(fact_ref("project/x/db")) == a
    assert refs.read(fact_ref("project/x/db/host")) == b
    assert [n for n, _ in refs.iter("facts")] == ["facts/project/x/db", "facts/project/x/db/host"]


def test_cas(tmp_path):
    refs = Refs(tmp_path / "refs")
    a, b = "1" * 64, "2" * 64
    r = fact_ref("user/x")
    refs.set_if_equals(r, None, a)
    with pytest.raises(RefConflict):
        refs.set_if_equals(r, None, b)
    with pytest.raises(RefConflict):
        refs.set_if_equals(r, b, a)
    assert refs.read(r) == a
    refs.set_if_equals(r, a, None)
    assert refs.read(r) is None
    assert not list(tmp_path.rglob("*.lock"))


def test_stale_ref_lock_is_taken_over_and_garbage_ref_reported(tmp_path):
    refs = Refs(tmp_path / "refs")
    r = fact_ref("user/x")
    p = refs.path(r)
    p.parent.mkdir(parents=True)
    p.with_name(p.name + ".lock").write_text("junk")  # left by a killed process
    refs.set_if_equals(r, None, "3" * 64)
    assert refs.read(r) == "3" * 64
    p.write_text("not an id\n")
    with pytest.raises(CorruptObject):
        refs.read(r)


def test_session_ids():
    assert validate_session_id("03eb5929-52b3.agent-a1") == "03eb5929-52b3.agent-a1"
    for bad in ("", "a/b", "..", ".", "a\nb", " a", "a\u200bb", "x" * 201):
        with pytest.raises(InvalidInput):
            validate_session_id(bad)


@pytest.mark.parametrize("sid", ["abc.lock", ".hidden", "a@v2", "x@{1}", "a..b", "ABC.lock", "..x", "a.lock.lock"])
def test_session_ids_an_agent_may_give_are_stored_under_safe_file_names(tmp_path, sid):
    """Issue 21 (re-attack item 7): a session id ending in '.lock' was refused
    (its ref file would look like a lock file) and the hook dropped the session."""
    assert validate_session_id(sid) == sid
    refs = Refs(tmp_path)
    ref = f"sessions/{sid}"
    p = refs.path(ref)
    assert not p.name.startswith(".") and not p.name.endswith(".lock") and p.parent == tmp_path / "sessions"
    refs.set_if_equals(ref, None, "a" * 64)
    assert refs.read(ref) == "a" * 64 and refs.name_of(p) == ref
    assert list(refs.iter("sessions")) == [(ref, "a" * 64)]
    refs.set_if_equals(ref, "a" * 64, None)
    assert list(refs.iter("sessions")) == []
