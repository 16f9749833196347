"""``Refs.iter`` takes a packed name that escaping leaves as it is (but for
the ``%2F`` of a key's ``/``) as its ref's canonical line without
unescaping and escaping it again: what it lists is still exactly what
``read`` gives each ref, for names on either side of that shortcut
(escaped capitals, a ``/`` in a project's name, lower-case hex, a
non-canonical twin line, a loose file beside its line); the same list
as before the shortcut (checked against batch b953fd9c)."""

from __future__ import annotations

from objstore.core.refs import PACKED_FACTS, PACKED_SESSIONS, Refs

A, B, C, D, E = ("a" * 64, "b" * 64, "c" * 64, "d" * 64, "e" * 64)


def _check(refs: Refs, ns: str, want: list[tuple[str, str]]) -> None:
    listed = list(refs.iter(ns))
    assert listed == want
    assert all(refs.read(name) == oid for name, oid in listed)
    fresh = Refs(refs.root)   # read by the byte search, no table
    assert all(fresh.read(name) == oid for name, oid in listed)


def test_packed_sessions_listed_as_read(tmp_path):
    refs = Refs(tmp_path / "refs")
    refs.root.mkdir(parents=True)
    (refs.root / PACKED_SESSIONS).write_text(
        f"{A} s-1\n"                     # its own name
        f"{B} %41b\n"                    # "Ab": an escaped capital
        f"{C} %73\n"                     # "s" written with an escape it needs not: no ref
        f"{E} 0123-4567.agent-a1\n"      # no letter to lower: its own name
        f"{C} s-1\n")                    # a later line of a name wins
    (refs.root / "sessions").mkdir()
    (refs.root / "sessions" / "0123-4567.agent-a1").write_text(A + "\n")   # a loose file wins over its line
    _check(refs, "sessions", [("sessions/0123-4567.agent-a1", A), ("sessions/Ab", B), ("sessions/s-1", C)])


def test_packed_facts_listed_as_read(tmp_path):
    refs = Refs(tmp_path / "refs")
    refs.root.mkdir(parents=True)
    (refs.root / PACKED_FACTS).write_text(
        f"{A} project/web/summary%2Fs-1.agent-a2\n"   # a '/' in the key's name: canonical
        f"{B} project/a%2Fb/name\n"                   # a '/' in the project's name: a path no ref has
        f"{C} user/db%2fhost\n"                       # lower-case hex: not the line read gives
        f"{D} user/db%2Fhost\n"
        f"{E} global/%45ditor\n"                      # "Editor"
        f"{A} global/editor\n"
        f"{B} user/x%2F%2Fy\n")
    _check(refs, "facts", [("facts/global/Editor", E), ("facts/global/editor", A),
                           ("facts/project/web/summary/s-1.agent-a2", A),
                           ("facts/user/db/host", D), ("facts/user/x//y", B)])


def test_packed_name_shapes():
    """A packed line's name is a ref file's path: one segment for a session (checked without a split),
    ``user/``, ``global/`` or ``project/<p>/`` and a name for a key; no segment empty, hidden or a lock."""
    names = ["", ".", ".a", "a.lock", ".lock", "a", "x.lockx", "sess.agent-1", "é", "a/b", "/a", "user/", "user/a",
             "user//a", "user/a/b", "global/a.lock", "global/.a", "project/p", "project/p/a", "project/p/a/b"]
    ok = {"sessions": {"a", "x.lockx", "sess.agent-1", "é"}, "facts": {"user/a", "project/p/a"}}
    for ns, want in ok.items():
        assert {n for n in names if Refs._packed_name_ok(ns, n)} == want, ns
