"""test41 T34 and T25: on a store whose damage stops every write
(``logs/audit`` a folder, ``logs/refs`` a file, a damaged ``hash-key``), a
prompt "remember that …" was dropped with no word to the agent (the hook
failed open, stdout empty), the SessionStart block said nothing of capture
being stopped, and ``mem status --json`` had no field for it.  Now the
prompt hook answers "Not stored, though asked: <why>", the SessionStart
hook tells the agent (its block) and the person (``systemMessage``) that
capture is stopped, and ``status --json`` gives ``capture_stopped``.  The
hooks still exit 0.  Real ``mem hook claude-code`` processes on real damaged
stores."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.hooks._util import hook_env, run_hook

DAMAGE = ["logs/audit", "logs/refs", "hash-key"]


def _damage(store, what: str) -> None:
    p = store / what
    if what == "logs/audit":
        p.unlink()
        p.mkdir()
    elif what == "logs/refs":
        shutil.rmtree(p)
        p.write_text("junk\n")
    else:
        p.write_bytes(p.read_bytes()[:5])


def _hook(store, data: dict) -> dict:
    """The hook's JSON answer; run again (at most 5 times) while a loaded
    machine made it end at its budget with nothing said."""
    for _ in range(5):
        rc, out, err, _s = run_hook(store, data, env=hook_env(store))
        assert rc == 0, err
        if out.strip():
            return json.loads(out)
    return {}


@pytest.mark.parametrize("what", DAMAGE)
def test_a_store_that_takes_no_write_says_so_to_the_agent(mem, store_path, tmp_path, what):
    mem("remember", "user/editor", "vim")
    if what == "hash-key":
        mem("forget", "user/editor", "--yes")   # a forget makes the hash key
        mem("remember", "user/editor", "vim")
    _damage(store_path, what)
    cwd = str(tmp_path)
    r = mem("status", "--json")
    assert json.loads(r.stdout)["capture_stopped"], r.stdout
    assert "capture is stopped" in r.stderr
    ask = {"hook_event_name": "UserPromptSubmit", "session_id": "s-dmg", "cwd": cwd,
           "prompt": "remember that the cache ttl is 300 seconds"}
    said = _hook(store_path, ask)["hookSpecificOutput"]["additionalContext"]
    assert "Not stored, though asked:" in said and "mem doctor" in said, said
    assert "cache" not in mem("keys").stdout
    start = {"hook_event_name": "SessionStart", "session_id": "s-dmg2", "cwd": cwd, "source": "startup"}
    out = _hook(store_path, start)
    assert "capture is stopped" in out["hookSpecificOutput"]["additionalContext"], out
    assert "capture is stopped" in out["systemMessage"], out


def test_a_sound_store_says_nothing_of_it(mem, store_path, tmp_path):
    mem("remember", "user/editor", "vim")
    assert json.loads(mem("status", "--json").stdout)["capture_stopped"] is None
    out = _hook(store_path, {"hook_event_name": "SessionStart", "session_id": "s-ok", "cwd": str(tmp_path),
                             "source": "startup"})
    assert "capture is stopped" not in json.dumps(out) and "systemMessage" not in out, out
