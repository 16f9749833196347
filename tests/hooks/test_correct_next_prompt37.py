"""Session 37 (lane corr37): a correction said as the *next* prompt after a
"remember that" (test36 T4, test36b T2: "Actually, it's debian 12",
"Correction: debian 12", "no wait, debian 12, not ubuntu 22", "sorry, I
meant debian 12") was dropped silently: the old value stayed current and
was served unmarked.  Now the take-back reader (``capture.takeback``, one
for the prompt hook, the Stop/SessionStart sync and ``mem import``) writes
the corrected statement as the next version of the key the previous prompt
filed, and says so; a correction it cannot tie to a new value says "Not
stored … mem remember".  Also test36 T16: a "forget that" after mem's own
"Not taken back … say 'forget that'" (an "undo that") takes the statement
back.  Real ``mem hook`` and ``mem`` processes on real stores; each test
waits for the hook's detached children before it reads what they write."""

from __future__ import annotations

import json

import pytest

from tests.hooks._util import asst, line, payload, run_hook_done, text, wait_store_processes_gone
from tests.hooks.test_remember_asked import _now_iso
from tests.hooks.test_remember_next_take_back import _S, _chain, _current, _mem, _transcript

GPU = "project/proj/remembered/gpu-box-os"
#: the four wordings of test36 T4
FIXES = ["Actually, it's debian 12", "Correction: debian 12", "no wait, debian 12, not ubuntu 22",
         "sorry, I meant debian 12"]


def test_the_wordings_read_as_corrections_and_chat_does_not():
    from objstore.capture.retraction import correction_of, takes_back
    for said in FIXES:
        assert correction_of(said) is not None and takes_back(said).fix == said, said
    for said in ["ok", "remember that the gpu box os is debian 12",
                 "thanks", "fix the tests"]:
        r = takes_back(said)
        assert r is None or not r.fix, said


def _after_ubuntu(tmp_path, said: str, between=None):
    """A session: "remember that the gpu box os is ubuntu 22", answered, then
    (after ``between(store)``) ``said``: ``(session, said's context)``."""
    s = _S(tmp_path)
    s.prompt("remember that the gpu box os is ubuntu 22")
    s.stop("Noted.")
    if between is not None:
        between(s.store)
        wait_store_processes_gone(s.store)   # (anything the command left running, before the store is copied)
    return s, _told(s, s.prompt(said))


def _told(s, ctx: str) -> str:
    """What the person or agent was told of a prompt: its hook's context, or,
    when a loaded machine made the hook leave its turn to the transcript
    sync (it fails open: nothing said), the next Stop hook's
    ``systemMessage``, which takes back and says so by the same rule."""
    if ctx:
        return ctx
    s.n += 1
    with open(s.t, "ab") as f:
        f.write(line(asst(f"a{s.n}", f"msg_{s.n}", [text("OK.")], s.sid, ts=_now_iso())))
    _rc, out, _e, _dt = run_hook_done(s.store, payload("Stop", s.sid, s.t, last_assistant_message="OK."))
    wait_store_processes_gone(s.store)
    return json.loads(out).get("systemMessage", "") if out.strip() else ""


@pytest.mark.parametrize("said", FIXES)
def test_a_correction_as_the_next_prompt_is_the_keys_next_version(tmp_path, said):
    """test36 T4 / test36b T2."""
    s, ctx = _after_ubuntu(tmp_path, said)
    assert f"Corrected as you asked: {GPU} = the gpu box os is debian 12" in ctx, ctx
    s.stop("OK.")
    chain = _chain(s.store, GPU)
    assert [b for _v, b, _t, _g in chain] == ["the gpu box os is debian 12", "the gpu box os is ubuntu 22"], chain
    assert chain[0][2] == "user_stated"


def test_chat_after_a_remember_changes_nothing_and_says_nothing(tmp_path):
    s, ctx = _after_ubuntu(tmp_path, "Actually, it's fine")
    assert "Corrected" not in ctx and "Not stored" not in ctx, ctx
    assert _current(s.store, GPU) == "the gpu box os is ubuntu 22"


def test_a_correction_with_no_new_value_says_not_stored(tmp_path):
    s, ctx = _after_ubuntu(tmp_path, "Correction: hmm, let me check")
    assert "Not stored" in ctx and f"mem remember {GPU}" in ctx, ctx
    assert len(_chain(s.store, GPU)) == 1


