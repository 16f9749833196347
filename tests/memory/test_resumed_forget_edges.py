"""test16b B4 (F6's remainder): a ``forget --match`` stopped after it
rewrote a session's turns and before it rewrote the summary whose
``rollup_of`` edges name them left edges to ids that are gone; the
recovery that finished it (any write: here ``mem push``) kept them, so the
push carried them to the remote and every clone.  The recovery now drops
them as ``fsck --repair`` does.  The forget is a real ``mem forget``
process that dies (``os._exit``) right after its first session rewrite."""

from __future__ import annotations

import os
import subprocess
import sys

from objstore.memory import facts
from objstore.memory.appender import TurnAppender
from objstore.memory.sessions import CapturedTurn

from tests.conftest import REPO

# the forget's process: mem forget, dying where F6's kill landed (the session's turns rewritten, the
# summaries citing them not yet)
_DIE = ("import os, sys, objstore.memory.forget as f\n"
        "f.drop_session_cache = lambda store, sid: os._exit(9)\n"
        "sys.argv = ['mem'] + sys.argv[1:]\n"
        "from cmds.entry import entry\n"
        "entry()\n")


def _store(store) -> None:
    app = TurnAppender(store, command="test")
    with store.lock("test"):
        ids = [app.add(CapturedTurn(session="sess-1", source=f"t:sess-1:{i}", role="assistant", text=t,
                                    timestamp=1_772_000_000_000 + i, cwd="", project="p"))
               for i, t in enumerate(["looked at SettlementCache", "it is slow", "fixed the batch size"])]
        app.publish()
    app.close()
    facts.remember(store, "project/p/summary/sess-1.agent-a", "the agent tuned the batch size",
                   edges=[("rollup_of", ids[1]), ("rollup_of", ids[2])])


def test_recovery_of_a_stopped_forget_drops_edges_a_push_would_carry(store, store_path, mem, tmp_path):
    _store(store)
    store.close()
    p = subprocess.run([sys.executable, "-c", _DIE, "forget", "--match", "SettlementCache", "--yes"],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 9, p.stderr
    (tmp_path / "rem").mkdir()
    mem("remote", "add", "r9", str(tmp_path / "rem"))
    mem("push")   # takes the lock: the recovery finishes the forget, then the push sends
    r = mem("fsck")
    assert "edge to" not in r.stdout + r.stderr, r.stdout + r.stderr
    assert "0 problems" in r.stdout
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"))
    mem("clone", str(tmp_path / "rem"), "--key", str(tmp_path / "k.key"), env={"MEM_HOME": str(tmp_path / "c")})
    r = mem("fsck", env={"MEM_HOME": str(tmp_path / "c")})
    assert "edge to" not in r.stdout + r.stderr, r.stdout + r.stderr
    assert mem("get", "project/p/summary/sess-1.agent-a").stdout.strip() == "the agent tuned the batch size"
    assert "SettlementCache" not in mem("show", "sess-1").stdout
