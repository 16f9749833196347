"""Turn tombstones: the one rule (``tombstones.TurnForgets``) that local
forget, capture and push/pull share (fgs10).  A text-derived source (a
prompt's alias ``cc:p:<hash>:<n>``) is scoped to its session; a record id
(``cc:msg:<id>``, ``cc:<uuid>``) names the record in any session, so a
resumed copy goes with it; tombstones of an older mem keep working."""

from __future__ import annotations

from pathlib import Path

import blake3
import pytest

from objstore import add_remote, clone, forget, get_remote, push, pull
from objstore.capture.claude_code import prompt_alias
from objstore.capture.promptscan import keyed_alias
from objstore.core.hashkey import store_key
from objstore.capture.importer import import_claude_code
from objstore.core.codec import encode
from objstore.core.objects import Tombstone, value_digest
from objstore.memory import forget as forget_mod
from objstore.memory.opening import open_store
from objstore.memory.sessions import walk_turns
from objstore.memory.tombstones import TurnForgets, capture_filter, put_tombstone, turn_target, turn_tombstone_key
from objstore.remote.fetch import forget_index
from tests.hooks._util import asst, line, text, user

A = "5d1e6f0a-0000-4000-8000-0000000000a1"
B = "5d1e6f0a-0000-4000-8000-0000000000b2"
C = "5d1e6f0a-0000-4000-8000-0000000000c3"
SHARED = "[Request interrupted by user]"


def _write(path: Path, *records: dict) -> Path:
    """A transcript of ``records``, one second apart (a merge orders turns by time)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for i, r in enumerate(records):
        r["timestamp"] = f"2026-01-05T10:00:{i:02d}Z"
    path.write_bytes(b"".join(line(r) for r in records))
    return path


def _session(d: Path, sid: str, tag: str) -> Path:
    return _write(d / f"{sid}.jsonl", user(f"{tag}-u1", SHARED, sid), asst(f"{tag}-a1", f"msg_{tag}1", [text(f"ok {tag}")], sid),
                  user(f"{tag}-u2", f"the {tag} plan", sid), asst(f"{tag}-a2", f"msg_{tag}2", [text(f"noted {tag}")], sid))


def _turns(store, sid: str) -> list[tuple[str, str, bool]]:
    head = store.refs.read(f"sessions/{sid}")
    return [] if head is None else [(t.turn.source, t.turn.text, bool(t.turn.forgotten))
                                    for t in reversed(list(walk_turns(store, head)))]


def _texts(store, sid: str) -> list[str]:
    return [x for _s, x, _f in _turns(store, sid)]


def _live_refused(store) -> list[tuple[str, str]]:
    """(session, text) of every live turn the store's tombstones forget, as push sees them."""
    fidx = forget_index(store)
    out = []
    for name, head in store.refs.iter("sessions"):
        out += [(tv.turn.session, tv.turn.text) for tv in walk_turns(store, head) if fidx.turn_time(tv.turn)]
    return out


def _stored_alias(store) -> str:
    """The shared prompt's first alias as this store stores it (keyed with its hash key: test34b T10)."""
    return keyed_alias(prompt_alias(SHARED, {}), store_key(store.root))


def test_the_documented_scoped_tombstone_frame():
    """docs/format.md "Turn tombstones": the worked example, byte for byte."""
    alias = prompt_alias(SHARED, {})
    key = turn_tombstone_key(A, alias)
    assert key == f"turn:{A}/cc:p:537b0a1dcbd6cd3aca54b52c:1"
    t = Tombstone(key=key, value_sha256=value_digest(SHARED), time=1772000000000, reason="forget")
    assert t.value_sha256.hex() == "e3b1f181e4b0c9b266074003cea304b5c171504396b312b122dc31c5d53b86a7"
    frame = encode(t)
    assert len(frame) == 161
    assert blake3.blake3(frame).hexdigest() == "df86bfc25674e5342a8cb264219c8c385a452392b9359fb218e108fa58046915"
    assert turn_target(t) == (A, alias)
    # record ids stay unscoped; every text-derived kind is scoped
    assert turn_tombstone_key(A, "cc:msg:msg_1") == "cc:msg:msg_1"
    assert turn_tombstone_key(A, "cc:0b6e-uuid:tool:0") == "cc:0b6e-uuid:tool:0"
    for src in ("cx:u:abc", "cx:a:abc:2", "px:thr:0:t0", "eval:3"):
        assert turn_tombstone_key(A, src) == f"turn:{A}/{src}"
    for key in ("session:x", "match:x", "user/k", "text", "turn:noslash"):
        assert turn_target(Tombstone(key=key, value_sha256=bytes(32), time=1)) is None


def test_the_rule_scoped_unscoped_and_older_tombstones():
    d = value_digest("yes")
    f = TurnForgets()
    assert not f and f.when(A, "cc:p:h:1", "yes") is None
    f.add(Tombstone(key=f"turn:{A}/cc:p:h:1", value_sha256=d, time=5))
    assert f.when(A, "cc:p:h:1", "yes") == 5 and f.when(A, "cc:p:h:1", " YES ") == 5   # normalized text
    assert f.when(B, "cc:p:h:1", "yes") is None                                        # another session
    assert f.when(A, "cc:p:h:2", "yes") is None and f.when(A, "cc:p:h:1", "no") is None
    assert f.when(A, "cc:p:h:1", "") is None                                           # emptied already
    f.add(Tombstone(key="cc:msg:m1", value_sha256=d, time=7))                          # a record id: anywhere
    assert f.when(B, "cc:msg:m1", "yes") == 7 and f.when(B, "cc:msg:m1", "other") is None
    # an older mem's unscoped alias tombstone: unscoped unless its forget was a session forget
    f.add(Tombstone(key="cc:p:g:1", value_sha256=d, time=9))
    assert f.when(C, "cc:p:g:1", "yes") == 9
    f.add(Tombstone(key="cc:p:k:1", value_sha256=d, time=11))
    assert f.when(C, "cc:p:k:1", "yes") == 11
    f.add(Tombstone(key=f"session:{A}", value_sha256=value_digest(A), time=11))        # its companion, read later
    assert f.when(C, "cc:p:k:1", "yes") is None and f.when(A, "cc:p:k:1", "yes") == 11
    f.add(Tombstone(key=f"session:{B}", value_sha256=value_digest(B), time=11, reason="other words"))
    assert f.when(B, "cc:p:k:1", "yes") is None                                        # another forget's reason
    assert f.when(C, "cc:p:g:1", "yes") == 9