@pytest.mark.parametrize("said", ["Actually, it's not ubuntu", "sorry, it isn't ubuntu 22"])
def test_a_denial_of_the_value_with_no_new_one_says_not_stored(tmp_path, said):
    """test37b T1: "Actually, it's not ruff" after "remember that the lint tool is ruff" was silent: the
    denied value stayed current, unmarked.  A softer take-back that denies the value says "Not stored"."""
    s, ctx = _after_ubuntu(tmp_path, said)
    assert "Not stored" in ctx and f"mem remember {GPU}" in ctx, ctx
    assert len(_chain(s.store, GPU)) == 1


def test_a_correction_after_the_key_moved_on_changes_nothing(tmp_path):
    s, ctx = _after_ubuntu(tmp_path, "Actually, it's debian 12",
                           lambda store: _mem(store, "remember", GPU, "the gpu box os is arch"))
    assert "Not corrected" in ctx, ctx
    assert _current(s.store, GPU) == "the gpu box os is arch"


def test_import_reads_the_correction_by_the_same_rule(tmp_path):
    """test36 T4, through ``mem import claude-code``."""
    store = tmp_path / "store"
    t = _transcript(tmp_path / "s.jsonl", ["remember that the gpu box os is ubuntu 22", "Actually, it's debian 12"])
    out = _mem(store, "import", "claude-code", str(t))
    assert _current(store, GPU) == "the gpu box os is debian 12", (_chain(store, GPU), out)
    assert "Corrected as you asked" in out, out


def test_t16_forget_that_after_undo_that_takes_the_statement_back(tmp_path):
    """test36 T16: mem answered "undo that" with "Not taken back … they can
    say 'forget that'"; that "forget that" did nothing."""
    s = _S(tmp_path)
    s.prompt("remember that the deploy day is Tuesday")
    s.stop("Noted.")
    key = "project/proj/remembered/deploy-day"
    s.prompt("undo that")   # (answered "Not taken back … they can say 'forget that'")
    s.stop("Which change should I undo?")
    ctx = _told(s, s.prompt("forget that"))
    assert f"Taken back as you asked: {key} is forgotten" in ctx, ctx
    assert _current(s.store, key) is None
    s.stop("OK.")
    assert "Taken back" not in s.prompt("forget that")   # (said twice: nothing the second time)


P = "project/proj/remembered/"


@pytest.mark.parametrize("said,stored", [
    ("remember that the api port is 8080 and the db port is 5432. Correction: 5433",
     {"api-port": "the api port is 8080", "db-port": "the db port is 5433"}),
    ("remember that the cache ttl is 60s and the queue is sqs. Scratch that, the queue is rabbitmq",
     {"cache-ttl": "the cache ttl is 60s", "queue": "the queue is rabbitmq"}),
    ("remember that the api port is 8080 and the db port is 5432. Actually, the db port is 5433",
     {"api-port": "the api port is 8080", "db-port": "the db port is 5433"}),
    ("remember that the api port is 8080 and the db port is 5432, sorry, I mean the api port is 9090",
     {"api-port": "the api port is 9090", "db-port": "the db port is 5432"}),
    ("remember that the db port is 5432 -- no wait, 5433", {"db-port": "the db port is 5433"}),
])
def test_t10_a_take_back_after_two_facts_corrects_the_one_it_names(tmp_path, said, stored):
    """test36 T10: the two-statement split and the take-back reader did not
    compose (nothing stored, the stale value, or the correction glued into
    the value); the ASCII "--" reads as the em dash."""
    s = _S(tmp_path)
    s.prompt(said)
    s.stop("Noted.")
    assert {k[len(P):]: v[0] for k, v in s.remembered().items()} == stored


def test_t17_a_statement_about_the_person_is_their_user_keys_next_version(tmp_path):
    """test36 T17: "remember that my timezone is X" was filed under the
    project; the person's ``user/timezone`` stayed current everywhere else."""
    s = _S(tmp_path)
    _mem(s.store, "remember", "user/timezone", "Europe/Lisbon")
    wait_store_processes_gone(s.store)
    s.prompt("remember that my timezone is America/New_York")
    s.stop("Noted.")
    assert [b for _v, b, _t, _g in _chain(s.store, "user/timezone")] == ["America/New_York",   # (test37b T19.5:
                                                                         "Europe/Lisbon"]   # the value alone, as held)
    assert not [k for k in s.remembered() if k.endswith("/timezone")]
    s.prompt("remember that my shell is fish")   # (no user key of that name: the project's, as before)
    assert "project/proj/remembered/shell" in s.remembered()
