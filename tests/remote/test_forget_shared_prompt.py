"""A session forget must not block later pushes when another session holds
an identical prompt (fgs10).  A prompt's stored source is its alias
``cc:p:<hash of text>:<n>``: text-derived, so two sessions can hold the same
one.  Its tombstone is scoped to its session (``turn:<session>/<source>``,
docs/format.md "Tombstone"): it forgets that session's turn only, in local
forget, capture and push/pull alike.  Real ``mem`` processes for forget,
push and pull; a folder remote."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from objstore import add_remote, clone, get_remote, pull, push, scan_store
from objstore.capture.importer import import_claude_code
from objstore.core.objects import Tombstone, value_digest
from objstore.memory.opening import open_store
from objstore.memory.sessions import walk_turns
from objstore.memory.tombstones import put_tombstone
from tests.conftest import REPO
from tests.hooks._util import asst, line, text, user

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
A = "5d1e6f0a-0000-4000-8000-0000000000a1"
B = "5d1e6f0a-0000-4000-8000-0000000000b2"
C = "5d1e6f0a-0000-4000-8000-0000000000c3"
SHARED = "[Request interrupted by user]"


def _mem(home: Path, *args: str, code: int = 0) -> subprocess.CompletedProcess:
    e = {**os.environ, "MEM_HOME": str(home), **PERSON}
    p = subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, env=e, cwd=REPO,
                       timeout=120)
    assert p.returncode == code, f"mem {' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p


def _session(d: Path, sid: str, tag: str) -> Path:
    """A transcript: the shared prompt, an answer, a prompt of its own, an answer."""
    d.mkdir(parents=True, exist_ok=True)
    recs = [user(f"{tag}-u1", SHARED, sid), asst(f"{tag}-a1", f"msg_{tag}1", [text(f"ok {tag}")], sid),
            user(f"{tag}-u2", f"the {tag} secret plan", sid), asst(f"{tag}-a2", f"msg_{tag}2", [text(f"noted {tag}")], sid)]
    for i, r in enumerate(recs):
        r["timestamp"] = f"2026-01-05T10:00:{i:02d}Z"
    (d / f"{sid}.jsonl").write_bytes(b"".join(line(r) for r in recs))
    return d / f"{sid}.jsonl"


def _texts(home: Path, sid: str) -> list[str]:
    with open_store(home) as s:
        head = s.refs.read(f"sessions/{sid}")
        return [] if head is None else [tv.turn.text for tv in reversed(list(walk_turns(s, head)))]


def _store_with_remote(tmp_path: Path, *files: Path) -> tuple[Path, Path]:
    home, remote = tmp_path / "A", tmp_path / "R"
    remote.mkdir()
    with open_store(home, create=True) as s:
        import_claude_code(s, list(files))
        push(s, add_remote(s, "origin", str(remote), encrypt=False))
    return home, remote


def test_session_forget_leaves_another_sessions_identical_prompt_and_push_works(tmp_path):
    proj = tmp_path / "claude" / "-home-u-proj"
    fa, fb = _session(proj, A, "a"), _session(proj, B, "b")
    home, remote = _store_with_remote(tmp_path, fa, fb)
    c, _res = clone(tmp_path / "B", str(remote), encrypt=False)
    c.close()
    assert _texts(tmp_path / "B", B)[0] == SHARED

    _mem(home, "forget", "--session", A, "--yes")
    _mem(home, "push")                                   # was: exit 13, "a tombstone forgets its value"
    assert _texts(home, A) == []
    assert _texts(home, B) == [SHARED, "ok b", "the b secret plan", "noted b"]
    _mem(tmp_path / "B", "pull")
    assert _texts(tmp_path / "B", A) == []
    assert _texts(tmp_path / "B", B) == [SHARED, "ok b", "the b secret plan", "noted b"]
    with open_store(tmp_path / "B") as c:
        push(c, get_remote(c, "origin"))                 # the clone's push is not refused either

    # A's file imported again stays forgotten; a third session with the same prompt keeps it
    fc = _session(proj, C, "c")
    with open_store(home) as s:
        import_claude_code(s, [fa, fc], reread=True)
    assert _texts(home, A) == []
    assert _texts(home, C) == [SHARED, "ok c", "the c secret plan", "noted c"]
    _mem(home, "push")
    with open_store(tmp_path / "B") as c:
        pull(c, get_remote(c, "origin"))
    assert _texts(tmp_path / "B", C) == [SHARED, "ok c", "the c secret plan", "noted c"]
    fresh, _res = clone(tmp_path / "C", str(remote), encrypt=False)   # and a clone made now
    fresh.close()
    assert _texts(tmp_path / "C", A) == [] and _texts(tmp_path / "C", B)[0] == SHARED
    for where in (home, tmp_path / "B", tmp_path / "C"):
        assert scan_store(where, [b"the a secret plan"]) == []


def test_push_refusal_says_the_forget_that_fixes_it(tmp_path):
    """A live turn a tombstone forgets (here: one an older mem wrote for a
    record id, put in by hand), sent again because a forget rewrites the
    remote bundle that holds it: push refuses with exit 13, naming the turn,
    and the command its hint gives makes the next push go through."""
    proj = tmp_path / "proj"
    home, _remote = _store_with_remote(tmp_path, _session(proj, A, "a"), _session(proj, B, "b"))
    with open_store(home) as s:
        with s.lock("test"):
            put_tombstone(s, Tombstone(key="cc:msg:msg_b1", value_sha256=value_digest("ok b"), time=1000))
        oid = next(tv.id for tv in walk_turns(s, s.refs.read(f"sessions/{B}")) if tv.turn.text == "ok b")
    _mem(home, "forget", "--session", A, "--yes")
    r = _mem(home, "push", code=13)
    assert f"refusing to push {oid} (turn 1 of session {B})" in r.stderr
    assert f"mem forget {oid} --yes" in r.stderr
    _mem(home, "forget", oid, "--yes")
    _mem(home, "push")
    assert _texts(home, B) == [SHARED, "", "the b secret plan", "noted b"]
