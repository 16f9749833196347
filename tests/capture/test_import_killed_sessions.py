"""Session 22 (kil22, tester finding W8, the new-session half): a ``mem
import`` killed -9 after the pack of its turns could be read and before it
set the refs of the sessions that were new left stored turns that no ref
named: ``mem fsck`` reported ``ref sessions/<id>: missing, while N of its
turns are stored`` (exit 13) and the sessions were lost to recall until a
re-import.  ``TurnAppender.publish`` now finishes the pack without making
it readable, writes an ``N`` journal line for each new session's ref in the
append of its ``S`` lines, then makes the pack readable and moves the refs:
killed before that append nothing is readable (temp files: gc's), killed
after it ``mem fsck`` warns (exit 0) and the next holder of the store lock
sets those refs (``objstore.memory.recovery``).

A real ``mem import`` (the console entry, in a child process) kills itself
with SIGKILL at a fixed point, as ``test_import_killed_rollups.py`` does;
real ``mem`` processes check what it left, and that a re-import gives the
store an import that was not killed gives (``mem export``)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import REPO, gen_corpus, shared_hash_key

# ``mem import claude-code DIR``, SIGKILLed by itself at its N-th publish of turns
_KILLED_IMPORT = textwrap.dedent('''
    import os, signal, sys
    where, corpus, nth, roll = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    from objstore.capture import importer
    from objstore.memory.appender import TurnAppender
    importer.PACK_ROLL = roll            # a publish every `roll` turns: the later ones overlap an index batch
    calls = [0]
    def die():
        os.kill(os.getpid(), signal.SIGKILL)
    if where == "refs":      # the turns are stored, the new sessions' refs not yet set
        from objstore.core.store import Store
        moved = Store.update_refs
        def update_refs(self, moves, *a, **k):
            if any(ref.startswith("sessions/") and old is None for ref, old, _new in moves):
                calls[0] += 1
                if calls[0] == nth:
                    die()
            return moved(self, moves, *a, **k)
        Store.update_refs = update_refs
    else:                    # "wait": the publish waits for the previous batch of turns to be indexed
        waited = TurnAppender._wait_index
        def wait_index(self, **k):
            if self.dirty:   # inside publish (the import's own wait after it has nothing dirty)
                calls[0] += 1
                if calls[0] == nth:
                    die()
            return waited(self, **k)
        TurnAppender._wait_index = wait_index
    from cmds.entry import entry
    sys.argv = ["mem", "import", "claude-code", corpus]
    entry()
''')


@pytest.fixture
def corpus(tmp_path):
    return gen_corpus(tmp_path / "projects", "--sessions", "3", "--turns", "60", "--subagent-share", "0.5",
                      "--seed", "7")


def _killed_import(where: str, corpus, nth: int, roll: int) -> None:
    r = subprocess.run([sys.executable, "-c", _KILLED_IMPORT, where, str(corpus), str(nth), str(roll)], cwd=REPO,
                       timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True)
    assert r.returncode == -signal.SIGKILL, r.stderr[-2000:]


def _export(mem, env=None) -> set[str]:
    """The store's ``mem export``, each record as a line of sorted JSON, the
    times a fact version is written at (and so its id, and its ref's) left
    out: every turn, session ref and fact key, body and edges."""
    out = set()
    for line in mem("export", env=env).stdout.splitlines()[1:]:   # the first: the header, with its time
        rec = json.loads(line)
        if rec.get("object") == "fact":
            rec["id"] = None
            for f in ("valid_from", "recorded_at"):
                rec["fields"].pop(f, None)
        elif rec.get("ref", "").startswith("facts/"):
            rec["id"] = None
        out.add(json.dumps(rec, sort_keys=True))
    return out


def _sessions(view: set[str]) -> set[str]:
    return {json.loads(r)["ref"] for r in view if json.loads(r).get("ref", "").startswith("sessions/")}


def _whole(mem, corpus, tmp_path) -> set[str]:
    """What an import of ``corpus`` that was not killed, then the same
    ``remember``, store (:func:`_export`)."""
    env = {"MEM_HOME": str(tmp_path / "whole")}
    mem("init", env=env)
    shared_hash_key(env["MEM_HOME"])
    mem("import", "claude-code", str(corpus), env=env)
    mem("remember", "project/p/db", "postgres 16", env=env)
    return _export(mem, env)


# (where, the publish of turns killed, turns per publish): the first publish of an import that has one
# (a small one), and the second of one that publishes every 60 turns (its first batch being indexed)
@pytest.mark.parametrize("nth,roll", [(1, 20_000), (2, 60)])
def test_killed_between_the_turns_and_the_new_session_refs_the_next_write_sets_them(mem, store_path, corpus,
                                                                                    tmp_path, nth, roll):
    mem("init")
    shared_hash_key(store_path)
    _killed_import("refs", corpus, nth, roll)
    r = mem("fsck", exit_code=None)
    assert r.exit_code == 0, r.stdout                 # was exit 13: "missing, while 23 of its turns are stored"
    assert "not set yet" in r.stdout and "missing, while" not in r.stdout, r.stdout
    mem("remember", "project/p/db", "postgres 16")   # any write: the replay sets them
    got = _export(mem)
    whole = _whole(mem, corpus, tmp_path)
    new = sorted(_sessions(got))
    assert new and set(new) <= _sessions(whole)
    # each set as the import would have: the whole chain, with its reflog entry
    assert {r for r in got if '"object": "turn"' in r} <= whole
    assert {r for r in got if json.loads(r).get("ref", "").startswith("sessions/")} <= whole
    assert "recovery: set for a writer stopped" in mem("reflog", new[-1]).stdout
    assert mem("fsck").stdout.startswith("ok:")
    # and indexed: a turn of a session set so is found by its words
    sid = new[-1][len("sessions/"):]
    turn = max((json.loads(r)["fields"] for r in got if '"object": "turn"' in r
                and json.loads(r)["fields"]["session"] == sid), key=lambda f: len(f["text"]))
    words = [w for w in re.findall(r"[a-z]{4,}", turn["text"].lower())][:8]
    assert sid in {h["session"] for h in mem("search", *words, "--what", "turns", "--json").json}
    # the import run again finishes it: the store an import not killed writes
    mem("import", "claude-code", str(corpus))
    assert _export(mem) == whole
    assert mem("fsck").stdout.startswith("ok:")


@pytest.mark.parametrize("nth,roll", [(1, 20_000), (2, 60)])
def test_killed_while_a_publish_waits_for_the_index_leaves_no_turn_readable(mem, store_path, corpus, tmp_path,
                                                                           nth, roll):
    mem("init")
    shared_hash_key(store_path)
    before = _export(mem)
    _killed_import("wait", corpus, nth, roll)
    r = mem("fsck", exit_code=None)
    assert r.exit_code == 0 and "missing, while" not in r.stdout and "not set yet" not in r.stdout, r.stdout
    if nth == 1:   # nothing of this publish readable: no session, and no turn, comes from it
        assert _export(mem) == before
    mem("remember", "project/p/db", "postgres 16")
    mem("import", "claude-code", str(corpus))
    assert _export(mem) == _whole(mem, corpus, tmp_path)
    mem("gc")   # the killed writer's temp files
    assert mem("fsck").stdout.startswith("ok:")
