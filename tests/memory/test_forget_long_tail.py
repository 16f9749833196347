"""Forgetting an early turn of a long session (test26 V17): the later turns
are written again (each names the one before it), into one pack as an
import writes them, not as loose objects; the preview and the result say
how many; a kill -9 at any moment leaves the store consistent.  Real
stores, real processes, no mocks."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from objstore.core.fsck import fsck
from objstore.core.objects import Turn
from objstore.memory.forget import forget, plan_forget, scan_store
from objstore.memory.forgetplan import later_turns
from objstore.memory.opening import open_store
from objstore.memory.rewrite import PACK_AT
from objstore.memory.sessions import walk_turns
from objstore.core.refs import session_ref
from objstore.retrieval.evaluate import write_sessions
from objstore.retrieval.search import search
from objstore.memory.tombstones import capture_filter

SID = "long-tail-session"


def _mark(i: int) -> str:
    return f"mk{i:05d}mk"


def _store(home: Path, n: int):
    """A store holding one session of ``n`` turns; turn i's text holds ``_mark(i)``."""
    s = open_store(home, create=True)
    turns = [Turn(session=SID, seq=0, role="user" if i % 2 == 0 else "assistant",
                  text=f"{_mark(i)} words of turn {i} pelican{i}x", timestamp=1_700_000_000_000 + i,
                  harness="test", cwd="/w/acme", project="acme", source=f"t:{i}", parent=None) for i in range(n)]
    write_sessions(s, [(SID, turns)])
    return s


def _loose(home: Path) -> list[Path]:
    return [p for p in (home / "objects").glob("??/*") if p.is_file()]


def _chain(s) -> list:
    return list(walk_turns(s, s.refs.read(session_ref(SID))))


def test_an_early_turn_of_a_long_session_is_forgotten_into_one_pack(tmp_path):
    n = PACK_AT + 200
    s = _store(tmp_path / "s", n)
    try:
        with s.lock("test"):
            plan = plan_forget(s, match=_mark(3))
            assert later_turns(s, plan) == n - 4      # every turn after #3
        packs = set((tmp_path / "s" / "objects" / "pack").glob("*.pack"))
        r = forget(s, match=_mark(3))
        assert r.later_turns == n - 4
        # the tail went into one new pack: nothing loose but the tombstones
        loose = _loose(tmp_path / "s")
        assert len(loose) == len(r.tombstones)
        assert len(set((tmp_path / "s" / "objects" / "pack").glob("*.pack")) - packs) >= 1
        chain = _chain(s)
        assert len(chain) == n
        gone = [tv for tv in chain if tv.turn.forgotten]
        assert [tv.turn.seq for tv in gone] == [3] and gone[0].turn.text == ""
        assert scan_store(tmp_path / "s", [_mark(3).encode()]) == []
        # the later turns are searchable under their new ids
        hits = search(s, f"pelican{n - 1}x", kinds=("turn",))
        assert hits and hits[0].id == chain[0].id
        assert fsck(s).ok
    finally:
        s.close()


def test_a_short_tail_stays_loose(tmp_path):
    s = _store(tmp_path / "s", 40)
    try:
        r = forget(s, match=_mark(30))
        assert r.later_turns == 9
        assert len(_loose(tmp_path / "s")) == len(r.tombstones) + 10   # the forgotten turn and the 9 after it
        assert fsck(s).ok
    finally:
        s.close()


