"""A ``forget --match`` text that was, on the machine that ran it, only the
whole value of a fact it forgot is still hidden where another machine's
captured turn brings it back (test28b Z1b): A remembers the text as a fact,
B imports a session whose user turn holds it, A forgets it by ``--match``,
both push and pull; on A, ``mem search``, ``mem recall``, ``mem show`` and
the prompt hook serve that turn with ``[forgotten]`` in its place, as the
README's sentence on sessions another machine captured says.  A text under
8 characters (the shortest a forgotten value's text tombstone is) was read
as the value's by the older-mem rule and served in the clear.  Real ``mem``
processes on two stores and a folder remote."""

from __future__ import annotations

import json
import re

import pytest

from objstore import scan_store
from tests.hooks._util import hook_env, run_hook_done, store_as_it_was
from tests.retrieval._sessions import write_session

SID = "0e4d1c2a-5b6f-4a7e-8c9d-00000000a1b5"


def _two_machines(tmp_path, mem, text: str):
    """A holds ``text`` as a fact only, B its captured turn; A forgets it by --match; both synced."""
    a, b, r = tmp_path / "a", tmp_path / "b", tmp_path / "remote"
    r.mkdir()
    ea, eb = {"MEM_HOME": str(a), "MEM_AGENT": "0"}, {"MEM_HOME": str(b), "MEM_AGENT": "0"}
    mem("remember", "project/x/codename", text, env=ea)
    mem("remote", "add", "origin", str(r), env=ea)
    mem("push", env=ea)
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=eb)
    write_session(tmp_path / "projects" / "-home-dev-x", SID, 1,
                  [("user", f"the release named {text} ships Friday"), ("assistant", "Noted, Friday it is.")],
                  "/home/dev/x")
    mem("import", "claude-code", str(tmp_path / "projects"), env=eb)
    assert text in mem("search", "release Friday", env=eb).stdout   # B holds the turn as captured
    out = mem("forget", "--match", text, "--yes", env=ea)
    assert "forgot 1 fact version and 0 turns" in out.stdout, out.stdout
    mem("push", env=ea)
    mem("pull", env=eb)
    mem("push", env=eb)
    mem("pull", env=ea)
    return a, ea


def _hidden(out: str, text: str) -> None:
    assert "the release named [forgotten] ships Friday" in out, out
    assert not re.search(rf"\b{re.escape(text)}\b", out, re.IGNORECASE), out


@pytest.mark.parametrize("text", ["saffron-walrus-3390", "kx9-77q"], ids=["long", "under-8-chars"])
def test_a_match_text_only_a_fact_held_is_hidden_in_the_other_machines_turn(tmp_path, mem, text):
    a, ea = _two_machines(tmp_path, mem, text)
    _hidden(mem("search", "release Friday", env=ea).stdout, text)
    # session 36 (test36 T14): B's pull replaced the text in B's turn itself, so nothing holds it to find
    assert text not in mem("search", text, env=ea, exit_code=None).stdout
    _hidden(mem("recall", "release ships Friday", "--project", "x", env=ea).stdout, text)
    _hidden(mem("show", SID, env=ea).stdout, text)
    prompt = {"hook_event_name": "UserPromptSubmit", "session_id": "hook-z1b", "cwd": "/home/dev/x",
              "prompt": "which release ships Friday, the one named in the earlier session?"}
    rc, out, err, _s = run_hook_done(a, prompt, env=hook_env(a),
                                     reset=store_as_it_was(a, tmp_path / "a-copy"))
    assert rc == 0, err
    _hidden(json.loads(out)["hookSpecificOutput"]["additionalContext"], text)
    # the turn itself holds no byte of the text (before session 36 a second forget on A was needed)
    mem("gc", "--prune=now", env=ea)
    assert scan_store(a, [text.encode()]) == []


def test_a_short_match_text_still_travels_to_a_value_written_elsewhere(tmp_path, mem):
    """Z1's travel side for a text under 8 characters: B's value holding the
    text, written before the forget arrived, is forgotten at B's pull."""
    a, b, r = tmp_path / "a", tmp_path / "b", tmp_path / "remote"
    r.mkdir()
    ea, eb = {"MEM_HOME": str(a)}, {"MEM_HOME": str(b)}
    mem("remember", "project/x/codename", "kx9-77q", env=ea)
    mem("remote", "add", "origin", str(r), env=ea)
    mem("push", env=ea)
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=eb)
    mem("remember", "project/y/other", "ship the kx9-77q build on Monday", env=eb)
    mem("forget", "--match", "kx9-77q", "--yes", env=ea)
    mem("push", env=ea)
    out = mem("pull", env=eb)
    assert "1 value holding a text 'forget --match' forgot" in out.stdout, out.stdout
    assert mem("get", "project/y/other", env=eb, exit_code=None).exit_code != 0
