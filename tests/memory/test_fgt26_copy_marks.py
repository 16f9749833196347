"""fgt26 (test25b U6): ``forget`` finds the copies of a session's records
in other sessions through the marks of their sources in ``cache/turn-meta``
(``turnmeta.source_sessions``), which the import writes, instead of reading
every session's state (83 s of CPU at a million turns, where the import
writes no ``cache/session-state``).  The marks only narrow what is read:
a copy is found with them, with lines written before them, without the
cache, and after a session grew; a damaged marks field names its session."""

from __future__ import annotations

from pathlib import Path

from objstore import forget
from objstore.core.atomic import read_z
from objstore.capture.importer import import_claude_code
from objstore.memory import turnmeta
from objstore.memory.opening import open_store
from objstore.memory.sessions import walk_turns
from tests.hooks._util import asst, text, user
from tests.memory.test_turn_tombstones import A, B, C, _write


def _corpus(tmp_path: Path) -> list[Path]:
    """A; B, which copied A's second answer under its record id (a resume lineage did not drop); C, apart."""
    proj = tmp_path / "proj"
    fa = _write(proj / f"{A}.jsonl", user("a-u1", "hello", A), asst("a-a1", "msg_a1", [text("ok a")], A),
                user("a-u2", "the a plan", A), asst("a-a2", "msg_a2", [text("noted a")], A))
    fb = _write(proj / f"{B}.jsonl", user("b-u0", "start over", B), asst("b-a0", "msg_b0", [text("sure")], B),
                user("a-u2", "the a plan", B), asst("a-a2", "msg_a2", [text("noted a")], B))
    fc = _write(proj / f"{C}.jsonl", user("c-u0", "other work", C), asst("c-a0", "msg_c0", [text("fine")], C))
    return [fa, fb, fc]


def _texts(store, sid: str) -> list[str]:
    return [t.turn.text for t in reversed(list(walk_turns(store, store.refs.read(f"sessions/{sid}"))))]


def _lines(store) -> dict[str, list[str]]:
    raw = read_z(store.root / "cache" / turnmeta.META_FILE).decode("utf-8")   # turn-meta.z, or turn-meta
    return {ln.split("\t")[1].strip('"'): ln.split("\t") for ln in raw.splitlines()}


def _heads(store) -> dict[str, str]:
    return {n[len("sessions/"):]: h for n, h in store.refs.iter("sessions")}


def test_the_import_writes_marks_and_forget_finds_the_copy_through_them(tmp_path):
    with open_store(tmp_path / "s", create=True) as s:
        import_claude_code(s, _corpus(tmp_path))
        lines = _lines(s)
        assert set(lines) == {A, B, C} and all(len(v) == 4 for v in lines.values()), lines
        # B's line holds the mark of A's copied answer; C's does not
        copied = next(t.turn.source for t in walk_turns(s, s.refs.read(f"sessions/{A}")) if t.turn.text == "noted a")
        mark = turnmeta.source_mark(copied)
        assert len(mark) == turnmeta.MARK_HEX and mark in lines[B][3] and mark not in lines[C][3]
        assert turnmeta.source_sessions(s, _heads(s), [copied]) == {A, B}
        state = s.root / "cache" / "session-state"
        assert not state.exists() or not any(state.iterdir())     # the import wrote no state files
        r = forget(s, session=A)
        assert list(r.plan.turns) == [B] and [tv.turn.text for tv in r.plan.turns[B]] == ["noted a"]
        assert _texts(s, B) == ["start over", "sure", "the a plan", ""]
        assert not state.exists() or not any(state.iterdir())     # nor did the forget: it read no session's state


def _forget_finds_the_copy(s) -> None:
    r = forget(s, session=A)
    assert list(r.plan.turns) == [B] and [tv.turn.text for tv in r.plan.turns[B]] == ["noted a"]
    assert _texts(s, B) == ["start over", "sure", "the a plan", ""]


def test_lines_without_marks_or_no_cache_are_read_whole_and_get_them(tmp_path):
    for case in ("old lines", "no cache"):
        with open_store(tmp_path / case, create=True) as s:
            import_claude_code(s, _corpus(tmp_path))
            cache = s.root / "cache" / turnmeta.META_FILE
            if case == "old lines":     # as a mem before session 26 wrote them: three fields
                cache.write_text("".join("\t".join(v[:3]) + "\n" for v in _lines(s).values()), "utf-8")
            else:
                cache.with_name(cache.name + ".z").unlink()
            _forget_finds_the_copy(s)
            lines = _lines(s)   # C read whole, given its marks; A (gone) and B (rewritten) dropped by the forget
            assert list(lines) == [C] and len(lines[C]) == 4, lines


def test_a_session_that_grew_after_its_line_is_read_back_to_it(tmp_path):
    fa, fb, fc = _corpus(tmp_path)
    fb0 = _write(tmp_path / "early" / f"{B}.jsonl", user("b-u0", "start over", B),
                 asst("b-a0", "msg_b0", [text("sure")], B))
    with open_store(tmp_path / "s", create=True) as s:
        import_claude_code(s, [fa, fb0, fc])
        before = _lines(s)[B]
        old = dict(_lines(s))
        import_claude_code(s, [fb])                # B grows by the copy: its line is given the new head
        assert _lines(s)[B][0] != before[0]
        cache = s.root / "cache" / turnmeta.META_FILE
        old_b = "\t".join(old[B]) + "\n"           # put back B's line from before it grew: stale
        cache.write_text("".join(old_b if k == B else "\t".join(v) + "\n" for k, v in _lines(s).items()), "utf-8")
        _forget_finds_the_copy(s)


def test_a_damaged_marks_field_names_its_session(tmp_path):
    with open_store(tmp_path / "s", create=True) as s:
        import_claude_code(s, _corpus(tmp_path))
        cache = s.root / "cache" / turnmeta.META_FILE
        lines = _lines(s)
        lines[C][3] = lines[C][3][:-1] + "z"      # not hex
        cache.write_text("".join("\t".join(v) + "\n" for v in lines.values()), "utf-8")
        got = turnmeta.source_sessions(s, _heads(s), ["cc:no-such-record"])
        assert C in got and A not in got and B not in got
        _forget_finds_the_copy(s)
