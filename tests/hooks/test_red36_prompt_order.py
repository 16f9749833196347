"""red36: the prompt hook's detached capture child of a prompt that runs
after the next prompt's child (seen once under load) wrote the next prompt
first, and the next-prompt password rule (``capture.sealedprompt``: a
password sent alone as the next prompt, or corrected in it) read the wrong
"previous" prompt: ``Beta#458q`` was stored in the clear.  Now each prompt
takes a ticket before the hook forks (``capture.promptorder``) and a
capture waits for the session's earlier prompts' captures: the turns are
written in the order the prompts were said, whichever child runs first.

The late child is forced, not hoped for: the first prompt's child is
stopped (SIGSTOP) while it waits for the store lock this test holds, the
second prompt's child runs (on the base it stores its prompt at once), and
only then is the first one let go.  Real hook processes, a real store."""

from __future__ import annotations

import os
import signal
import time
import uuid

import objstore
from tests.hooks._util import hook_env, mem_runner, payload, run_hook, store_processes, turns, \
    wait_store_processes_gone

PM = "[REDACTED:password-phrase]"


def _prompt(home, sid: str, text: str, cwd: str) -> None:
    rc, _out, err, _s = run_hook(home, payload("UserPromptSubmit", sid, None, cwd=cwd, prompt=text),
                                 env=hook_env(home), timeout=120)
    assert rc == 0, err


def _mine(home, sid: str) -> list[str]:
    return [t[3] for t in sorted(turns(home)) if t[0] == sid and t[2] == "user"]


def test_a_late_capture_child_of_a_password_prompt_is_still_read_before_the_next_prompt(tmp_path):
    home = tmp_path / "store"
    cwd = tmp_path / "dev" / "api"
    cwd.mkdir(parents=True)
    mem_runner(home)("init")
    sid = str(uuid.uuid4())
    with objstore.open_store(home) as s, s.lock("test: the first child waits"):
        _prompt(home, sid, "the db password is Alpha#123q", str(cwd))
        first = store_processes(home)
        assert len(first) == 1, first       # the first prompt's capture child, waiting for the lock
        os.kill(first[0], signal.SIGSTOP)
    try:
        _prompt(home, sid, "Beta#458q", str(cwd))
        # the base: the second child stores its prompt at once (wait for it); here it waits for the first's
        # ticket, which exists from the first hook on (bounded: a generous wait, no assert on time)
        tickets = home / "tmp" / "prompt-order"
        end = time.monotonic() + 120
        while not _mine(home, sid) and not (tickets.is_dir() and os.listdir(tickets)) and time.monotonic() < end:
            time.sleep(0.05)
    finally:
        os.kill(first[0], signal.SIGCONT)
    wait_store_processes_gone(home, timeout=180)
    got = _mine(home, sid)
    assert got == [f"the db password is {PM}", PM], got
    assert "Beta#458q" not in str(turns(home))
    assert os.listdir(tickets) == []        # every capture dropped its ticket


def test_prompts_of_one_session_in_a_row_are_stored_in_order_and_leave_no_ticket(tmp_path):
    """The common case: no child is late; the tickets cost nothing visible and none is left."""
    home = tmp_path / "store"
    cwd = tmp_path / "dev" / "api"
    cwd.mkdir(parents=True)
    mem_runner(home)("init")
    sid = str(uuid.uuid4())
    said = ["the db password is Alpha#123q", "whoops, it should be Beta#457q", "continue"]
    for text in said:
        _prompt(home, sid, text, str(cwd))
    wait_store_processes_gone(home, timeout=180)
    assert _mine(home, sid) == [f"the db password is {PM}", f"whoops, it should be {PM}", "continue"]
    assert os.listdir(home / "tmp" / "prompt-order") == []


def test_an_earlier_prompt_still_being_stored_holds_the_next_as_the_lock_would_and_a_stale_ticket_does_not(tmp_path):
    """A capture whose session has an earlier ticket left after its wait raises StoreLocked (the hook then
    hands the prompt to its child, which waits longer) and drops its own ticket; a ticket older than
    ``STALE_MS`` (its child is gone) is removed, not waited for."""
    from objstore.capture.promptorder import STALE_MS, take_ticket
    home = tmp_path / "store"
    mem_runner(home)("init")
    sid = str(uuid.uuid4())
    now = int(time.time() * 1000)
    earlier = take_ticket(home, sid, now - 1000)
    mine = take_ticket(home, sid, now)
    assert earlier and mine and earlier < mine
    with objstore.open_store(home, lock_timeout=0.2) as s:
        try:
            objstore.capture_prompt(s, session_id=sid, prompt="Beta#458q", time_ms=now, ticket=mine)
        except objstore.StoreLocked:
            pass
        else:
            raise AssertionError("stored before the session's earlier prompt")
    assert os.listdir(home / "tmp" / "prompt-order") == [earlier]   # its own dropped, the earlier kept
    assert _mine(home, sid) == []
    sid2 = str(uuid.uuid4())
    dead = take_ticket(home, sid2, now - STALE_MS - 60_000)   # a child killed long ago
    with objstore.open_store(home, lock_timeout=0.2) as s:
        r = objstore.capture_prompt(s, session_id=sid2, prompt="continue", time_ms=now,
                                    ticket=take_ticket(home, sid2, now))
    assert r.status == "captured" and _mine(home, sid2) == ["continue"]
    assert dead not in os.listdir(home / "tmp" / "prompt-order")
