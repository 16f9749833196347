"""Session 22 (the flaky CI failure of ``test_forget_credentials_killed``):
a forget that rewrites a chain moves the ref first and writes its reflog
again after (``Store.update_ref(rewrite=True)``).  Killed between the two,
the reflog still named the old versions.  The next lock holder's recovery
saw the ref already moved and left that reflog alone; gc counts reflog
entries as roots, so it kept the old objects, and the credential (or the
``--match`` text) in them survived ``mem gc --prune=now`` for good.
Recovery now drops every entry of a touched ref's reflog that names an
object the forget deletes (``objstore.memory.recovery``).

A real ``mem forget`` (the console entry, in a child process) kills itself
with SIGKILL at that fixed point, so the test does not hang on timing; real
``mem`` processes finish and check what it left."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from objstore import remember, scan_store
from objstore.memory.appender import TurnAppender
from objstore.memory.opening import open_store
from objstore.memory.sessions import CapturedTurn

from tests.conftest import REPO, fact_chain

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
TOKEN = b"Q9w2E3r4T5y6U7i8"
CANARY = "Quolltrace-8812 Vermilion"
SID = "22222222-3333-4444-5555-666666666666"

# ``mem forget ARGS --yes``, SIGKILLed by itself once a chain's ref has moved and before its reflog is written again
_KILLED_FORGET = textwrap.dedent('''
    import os, signal, sys
    from objstore.core.reflog import Reflog
    ns = sys.argv[1]
    def die(real):
        def stop(self, ref, *a, **k):
            if ref.startswith(ns):
                os.kill(os.getpid(), signal.SIGKILL)
            return real(self, ref, *a, **k)
        return stop
    Reflog.replace = die(Reflog.replace)   # a fact chain rewritten: its reflog mapped to the new ids
    Reflog.drop = die(Reflog.drop)         # a session rewritten: its reflog replaced
    from cmds.entry import entry
    sys.argv = ["mem", "forget", *sys.argv[2:], "--yes"]
    entry()
''')


def _killed_forget(store_path, ns: str, *args: str) -> None:
    p = subprocess.run([sys.executable, "-c", _KILLED_FORGET, ns, *args], cwd=REPO, capture_output=True,
                       env={**os.environ, **PERSON, "MEM_HOME": str(store_path)}, timeout=120)
    assert p.returncode == -9, (p.returncode, p.stderr.decode()[-2000:])


def _reflog_ids(store_path, ref: str) -> set[str]:
    with open_store(store_path) as s:
        return {x for e in s.reflog.read(ref) for x in (e.old, e.new) if x}


def test_a_forget_credentials_killed_between_a_ref_and_its_reflog_leaves_no_credential(mem, store_path):
    keys = [f"project/demo/summary/s{i}" for i in range(3)]
    with open_store(store_path, create=True) as s:    # as a mem before session 18 stored them (a cut token)
        for i, key in enumerate(keys):
            remember(s, key, f"summary {i} " + "b" * 3000 + " ghp_Q9w2E3r4T5y6U7i8…", kind="summary")
    _killed_forget(store_path, "facts/", "--credentials")
    moved = [k for k in keys if "ghp_Q9w2" not in fact_chain(store_path, k)[0][2]]
    assert len(moved) == 1, moved                      # one ref moved, the kill before its reflog
    with open_store(store_path) as s:
        stale = {e.new for e in s.reflog.read(f"facts/{moved[0]}")}
    assert scan_store(store_path, [TOKEN])

    mem("remember", "project/demo/other", "a later write takes the lock and finishes the forget", env=PERSON)
    for key in keys:
        chain = fact_chain(store_path, key)
        assert [(v, f) for v, f, _b in chain] == [(1, False)], (key, chain)
        assert chain[0][2].endswith(" [REDACTED:github-token]…"), (key, chain)
        assert not _reflog_ids(store_path, f"facts/{key}") & stale, key   # no entry names a deleted version
    mem("gc", "--prune=now")
    assert scan_store(store_path, [TOKEN]) == []
    assert mem("fsck", "--json").json["ok"]


def test_a_forget_match_killed_between_a_session_ref_and_its_reflog_leaves_no_text(mem, store_path):
    texts = ["deploy the web app", f"the staging host is {CANARY} today", "ok, deployed", "thanks"]
    with open_store(store_path, create=True) as s:
        app = TurnAppender(s, command="import claude-code")
        with s.lock("import"):
            for i, text in enumerate(texts):
                app.add(CapturedTurn(session=SID, source=f"cc:{SID[:8]}-{i}", role="user" if i % 2 else "assistant",
                                     text=text, timestamp=1_772_000_000_000 + i, cwd="/home/u/demo", project="demo"))
            app.publish()
        app.close()
    mem("gc", "--prune=now")
    before = _reflog_ids(store_path, f"sessions/{SID}")
    assert before and scan_store(store_path, [CANARY.encode()])
    _killed_forget(store_path, "sessions/", "--match", CANARY)
    assert _reflog_ids(store_path, f"sessions/{SID}") == before     # the ref moved, its reflog not yet

    mem("remember", "project/demo/other", "a later write takes the lock and finishes the forget", env=PERSON)
    assert not _reflog_ids(store_path, f"sessions/{SID}") & before
    mem("gc", "--prune=now")
    assert scan_store(store_path, [CANARY.encode()]) == []
    assert scan_store(store_path, [b"Quolltrace-8812"]) == []
    assert "thanks" in mem("search", "thanks").stdout
    assert mem("fsck", "--json").json["ok"]
