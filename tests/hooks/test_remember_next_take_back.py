"""Sessions 34-35: test34 T9 -- "forget that", "don't remember that",
"never mind, don't remember that", … as the prompt right after a "remember
that" were ignored: the fact stayed current in every later session block.
Session 34's take-back (lane cue34b) was reverted: test34b found it took
back the wrong thing (T1 T2 T3 T14 T16 T19 T20 T27 T28).  Now (lane cue35)
only the version the previous prompt itself filed is taken back, by
``mem forget``'s path (its value withheld in the turns, the version before
current again as it was), only on a wording that names the memory, and
``mem import`` reads the same rule.  Real ``mem hook`` and ``mem``
processes on real stores; each test waits for the hook's detached children
before it reads what they write."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from objstore.capture.retraction import retraction_of
from objstore.memory.facts import versions
from objstore.memory.opening import open_store
from tests.hooks._util import (REPO, asst, hook_env, line, payload, run_hook, run_hook_done, store_as_it_was, text,
                               tool_result, tool_use, turns, user, wait_store_processes_gone)
from tests.hooks.test_remember_asked import SID, _now_iso, _Session

#: the wordings that name the memory: they act
STRONG = ["forget that", "don't remember that", "never mind, don't remember that",
          "scratch that, don't save it", "undo that last remember", "please forget what I said about the db port",
          "No wait, don't save that.", "scratch that, don't remember the db port, it was wrong"]
#: wordings as often said of the agent's work (test34b T14): read, never acted on
WEAK = ["revert that", "undo that", "ignore that", "never mind, thanks!", "never mind", "scratch that",
        "Actually, forget it.", "ignore that, it was wrong", "disregard that", "nevermind"]
#: look-alikes: another subject, a task, something said besides
LOOK_ALIKES = ["forget the cache, focus on the db", "ignore the failing test",
               "scratch that idea about redis, let's use postgres", "forget it, let's do the api first",
               "please forget the old config file when migrating", "make the app forget that user after logout",
               "don't forget to run the tests", "ok", "thanks"]
KEY = "project/proj/remembered/db-port"


class _S(_Session):
    """:class:`_Session` with a working directory, and the prompt written to
    the transcript after its hook ran (``lag``: agent-formats §1.5, the
    transcript may lag) or before (the default)."""

    def __init__(self, tmp_path: Path, sid: str = SID, cwd: str = "/home/u/proj", store: Path | None = None) -> None:
        self.cwd, self.store, self.sid, self.n = cwd, store or tmp_path / "store", sid, 0
        self.t = tmp_path / "p" / f"{sid}.jsonl"
        self.t.parent.mkdir(parents=True, exist_ok=True)
        self.t.write_bytes(line(user("u0", "first task", sid, ts=_now_iso(), cwd=cwd))
                           + line(asst("a0", "msg_0", [text("finished 0")], sid, ts=_now_iso(), cwd=cwd)))
        self.stop("finished 0", write=False)

    def prompt(self, words: str, env: dict | None = None, lag: bool = False) -> str:
        self.n += 1
        rec = line(user(f"u{self.n}", words, self.sid, ts=_now_iso(), cwd=self.cwd))
        if not lag:
            with open(self.t, "ab") as f:
                f.write(rec)
        # (delivered again, the store as it was, when a loaded machine stopped it at its budget)
        reset = store_as_it_was(self.store, self.store.parent / "store-copy")
        rc, out, _err, _dt = run_hook_done(self.store, payload("UserPromptSubmit", self.sid, self.t, prompt=words,
                                                               cwd=self.cwd), env=env, reset=reset)
        if lag:
            with open(self.t, "ab") as f:
                f.write(rec)
        assert rc == 0
        wait_store_processes_gone(self.store)   # the take-back's forget runs in a detached child
        return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""

    def stop(self, answer: str = "noted", write: bool = True) -> None:
        super().stop(answer, write)
        wait_store_processes_gone(self.store)


def _mem(store: Path, *args: str, **extra: str) -> str:
    p = subprocess.run([sys.executable, "-m", "cmds", *args], env=hook_env(store, **extra), cwd=REPO,
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    return p.stdout


def _chain(store: Path, key: str = KEY) -> list:
    """The key's versions, newest first: (version, body, trust, forgotten)."""
    with open_store(store) as s:
        try:
            return [(v.fact.version, v.fact.body, v.fact.trust, bool(v.fact.forgotten)) for v in versions(s, key)]
        except Exception:   # noqa: BLE001 - no such key (forgotten whole)
            return []


