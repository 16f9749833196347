"""test18b V1: a rejected (or accepted) review-queue proposal keeps its
object in the item's reflog; ``mem forget --match TEXT`` planned only from
the open items, so it said "nothing matches" while ``mem scan`` found the
text and pointed at forget --match, and push sent it.  The plan now reads
every item the store holds a trace of."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.hooks._util import REPO

TEXT = "doctor is Ulla Brightwater"


def _mem(env: dict, *args: str, code: int | None = 0) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, cwd=REPO,
                       env={**os.environ, **env}, timeout=120)
    assert code is None or p.returncode == code, (args, p.returncode, p.stdout, p.stderr)
    return p


def _holders(store, needle: bytes) -> list[str]:
    return [f.relative_to(store).as_posix() for f in store.rglob("*") if f.is_file() and needle in f.read_bytes()]


def test_forget_match_removes_a_rejected_proposal(tmp_path):
    store = tmp_path / "store"
    env = {"MEM_HOME": str(store), "HOME": str(tmp_path)}
    _mem(env, "remember", "project/f/w", "original")
    p = _mem({**env, "MEM_AGENT": "claude"}, "remember", "project/f/w", TEXT, code=None)
    iid = next(w for w in (p.stdout + p.stderr).replace("'", " ").split() if len(w) >= 8
               and all(c in "0123456789abcdef" for c in w))
    _mem(env, "queue", "reject", iid)
    assert _mem(env, "queue", "list").stdout.count(TEXT) == 0
    out = _mem(env, "forget", "--match", "Ulla Brightwater", "--yes")
    assert "nothing matches" not in out.stdout + out.stderr, out.stdout + out.stderr
    _mem(env, "gc", "--prune=now")
    s = _mem(env, "scan", "Ulla Brightwater", "--no-remotes", code=None)
    assert "found nowhere" in s.stdout, s.stdout + s.stderr
    assert _holders(store, b"Brightwater") == []
    assert _mem(env, "get", "project/f/w").stdout.strip() == "original"