def test_forget_of_one_prompt_is_scoped_in_capture_and_push(tmp_path):
    proj = tmp_path / "proj"
    fa, fb = _session(proj, A, "a"), _session(proj, B, "b")
    with open_store(tmp_path / "s", create=True) as s:
        import_claude_code(s, [fa, fb])
        oid = next(t.id for t in walk_turns(s, s.refs.read(f"sessions/{A}")) if t.turn.text == SHARED)
        r = forget(s, what=oid)
        assert r.plan.counts()["turns"] == 1
        assert _texts(s, A) == ["", "ok a", "the a plan", "noted a"]
        assert _texts(s, B)[0] == SHARED and _live_refused(s) == []
        fc = _session(proj, C, "c")
        import_claude_code(s, [fa, fc], reread=True)
        assert _texts(s, A)[0] == "" and _texts(s, C)[0] == SHARED
        stored = _stored_alias(s)
        assert capture_filter(s).forgets(A, (stored,), (SHARED,)) is not None
        assert capture_filter(s).forgets(C, (stored,), (SHARED,)) is None


def test_an_older_unscoped_prompt_tombstone_still_blanks_what_it_did(tmp_path):
    """A tombstone an older mem wrote for one prompt (its alias, no session):
    read as that mem meant it, in capture and push alike."""
    proj = tmp_path / "proj"
    fa = _session(proj, A, "a")
    with open_store(tmp_path / "s", create=True) as s:
        import_claude_code(s, [fa])
        put_tombstone(s, Tombstone(key=_stored_alias(s), value_sha256=value_digest(SHARED), time=1000))
        assert _live_refused(s) == [(A, SHARED)]        # as before: push refuses until it is forgotten here
        import_claude_code(s, [_session(proj, C, "c")])
        assert _texts(s, C)[0] == ""                    # capture blanks it in a new session, as before


def test_an_older_session_forget_no_longer_blocks_push(tmp_path, monkeypatch):
    """Tombstones an older mem's ``forget --session A`` wrote (the alias
    unscoped, with A's ``session:`` tombstone of the same time): B's
    identical prompt is not forgotten, and the push goes through."""
    proj = tmp_path / "proj"
    (tmp_path / "remote").mkdir()
    with open_store(tmp_path / "s", create=True) as s:
        import_claude_code(s, [_session(proj, A, "a"), _session(proj, B, "b")])
        spec = add_remote(s, "origin", str(tmp_path / "remote"), encrypt=False)
        monkeypatch.setattr(forget_mod, "turn_tombstone_key", lambda sid, source: source)   # the older key
        forget(s, session=A)
        monkeypatch.undo()
        assert any(t.key == _stored_alias(s) for t in forget_mod.all_tombstones(s))
        assert _live_refused(s) == []
        push(s, spec)
        assert _texts(s, B)[0] == SHARED
        import_claude_code(s, [_session(proj, C, "c")])
        assert _texts(s, C)[0] == SHARED


def test_a_resumed_copy_of_a_record_goes_with_its_session(tmp_path):
    """B copied A's records under their own ids (a resume that lineage did
    not drop: B's first answer is its own).  ``forget --session A`` empties
    B's copy of A's answer (a record id, same text) at once, so push has
    nothing to refuse and a pull gives the clone the same; B's copy of A's
    prompt (an alias: text, not record) and B's own turns stay."""
    proj = tmp_path / "proj"
    fa = _session(proj, A, "a")
    fb = _write(proj / f"{B}.jsonl", user("b-u0", "start over", B), asst("b-a0", "msg_b0", [text("sure")], B),
                user("a-u2", "the a plan", B), asst("a-a2", "msg_a2", [text("noted a")], B),
                user("b-u3", "and then", B), asst("b-a3", "msg_b3", [text("done b")], B))
    (tmp_path / "remote").mkdir()
    with open_store(tmp_path / "s", create=True) as s:
        import_claude_code(s, [fa, fb])
        assert _texts(s, B) == ["start over", "sure", "the a plan", "noted a", "and then", "done b"]
        spec = add_remote(s, "origin", str(tmp_path / "remote"), encrypt=False)
        push(s, spec)
        c, _res = clone(tmp_path / "c", str(tmp_path / "remote"), encrypt=False)
        r = forget(s, session=A)
        assert list(r.plan.turns) == [B] and [tv.turn.text for tv in r.plan.turns[B]] == ["noted a"]
        assert _texts(s, B) == ["start over", "sure", "the a plan", "", "and then", "done b"]
        assert _live_refused(s) == []
        push(s, spec)
        pull(c, get_remote(c, "origin"))
        assert _texts(c, B) == _texts(s, B) and _texts(c, A) == []
        c.close()
        import_claude_code(s, [fb], reread=True)            # capture agrees: the copy stays emptied
        assert _texts(s, B) == ["start over", "sure", "the a plan", "", "and then", "done b"]