def _current(store: Path, key: str = KEY) -> str | None:
    live = [body for _v, body, _t, gone in _chain(store, key) if not gone]
    return live[0] if live else None


def test_the_strong_wordings_act_the_weak_ones_never_and_the_look_alikes_are_none():
    for said in STRONG:
        r = retraction_of(said)
        assert r is not None and r.strong, said
    for said in WEAK:
        r = retraction_of(said)
        assert r is not None and not r.strong, said
    for said in LOOK_ALIKES:
        assert retraction_of(said) is None, said
    assert retraction_of("please forget what I said about the db port").subject == ("db", "port")


@pytest.mark.parametrize("said", STRONG[:5])
def test_a_retraction_as_the_next_prompt_takes_the_fact_back(tmp_path, said):
    """test34 T9."""
    s = _S(tmp_path)
    assert "Remembered as you asked" in s.prompt("remember that the db port is 5432")
    s.stop("Noted.")
    ctx = s.prompt(said)
    assert f"Taken back as you asked: {KEY} is forgotten" in ctx, ctx
    assert "mem remember" in ctx, ctx      # how to undo it
    assert s.remembered() == {}


def test_t1_a_take_back_after_the_key_moved_on_changes_nothing(tmp_path):
    """test34b T1: the user set 7777 by hand after "remember that … 5432":
    "forget that" must not bring 5432 back (nor drop 7777); the hook says
    how to forget by hand."""
    s = _S(tmp_path)
    s.prompt("remember that the db port is 5432")
    s.stop("Noted.")
    _mem(s.store, "remember", KEY, "the db port is 7777")
    ctx = s.prompt("forget that")
    assert "Not taken back" in ctx and f"mem forget {KEY}" in ctx, ctx
    assert [b for _v, b, _t, _g in _chain(s.store)] == ["the db port is 7777", "the db port is 5432"]


@pytest.mark.parametrize("lag", [False, True])
def test_t2_the_take_back_said_twice_takes_nothing_the_second_time(tmp_path, lag):
    """test34b T2, with the prompt written to the transcript before its hook
    and after it: the second "forget that" never brings 6543 back."""
    s = _S(tmp_path)
    s.prompt("remember that the db port is 5432", lag=lag)
    s.stop("Noted.")
    s.prompt("remember that the db port is 6543", lag=lag)
    s.stop("Noted.")
    first = s.prompt("forget that", lag=lag)
    s.stop("OK.")
    assert _current(s.store) == "the db port is 5432"
    again = s.prompt("forget that", lag=lag)
    s.stop("OK.")
    assert _current(s.store) == "the db port is 5432", _chain(s.store)
    assert "its earlier value is current again: the db port is 5432" in first, first
    assert "Taken back as you asked" not in again, again
    assert [t for _v, _b, t, _g in _chain(s.store)][-1] == "user_stated"


def test_t3_a_prompt_that_filed_no_version_takes_nothing_back(tmp_path):
    """test34b T3: the value was current before the prompt restated it."""
    s = _S(tmp_path)
    _mem(s.store, "remember", KEY, "the db port is 5432")
    s.prompt("remember that the db port is 5432")
    s.stop("Noted.")
    assert len(_chain(s.store)) == 1
    ctx = s.prompt("forget that")
    assert "Taken back as you asked" not in ctx, ctx
    assert _current(s.store) == "the db port is 5432"


