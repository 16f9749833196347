"""test43 T18: a session stored under its hidden id (its id holds a
forgotten ``--match`` text: ``memory.hiddenids``) could not be named by the
id the person knows: ``mem forget --session <raw id>`` said "no session"
(exit 4).  ``sessions.resolve_session`` maps a raw id through the same
keyed digest.  fresh43 F11: ``forget --session 717`` said "no session 717"
where ``mem show 717`` says the prefix is too short: both say so now.
Real ``mem`` processes on a real store."""

from __future__ import annotations

from tests.capture.test_sid43_hidden_session_ids import NAME, _sessions, _transcript
from tests.capture.test_txt42_text_rule_at_capture import _mem
from tests.hooks._util import hook_env

SID = "zephyrine-quillborough-cx1"


def test_a_hidden_session_is_named_by_its_raw_id(tmp_path):
    env = {k: v for k, v in hook_env(tmp_path / "store").items() if k != "MEM_AGENT"}
    _mem(env, "init")
    _mem(env, "forget", "--match", NAME, "--yes")
    folder = tmp_path / "w" / "app"
    _mem(env, "import", "claude-code", str(_transcript(folder, SID, str(folder))))
    (hidden,) = [s["id"] for s in _sessions(env)]
    assert hidden.startswith("hidden-")
    r = _mem(env, "show", SID)
    assert f"session {hidden}" in r.stdout and "check the build 0" in r.stdout, r.stdout
    r = _mem(env, "forget", "--session", SID, "--yes")
    assert "1 whole session" in r.stdout or "whole sessions: 1" in r.stdout, r.stdout
    assert _sessions(env) == []
    assert SID not in r.stdout + r.stderr   # (the hidden id is said, never the raw one)


def test_a_short_session_prefix_is_called_too_short_as_show_calls_it(tmp_path):
    env = {k: v for k, v in hook_env(tmp_path / "store").items() if k != "MEM_AGENT"}
    _mem(env, "init")
    f = _mem(env, "forget", "--session", "717", "--yes", ok=(4,))
    s = _mem(env, "show", "717", ok=(4,))
    assert "too short (at least 4 characters)" in f.stderr, f.stderr
    assert "too short (at least 4 characters)" in s.stderr, s.stderr
