"""A "remember that …" prompt is never lost, and never written twice.

Before, the prompt hook stored the prompt's turn, then took the store lock
again for the fact: a fact write that ran past the hook's 2 s budget (or
met a locked store where the hook cannot hand work to a detached child)
was lost, and the Stop hook's transcript sync, which stores the prompt's
turn, did not write the fact.  Now turn and fact are written under one
lock (the fact before the turn is published), and a sync that adds the
prompt's turn writes the fact it states, unless its key holds a value.

Slowness is injected deterministically: the test holds the turns index's
writer lock (old code: the fact write's lock acquisition replays the index
journal the prompt's turn left, and waits for that lock past the budget)
or the store lock (``lock_held``); no fixed sleeps.  Real ``mem hook``
processes throughout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from objstore import list_keys
from objstore.memory.facts import remember, versions
from objstore.memory.opening import open_store
from tests.hooks._util import asst, hook_env, hook_log, line, index_lock_held, lock_held, payload, run_hook, text, turns, user

SID = "0b1c2d3e-0000-4000-8000-0000000000b1"
PROMPT = "remember that the staging keys rotate on fridays"
SUFFIX = "/remembered/staging-keys-rotate"


def _start(tmp_path: Path, store: Path) -> Path:
    """A session with one finished exchange, captured by a Stop hook (which
    also creates the turns index); then the agent writes the new prompt."""
    t = tmp_path / "p" / f"{SID}.jsonl"
    t.parent.mkdir(parents=True)
    t.write_bytes(line(user("u0", "first task", SID)) + line(asst("a0", "msg_0", [text("finished 0")], SID)))
    rc, *_ = run_hook(store, payload("Stop", SID, t, last_assistant_message="finished 0"))
    assert rc == 0 and (store / "index" / "turns" / "LOCK").exists()
    with open(t, "ab") as f:
        f.write(line(user("u1", PROMPT, SID)))
    return t


def _stop(store: Path, t: Path, answer: str = "noted") -> None:
    with open(t, "ab") as f:
        f.write(line(asst(f"a-{answer}", f"msg_{answer}", [text(answer)], SID)))
    rc, *_ = run_hook(store, payload("Stop", SID, t, last_assistant_message=answer))
    assert rc == 0


def _fact(store: Path) -> tuple[str | None, list[str]]:
    """(the statement's key, the bodies of its versions, newest first)."""
    with open_store(store) as s:
        keys = [k for k, _h in list_keys(s) if k.endswith(SUFFIX)]
        assert len(keys) <= 1, keys
        if not keys:
            return None, []
        return keys[0], [v.fact.body for v in versions(s, keys[0])]


def _prompt_turns(store: Path) -> int:
    return sum(1 for x in turns(store) if x[3] == PROMPT)


def test_a_statement_whose_write_would_run_past_the_budget_is_written_with_its_turn(tmp_path):
    """Old code: the turn was stored, then the fact's lock acquisition
    replayed the index journal and waited for the index lock the test
    holds: HookTimeout at 2 s, fact lost, and the Stop sync (turn already
    stored) did not write it.  Now the fact is written with the turn."""
    store = tmp_path / "store"
    t = _start(tmp_path, store)
    with index_lock_held(store):
        rc, _out, _err, dt = run_hook(store, payload("UserPromptSubmit", SID, t, prompt=PROMPT))
        assert rc == 0 and dt < 30
        key, bodies = _fact(store)
        assert bodies == ["the staging keys rotate on fridays"], hook_log(store)
    _stop(store, t)
    assert _fact(store)[1] == ["the staging keys rotate on fridays"]     # once
    assert _prompt_turns(store) == 1


def test_a_statement_the_hook_could_not_write_is_written_by_the_stop_sync(tmp_path):
    """The store is locked while the prompt hook runs and no detached child
    can take the write (``MEM_HOOK_FORK=0``, as where fork does not exist):
    nothing is written then, and the Stop hook's sync, which stores the
    prompt's turn, writes its fact once.  Old code: the fact was lost."""
    store = tmp_path / "store"
    t = _start(tmp_path, store)
    env = hook_env(store, MEM_HOOK_FORK="0")
    with lock_held(store) as holder:
        rc, *_ = run_hook(store, payload("UserPromptSubmit", SID, t, prompt=PROMPT), env=env)
        assert rc == 0 and holder.poll() is None
    assert _fact(store) == (None, []) and _prompt_turns(store) == 0
    _stop(store, t)
    key, bodies = _fact(store)
    assert bodies == ["the staging keys rotate on fridays"], hook_log(store)
    assert _prompt_turns(store) == 1
    with open_store(store) as s:                       # it cites the prompt's turn
        v = versions(s, key)[0]
        assert v.fact.trust == "user_stated" and len(v.fact.sources) == 1
        assert s.get(v.fact.sources[0]).text == PROMPT
    _stop(store, t, "again")
    assert _fact(store)[1] == ["the staging keys rotate on fridays"]


def test_a_statement_written_by_the_hook_is_not_written_again(tmp_path):
    """The normal path: the hook writes turn and fact and confirms; a later
    Stop, a full re-read of the transcript (cursors deleted) and a value the
    person set since leave it alone: never a second write."""
    store = tmp_path / "store"
    t = _start(tmp_path, store)
    rc, out, _err, _dt = run_hook(store, payload("UserPromptSubmit", SID, t, prompt=PROMPT))
    assert rc == 0
    ctx = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "Remembered as you asked (user_stated)" in ctx and "rotate on fridays" in ctx
    key, bodies = _fact(store)
    assert bodies == ["the staging keys rotate on fridays"]
    _stop(store, t)
    assert _fact(store)[1] == bodies
    with open_store(store) as s:                       # the person changes it by hand
        remember(s, key, "the staging keys rotate on mondays")
    shutil.rmtree(store / "cache" / "cursors")         # the next sync reads the whole transcript again
    _stop(store, t, "again")
    assert _fact(store)[1] == ["the staging keys rotate on mondays", "the staging keys rotate on fridays"]
    assert _prompt_turns(store) == 1