@pytest.mark.parametrize("said", ["revert that", "undo that", "ignore that", "never mind, thanks!"])
def test_t14_work_wordings_never_forget_the_fact(tmp_path, said):
    """test34b T14: said of the agent's edit; the hook only names the forget."""
    s = _S(tmp_path)
    s.prompt("remember that the db port is 5432, and change config.yaml to use it")
    s.n += 1
    with open(s.t, "ab") as f:
        f.write(line(asst(f"a{s.n}", f"msg_{s.n}", [tool_use("e1", "Edit", file_path="/home/u/proj/config.yaml")],
                          s.sid, ts=_now_iso())))
        f.write(line(user(f"r{s.n}", [tool_result("e1", "The file config.yaml has been updated.")], s.sid,
                          ts=_now_iso())))
    s.stop("Noted the port, and config.yaml now uses 5432.")
    ctx = s.prompt(said)
    assert "Taken back as you asked" not in ctx and f"mem forget {KEY}" in ctx, ctx
    assert _current(s.store) == "the db port is 5432"


def test_t16_another_subject_named_takes_nothing_back(tmp_path):
    """test34b T16: "the db port" is not what "the db is on pg-3" was about."""
    s = _S(tmp_path)
    s.prompt("remember that the db is on pg-3")
    s.stop("Noted.")
    ctx = s.prompt("forget what I said about the db port")
    assert "Taken back" not in ctx, ctx
    assert [b[0] for b in s.remembered().values()] == ["the db is on pg-3"]


def test_t19_the_value_taken_back_is_withheld_in_the_stored_turns(tmp_path):
    """test34b T19: as ``mem forget KEY`` leaves them: not in the prompt, the
    reply quoting it, nor the reply after the take-back."""
    s = _S(tmp_path)
    s.prompt("remember that the release codename is kestrel-44-amber")
    s.stop("Noted: the release codename is kestrel-44-amber.")
    assert "Taken back as you asked" in s.prompt("forget that")
    s.stop("OK, I will not keep kestrel-44-amber as the release codename.")
    run_hook(s.store, payload("SessionEnd", s.sid, s.t, cwd=s.cwd))
    wait_store_processes_gone(s.store)
    _mem(s.store, "gc", "--prune=now")
    held = [x for x in turns(s.store) if "kestrel-44-amber" in x[3]]
    assert held == [], held
    assert "kestrel-44-amber" not in _mem(s.store, "search", "kestrel-44-amber")
    assert s.remembered() == {}


def test_t20_the_earlier_version_is_current_again_with_its_own_trust(tmp_path):
    """test34b T20: an agent's value is never promoted to the user's word."""
    s = _S(tmp_path)
    _mem(s.store, "remember", KEY, "the db port is 9999", MEM_AGENT="1")
    s.prompt("remember that the db port is 5432")
    s.stop("Noted.")
    assert "Taken back as you asked" in s.prompt("forget that")
    live = [(b, t) for _v, b, t, gone in _chain(s.store) if not gone]
    assert live == [("the db port is 9999", "agent_observed")], _chain(s.store)


def test_t27_the_project_is_the_one_the_statement_was_filed_under(tmp_path):
    """test34b T27: the session cd'd to another project between the two
    prompts: that project's same-named fact stays, this one goes."""
    b = _S(tmp_path / "b", sid="0b1c2d3e-0000-4000-8000-0000000035b1", cwd="/home/u/web", store=tmp_path / "store")
    b.prompt("remember that the db port is 6543")
    b.stop("Noted.")
    a = _S(tmp_path / "a", cwd="/home/u/proj", store=tmp_path / "store")
    a.prompt("remember that the db port is 5432")
    a.stop("Noted.")
    a.cwd = "/home/u/web"
    ctx = a.prompt("forget that")
    assert a.remembered() == {"project/web/remembered/db-port": ["the db port is 6543"]}
    assert f"Taken back as you asked: {KEY} is forgotten" in ctx, ctx


def _transcript(path: Path, prompts: list[str]) -> Path:
    with open(path, "wb") as f:
        for i, said in enumerate(prompts):
            f.write(line(user(f"u{i}", said, SID, ts=_now_iso(), cwd="/home/u/proj")))
            f.write(line(asst(f"a{i}", f"msg_{i}", [text("OK.")], SID, ts=_now_iso(), cwd="/home/u/proj")))
    return path


