"""Re-attack defect 1: live hook capture stores the turns in the order `mem import`
gives the same transcript (prompt, answer, prompt, answer), although the Stop hook
keeps back a trailing assistant message that may still be streaming."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.hooks._util import REPO, asst, hook_env, line, payload, run_hook_done, text, turns, user

SID = "0a1b2c3d-0000-4000-8000-0000000000ee"


# (each hook through run_hook_done: under load a hook can reach its budget and fail open, and the
# same event delivered again must leave the order as one run would)


def _order(store) -> list[str]:
    return [x for s, _q, _r, x, _src in sorted(turns(store), key=lambda r: r[1]) if s == SID]


@pytest.mark.parametrize("stop_text", [True, False], ids=["last-message", "old-agent"])
def test_hooks_store_each_answer_before_the_next_prompt(tmp_path, stop_text):
    store, t = tmp_path / "store", tmp_path / f"{SID}.jsonl"
    env = hook_env(store, MEM_HOOK_FORK="0")
    t.write_bytes(b"")
    recs = []
    for i in range(3):
        q, a = f"question {i}", f"answer {i}"
        assert run_hook_done(store, payload("UserPromptSubmit", SID, t, prompt=q), env=env)[0] == 0
        recs += [line(user(f"u{i}", q, SID)), line(asst(f"a{i}", f"m{i}", [text(a)], SID))]
        t.write_bytes(b"".join(recs))
        extra = {"last_assistant_message": a} if stop_text else {}
        assert run_hook_done(store, payload("Stop", SID, t, stop_hook_active=False, **extra), env=env)[0] == 0
    got = _order(store)
    if stop_text:       # the Stop hook knows the answer is whole: stored at once
        assert got == ["question 0", "answer 0", "question 1", "answer 1", "question 2", "answer 2"], got
    assert got[:5] == ["question 0", "answer 0", "question 1", "answer 1", "question 2"], got
    assert run_hook_done(store, payload("SessionEnd", SID, t, reason="other"), env=env)[0] == 0
    imported = tmp_path / "imported"
    p = subprocess.run([sys.executable, "-m", "cmds", "import", "claude-code", str(t)], env=hook_env(imported),
                       cwd=REPO, capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert _order(store) == _order(imported), (_order(store), _order(imported))


def test_a_prompt_typed_mid_answer_still_follows_the_answer(tmp_path):
    """No Stop between: the trailing message may still grow; it stays one turn, ahead
    of the prompt typed meanwhile (as the import gives it)."""
    store, t = tmp_path / "store", tmp_path / f"{SID}.jsonl"
    env = hook_env(store, MEM_HOOK_FORK="0")
    recs = [line(user("u0", "question 0", SID)), line(asst("a0", "m0", [text("part one")], SID))]
    t.write_bytes(b"".join(recs))
    assert run_hook_done(store, payload("UserPromptSubmit", SID, t, prompt="question 0"), env=env)[0] == 0
    assert run_hook_done(store, payload("UserPromptSubmit", SID, t, prompt="also this"), env=env)[0] == 0
    t.write_bytes(b"".join(recs + [line(user("u1", "also this", SID)),
                                   line(asst("a1", "m0", [text("part two")], SID))]))
    assert run_hook_done(store, payload("Stop", SID, t, last_assistant_message="part two"), env=env)[0] == 0
    assert run_hook_done(store, payload("SessionEnd", SID, t, reason="other"), env=env)[0] == 0
    got = _order(store)
    assert got.count("also this") == 1 and "part one\npart two" in got, got
