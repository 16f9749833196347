"""A prompt hook's turn is stored with its session ref, or not at all
(test33b T16).

Twelve concurrent "remember that …" prompt hooks on a loaded machine: one
took the store lock late, wrote its turn's object and its fact, and its
2 s budget ran out in the fact's index commit, before the session ref
moved.  The turn was stored with no ref naming it: ``mem fsck`` said
CORRUPT (exit 13, "ref sessions/…: missing, while 1 of its turns are
stored"), ``mem doctor`` said "ok: no problem found", and a later write
did not set it.  Now the turn, its fact and the session ref are written as
one step the budget does not split (``cmds._hookrun.BudgetHold``), the
fact's index commit comes after it, and a new session's ref is noted in
the index journal before it moves (the next lock holder sets it).

Slowness is made deterministically: the test holds the facts sub-index's
writer lock, so the fact's index commit waits past the hook's budget.
Real ``mem hook`` and ``mem`` processes, a real store."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from objstore.memory.facts import list_keys
from objstore.memory.opening import open_store
from tests.hooks._util import (REPO, hook_env, hook_log, index_lock_held, payload, run_hook, turns,
                               wait_store_processes_gone)

SID = "25252525-0000-4000-8000-000000000003"
PROMPT = "remember that the shared port is 7003. Actually, it's 7103"


def mem(store: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], env=hook_env(store), cwd=REPO,
                          capture_output=True, text=True, timeout=300)


def _store(tmp_path: Path) -> Path:
    store = tmp_path / "store"
    assert mem(store, "remember", "user/x", "y").returncode == 0     # the store and its facts sub-index
    assert (store / "index" / "facts" / "LOCK").exists()
    assert mem(store, "setup").returncode == 0    # the hooks installed: doctor's exit is the store's
    return store


def _sessions(store: Path) -> set[str]:
    return {t[0] for t in turns(store)}


def test_a_prompt_whose_fact_commit_outlasts_the_budget_keeps_its_turn_with_its_session_ref(tmp_path):
    """Old code: HookTimeout in the fact's index commit (the budget) left
    the turn's object with no session ref: fsck exit 13, doctor 'ok'."""
    store = _store(tmp_path)
    with index_lock_held(store, "facts"):
        t0 = time.monotonic()
        rc, _out, _err, dt = run_hook(store, payload("UserPromptSubmit", SID, tmp_path / "none.jsonl",
                                                     prompt=PROMPT))
        assert rc == 0
        wait_store_processes_gone(store)
        assert time.monotonic() - t0 < 120
    assert "HookTimeout" in hook_log(store)      # the budget ran out, as under T16's load
    fsck = mem(store, "fsck")
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    assert SID in _sessions(store)
    with open_store(store) as s:
        keys = [k for k, _h in list_keys(s) if "shared-port" in k]
    assert keys, keys      # the fact, written with its turn
    doctor = mem(store, "doctor")
    assert "missing" not in doctor.stdout + doctor.stderr


def test_the_next_write_sets_a_new_session_ref_its_writer_noted_before_it_was_stopped(tmp_path):
    """The prompt hook notes a new session's ref in the index journal
    before the ref moves (old code: only a pack writer did).  Its stop
    right after that note is made here by taking the ref and its one
    reflog line away again: fsck warns (never exit 13), and the next
    ``mem`` write's recovery sets the ref."""
    store = _store(tmp_path)
    rc, *_ = run_hook(store, payload("UserPromptSubmit", SID, tmp_path / "none.jsonl", prompt="hello there"),
                      env=hook_env(store, MEM_HOOK_FORK="0", MEM_NO_INJECT="1"))
    assert rc == 0 and SID in _sessions(store), hook_log(store)
    journal = (store / "index-journal").read_bytes()
    assert f"N\tsessions/{SID}\t".encode() in journal, journal     # noted before the ref moved
    ref = f"sessions/{SID}"
    with open_store(store) as s:
        head = s.refs.read(ref)
        s.refs.set_if_equals(ref, head, None)
        s.reflog.drop(ref)
    assert SID not in _sessions(store)
    fsck = mem(store, "fsck")
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr     # a warning: the next write sets it
    assert "not set yet" in fsck.stdout + fsck.stderr
    doctor = mem(store, "doctor")     # the same words, a warning
    assert f"warning: [refs] ref {ref}: not set yet" in doctor.stdout + doctor.stderr, doctor.stdout + doctor.stderr
    assert mem(store, "remember", "user/x", "z").returncode == 0
    with open_store(store) as s:
        assert s.refs.read(ref) == head
    assert mem(store, "fsck").returncode == 0


def test_doctor_reports_a_stored_turn_whose_session_ref_is_missing_as_fsck_does(tmp_path):
    """A turn stored with no ref naming it and no writer's note (what T16's
    stopped hook left): fsck exits 13, and doctor (old code: "ok: no
    problem found") names the same problem as an error."""
    store = _store(tmp_path)
    rc, *_ = run_hook(store, payload("UserPromptSubmit", SID, tmp_path / "none.jsonl", prompt="hello there"),
                      env=hook_env(store, MEM_HOOK_FORK="0", MEM_NO_INJECT="1"))
    assert rc == 0 and SID in _sessions(store), hook_log(store)
    ref = f"sessions/{SID}"
    with open_store(store) as s:
        s.refs.set_if_equals(ref, s.refs.read(ref), None)
        s.reflog.drop(ref)
        s.journal.clear()
    fsck = mem(store, "fsck")
    assert fsck.returncode == 13 and f"ref {ref}: missing, while 1 of its turns are stored" in fsck.stdout + \
        fsck.stderr, fsck.stdout + fsck.stderr
    doctor = mem(store, "doctor")
    said = doctor.stdout + doctor.stderr
    assert doctor.returncode == 1 and f"error: [refs] ref {ref}: missing, while 1 of its turns are stored" in said, said
    assert "fsck --repair" in said
    assert mem(store, "fsck", "--repair").returncode == 0
    doctor = mem(store, "doctor")
    assert ref not in doctor.stdout + doctor.stderr
