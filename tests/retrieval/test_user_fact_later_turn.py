"""A person's own later word on a ``user/`` fact (session 30, test29 P13;
``wordchange.user_word_changes``, ``factchange.updates_fact``, recall's
``_follow_forward``): ``user/editor`` "I use vim as my editor", then in a
Claude Code session of a project (a ``user/`` fact has none: it applies in
every one) the person says the editor changed.  Recall in that project puts
the turn first and marks the fact with it ("a later turn says"), and that
project's session block (``mem context``) puts the turn just above the
fact's line, marked "MAY BE OUT OF DATE"; the value is unchanged.  A question, a plan, a denial, the assistant's words, or a
turn that keeps the fact's word mark nothing.  Real ``mem`` processes on a
real transcript, as ``test_later_turn_wordings`` does."""

from __future__ import annotations

import time

import pytest

from tests.retrieval._sessions import prompt_hook
from tests.retrieval.test_fact_later_turn import CWD, _session

KEY, FACT = "user/editor", "I use vim as my editor"
QUESTION = "which editor do I use"

#: the person's later turns that mark the fact (test29 P13's wordings)
MARKS = [
    "I switched from vim to helix",
    "My editor is helix these days.",
    "I use helix now, not vim.",
    "I moved to helix as my editor.",
    "Dropped vim for helix.",
    "vim -> helix, finally.",
]

#: later turns that say nothing changed
KEEPS = [
    [("user", "Should I switch from vim to helix?")],            # asks
    [("user", "I might move from vim to helix next year.")],     # a plan
    [("user", "I won't drop vim for helix.")],                   # a denial
    [("user", "My editor is vim these days.")],                  # the fact's own word
    [("user", "helix -> vim, finally.")],                        # the other way round
    [("user", "My editor is slow these days.")],                 # how it is, not which (tl30b's left-out)
    [("user", "My editor is sluggish these days.")],
    [("user", "which editor do I use?"), ("assistant", "You switched from vim to helix.")],   # not the person's
]


def _import(mem, tmp_path, turns) -> None:
    mem("remember", KEY, FACT)
    _session(tmp_path / "tx", "cdcd0000-2222-3333-4444-555555555555", turns, int(time.time() * 1000) + 2000)
    mem("import", "claude-code", str(tmp_path / "tx"))


def _fact(hits: list[dict]) -> dict:
    return next(h for h in hits if h["kind"] == "fact" and h["key"] == KEY)


@pytest.mark.parametrize("said", MARKS, ids=range(len(MARKS)))
def test_the_persons_later_turn_marks_the_user_fact(mem, tmp_path, said):
    _import(mem, tmp_path, [("user", said)])
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    assert hits[0]["kind"] == "turn" and hits[0]["text"] == said, hits
    got = _fact(hits)
    assert got["updated_later"] and got["updated_later"]["text"] == said, hits
    block = mem("context", "--project", "billing").stdout.splitlines()   # the session block of that project
    at = next(i for i, x in enumerate(block) if x.startswith(f"- {KEY} ("))
    assert "MAY BE OUT OF DATE" in block[at] and block[at - 1].startswith("- later turn, session cdcd0000") \
        and block[at - 1].endswith(said), block
    assert mem("get", KEY).stdout.strip() == FACT   # a turn never changes the fact's value


@pytest.mark.parametrize("turns", KEEPS, ids=range(len(KEEPS)))
def test_a_turn_that_changes_nothing_leaves_the_user_fact_unmarked(mem, tmp_path, turns):
    _import(mem, tmp_path, turns)
    hits = mem("recall", QUESTION, "--project", "billing", "--json").json["hits"]
    got = _fact(hits)
    assert got["updated_later"] is None and hits[0] == got, hits
    assert "MAY BE OUT OF DATE" not in mem("context", "--project", "billing").stdout


@pytest.mark.parametrize("said", MARKS[:2], ids=range(2))
def test_the_prompt_hook_injects_the_user_fact_marked(mem, tmp_path, said):
    """tl30b's left-out: "which editor do I use?" names the key and asks
    nothing else, so the gate injects ``user/editor`` (one matched word,
    the key's whole name), marked by the person's later turn in that
    project, the turn just above it."""
    _import(mem, tmp_path, [("user", said)])
    text, _trace = prompt_hook(tmp_path / "store", "which editor do I use?", CWD, tmp_path / "trace.jsonl")
    lines = text.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith(f"- {KEY} ("))
    assert "MAY BE OUT OF DATE" in lines[at] and lines[at - 1].startswith("- later turn, session cdcd0000") \
        and lines[at - 1].endswith(said), text


def test_the_prompt_hook_injects_the_user_fact_for_its_name_alone(mem, tmp_path):
    """The same question with the fact alone: injected, unmarked; a prompt
    that says more than the key's name ("fix the editor config") is not."""
    mem("remember", KEY, FACT)
    text, _trace = prompt_hook(tmp_path / "store", "which editor do I use?", CWD, tmp_path / "trace.jsonl")
    assert f"- {KEY} (" in text and "MAY BE OUT OF DATE" not in text, text
    text, trace = prompt_hook(tmp_path / "store", "fix the editor config loading", CWD, tmp_path / "trace2.jsonl")
    assert KEY not in text and any(r.get("key") == KEY for r in trace["rejected"]), trace