def test_the_preview_and_the_result_say_how_many_later_turns(tmp_path):
    n = 300
    _store(tmp_path / "s", n).close()
    env = {"MEM_HOME": str(tmp_path / "s"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    run = [sys.executable, "-c", "import sys; from cmds.entry import entry; sys.exit(entry())", "forget",
           "--match", _mark(10)]
    dry = subprocess.run([*run, "--dry-run"], env=env, capture_output=True, text=True, check=True)
    assert f"would write {n - 11} later turns again" in dry.stdout
    done = subprocess.run([*run, "--yes"], env=env, capture_output=True, text=True, check=True)
    assert f"({n - 11} later turns written again)" in done.stdout


KILLER = r"""
import sys
from objstore.memory.forget import forget
from objstore.memory.opening import open_store
s = open_store(sys.argv[1])
print("go", flush=True)
forget(s, match=sys.argv[2])
print("done", flush=True)
"""


def test_kill_9_mid_forget_leaves_the_store_consistent(tmp_path):
    """Killed at random moments of a forget that rewrites ~1,500 turns into
    a pack: after the next lock holder's recovery, fsck is clean, the chain
    keeps every turn, and the turn is either still there whole with no
    tombstone naming it, or emptied and its text nowhere in the store.
    Running the forget again always ends with it gone and no temp file."""
    n = 1500
    seed = tmp_path / "seed"
    _store(seed, n).close()
    rnd = random.Random("long-tail-kill")
    outcomes = set()
    for k in range(6):
        home = tmp_path / f"k{k}"
        shutil.copytree(seed, home, symlinks=True)
        p = subprocess.Popen([sys.executable, "-c", KILLER, str(home), _mark(7)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        assert p.stdout.readline().strip() == "go"
        time.sleep(rnd.uniform(0.0, 1.2))
        p.send_signal(signal.SIGKILL)
        p.communicate()
        s = open_store(home, lock_timeout=5)
        try:
            with s.lock("check"):      # the recovery of a stopped forget runs here
                pass
            assert fsck(s).ok, fsck(s).problems
            chain = _chain(s)
            assert len(chain) == n
            seven = next(tv for tv in chain if tv.turn.seq == 7)
            # (a tombstone that forgets the turn, whatever its kind)
            tombstoned = capture_filter(s).turns.when(SID, seven.turn.source, seven.turn.text) is not None
            if seven.turn.forgotten:
                assert scan_store(home, [_mark(7).encode()]) == []
                outcomes.add("gone")
            else:
                assert _mark(7) in seven.turn.text and not tombstoned
                outcomes.add("kept")
            forget(s, match=_mark(7))
            assert scan_store(home, [_mark(7).encode()]) == []
            assert next(tv for tv in _chain(s) if tv.turn.seq == 7).turn.forgotten
            assert fsck(s).ok
            assert not list((home / "objects" / "pack").glob("tmp-*"))
        finally:
            s.close()
    assert outcomes   # (which of the two depends on the moments drawn)


KILLED_AT_INSTALL = r"""
import os, signal, sys
from objstore.core.packwriter import PackWriter
from objstore.memory.forget import forget
from objstore.memory.opening import open_store
def install(self):   # the tail's pack is durable, not yet in place: killed here
    os.kill(os.getpid(), signal.SIGKILL)
PackWriter.install = install
forget(open_store(sys.argv[1]), match=sys.argv[2])
"""


def test_killed_with_the_tail_pack_written_and_not_in_place(tmp_path):
    """The one moment a random kill rarely hits: every tombstone written,
    the tail's pack durable under its temp name, no ref moved.  The next
    lock holder finishes the forget, and the temp pack goes."""
    n = PACK_AT + 100
    home = tmp_path / "s"
    _store(home, n).close()
    p = subprocess.run([sys.executable, "-c", KILLED_AT_INSTALL, str(home), _mark(2)], capture_output=True)
    assert p.returncode == -signal.SIGKILL, p.stderr[-2000:]
    assert list((home / "objects" / "pack").glob("tmp-*"))   # the killed writer's pack and index
    s = open_store(home, lock_timeout=5)
    try:
        with s.lock("check"):
            pass
        assert s.journal.is_empty()
        chain = _chain(s)
        assert len(chain) == n and [tv.turn.seq for tv in chain if tv.turn.forgotten] == [2]
        assert scan_store(home, [_mark(2).encode()]) == []
        assert not list((home / "objects" / "pack").glob("tmp-*"))
        assert fsck(s).ok
    finally:
        s.close()
