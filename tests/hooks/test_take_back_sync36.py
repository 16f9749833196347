"""cue35's left-out: a "forget that" whose prompt hook did not store it (the
hook failed open: a loaded machine, a crash) reached the store through the
Stop hook's transcript sync, which took nothing back: the fact stayed
current in every later session block, and nobody was told.  Now the sync
takes back by the prompt hook's rule and the Stop hook tells the person
(``systemMessage``) as the prompt hook would have; ``mem import`` prints
the same lines.  Real ``mem hook`` and ``mem`` processes on real stores;
each test waits for the hook's detached children before it reads."""

from __future__ import annotations

import json

from tests.hooks._util import (line, payload, run_hook_done, store_as_it_was, user, wait_store_processes_gone)
from tests.hooks.test_remember_asked import _now_iso
from tests.hooks.test_remember_next_take_back import KEY, _current, _mem, _S, _transcript

DEPLOY = KEY.rsplit("/", 1)[0] + "/deploy-day"


def _unseen_forget_that(tmp_path, event: str, **kw) -> None:
    """A two-fact "remember that", then "forget that" whose prompt hook never
    ran (failed open): only the transcript has it, until ``event``'s hook
    syncs it; both facts are taken back and the person is told."""
    s = _S(tmp_path)
    s.prompt("remember that the db port is 5432 and the deploy day is Tuesday")
    s.stop("Noted.")
    s.n += 1
    with open(s.t, "ab") as f:
        f.write(line(user(f"u{s.n}", "forget that", s.sid, ts=_now_iso(), cwd=s.cwd)))
    rc, out, _err, _dt = run_hook_done(s.store, payload(event, s.sid, s.t, cwd=s.cwd, **kw),
                                       reset=store_as_it_was(s.store, tmp_path / "store-was"))
    assert rc == 0
    wait_store_processes_gone(s.store)
    assert _current(s.store) is None and _current(s.store, DEPLOY) is None   # base: both still current
    said = json.loads(out)["systemMessage"]
    assert f"Taken back as you asked: {KEY} is forgotten" in said and DEPLOY in said, said
    # the person is told; the agent's block names no forgotten value (test36b T15)
    told = json.loads(out).get("hookSpecificOutput", {}).get("additionalContext", "")
    assert "Taken back" not in told and "5432" not in told and "Tuesday" not in told, told


def test_a_take_back_only_the_stop_sync_sees_takes_back_and_says_so(tmp_path):
    _unseen_forget_that(tmp_path, "Stop", last_assistant_message="OK.")


def test_import_says_what_it_took_back(tmp_path):
    store = tmp_path / "store"
    t = _transcript(tmp_path / "s.jsonl", ["remember that the db port is 5432 and the deploy day is Tuesday",
                                           "forget that"])
    out = _mem(store, "import", "claude-code", str(t))
    assert f"Taken back as you asked: {KEY} is forgotten" in out, out
    assert f"Taken back as you asked: {DEPLOY} is forgotten" in out, out
    assert _current(store) is None and _current(store, DEPLOY) is None
    got = json.loads(_mem(tmp_path / "store2", "import", "claude-code", str(t), "--json"))
    assert got["taken_back"] == [{"key": KEY, "how": "forgotten"}, {"key": DEPLOY, "how": "forgotten"}], got


def test_a_take_back_a_session_start_sync_stores_is_taken_back_too(tmp_path):
    """The session resumed (SessionStart reads its transcript, as catch_up
    reads an earlier session's) after a "forget that" no hook stored; at
    the previous commit the inline forget met the hook's budget after the
    first key."""
    _unseen_forget_that(tmp_path, "SessionStart", source="resume")