@pytest.mark.parametrize("said,kept", [("forget that", False), ("revert that", True)])
def test_t28_import_reads_the_take_back_by_the_same_rule(tmp_path, said, kept):
    """test34b T28: ``mem import claude-code FILE`` of a session whose next
    prompt took the "remember that" back."""
    store = tmp_path / "store"
    t = _transcript(tmp_path / f"{SID}.jsonl", ["remember that the db port is 5432", said])
    _mem(store, "import", "claude-code", str(t))
    assert (_current(store) == "the db port is 5432") is kept, _chain(store)


def test_a_take_back_delivered_again_takes_back_nothing_more(tmp_path):
    """test35b T7: after "remember that A and B" (two facts), the same
    "forget that" prompt's hook run a second time (a hook delivered again,
    the import's catch-up of the same transcript) read the rewritten prompt
    "remember that [forgotten] and B" and took B back a second time.  Now
    (fresh35 F6) the first run takes back both; the second finds nothing to
    take back and a value said again since stays."""
    s = _S(tmp_path)
    s.prompt("remember that the db port is 5432 and the deploy day is Tuesday")
    deploy = KEY.rsplit("/", 1)[0] + "/deploy-day"
    assert _current(s.store) == "the db port is 5432" and _current(s.store, deploy) == "the deploy day is Tuesday"
    s.prompt("forget that")
    assert _current(s.store) is None and _current(s.store, deploy) is None
    _mem(s.store, "remember", deploy, "the deploy day is Friday")
    rc, *_ = run_hook(s.store, payload("UserPromptSubmit", s.sid, s.t, prompt="forget that", cwd=s.cwd))
    assert rc == 0
    wait_store_processes_gone(s.store)
    assert _current(s.store, deploy) == "the deploy day is Friday"


def test_f6_forget_that_takes_back_every_fact_that_prompt_filed(tmp_path):
    """fresh35 F6: "remember that the db port is 5432 and the deploy day is
    Tuesday" files two keys; "forget that" took back only the first and its
    answer said nothing of the second, still stored.  Now each key that
    prompt filed is taken back (the one with an earlier version restored to
    it, with its own trust) and the answer names each."""
    s = _S(tmp_path)
    deploy = KEY.rsplit("/", 1)[0] + "/deploy-day"
    _mem(s.store, "remember", deploy, "the deploy day is Monday", MEM_AGENT="1")
    s.prompt("remember that the db port is 5432 and the deploy day is Tuesday")
    s.stop("Noted.")
    ctx = s.prompt("forget that")
    assert f"Taken back as you asked: {KEY} is forgotten" in ctx, ctx
    assert f"Taken back as you asked: {deploy}'s newest value is forgotten" in ctx, ctx
    assert "current again: the deploy day is Monday" in ctx, ctx
    assert _current(s.store) is None
    live = [(b, t) for _v, b, t, gone in _chain(s.store, deploy) if not gone]
    assert live == [("the deploy day is Monday", "agent_observed")], _chain(s.store, deploy)
    assert "5432" not in " ".join(x[3] for x in turns(s.store)) and "Tuesday" not in " ".join(
        x[3] for x in turns(s.store))


def test_f6_a_subject_named_takes_back_only_its_own_fact(tmp_path):
    """fresh35 F6 with T16's rule: "forget what I said about the deploy day"
    takes back the prompt's second fact only (base: nothing, as the first
    fact's key did not name the subject)."""
    s = _S(tmp_path)
    deploy = KEY.rsplit("/", 1)[0] + "/deploy-day"
    s.prompt("remember that the db port is 5432 and the deploy day is Tuesday")
    s.stop("Noted.")
    ctx = s.prompt("please forget what I said about the deploy day")
    assert f"Taken back as you asked: {deploy} is forgotten" in ctx and KEY not in ctx, ctx
    assert _current(s.store) == "the db port is 5432" and _current(s.store, deploy) is None
