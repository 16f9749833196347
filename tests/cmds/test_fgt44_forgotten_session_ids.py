"""test43 T8: the tombstones of ``forget --session`` name the session by its
id (``session:<id>``, ``turn:<id>/…``); a later ``forget --match`` of a text
that id holds said "nothing matches", left the id in the tombstones (in
exports too), and ``scan`` sent the person back to ``forget --match`` (a
loop).  Worse, capture now stores that session under its hidden id, which
the old tombstones do not name: a re-import brought the forgotten session
back.  ``forget --match`` now names such tombstones by the hidden id
(``hiddenids.hide_forgotten_ids``).  Real ``mem`` processes."""

from __future__ import annotations

from tests.capture.test_sid43_hidden_session_ids import NAME, _sessions, _transcript
from tests.capture.test_txt42_text_rule_at_capture import _mem
from tests.hooks._util import hook_env

SID = "zephyrine-quillborough-cx1"


def test_forget_match_names_a_forgotten_sessions_tombstones_by_its_hidden_id(tmp_path):
    store = tmp_path / "store"
    env = {k: v for k, v in hook_env(store).items() if k != "MEM_AGENT"}
    _mem(env, "init")
    folder = tmp_path / "w" / "app"
    t = _transcript(folder, SID, str(folder))
    _mem(env, "import", "claude-code", str(t))
    _mem(env, "forget", "--session", SID, "--yes")
    r = _mem(env, "forget", "--match", NAME, "--yes")
    assert "named 2 tombstones of forgotten sessions by their hidden ids" in r.stdout, r.stdout
    _mem(env, "gc", "--prune=now")
    r = _mem(env, "scan", NAME, "--no-remotes", ok=(0, 1))
    assert "tombstone" not in r.stdout, r.stdout
    assert "forget --match" not in r.stdout.splitlines()[-1], r.stdout   # only the transcript's name is left
    out = tmp_path / "e.jsonl"
    _mem(env, "export", "-o", str(out))
    assert b"quillborough" not in out.read_bytes().lower()
    # the forgotten session stays forgotten when its transcript is read again (now under its hidden id)
    _mem(env, "import", "claude-code", str(t))
    assert _sessions(env) == []
    assert _mem(env, "fsck").stdout.startswith("ok")
    # a rerun finds nothing left to rename
    assert "named" not in _mem(env, "forget", "--match", NAME, "--yes").stdout
