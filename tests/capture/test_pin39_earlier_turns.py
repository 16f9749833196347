"""pin39 (prox38's limit, test37b T7): a password typed in one turn and named one in a later turn ("try
Quartz-Lily-5521 as the login", then "my password is Quartz-Lily-5521") was withheld from the later turns by the
Stop hook's transcript sync and by ``mem import`` (the session rule), but the earlier turn quoting it stayed in
the clear, as only the prompt hook and the proxy rewrote it (``memory/sessionearlier.py``).  Now both writers
rewrite the session's recent earlier turns too.  Real ``mem`` and hook processes on a real store."""

from __future__ import annotations

import subprocess
import sys
import uuid

from objstore import scan_store
from tests.hooks._util import REPO, asst, hook_env, line, payload, run_hook, text, turns, user, \
    wait_store_processes_gone

SV = "[REDACTED:sealed-value]"
PW = "Quartz-Lily-5521"


def _records(sid: str) -> list[dict]:
    return [user("u1", f"try {PW} as the login", sid=sid, ts="2026-01-05T10:00:00Z"),
            asst("a1", "m1", [text("ok, trying it")], sid=sid, ts="2026-01-05T10:00:01Z"),
            user("u2", f"my password is {PW}", sid=sid, ts="2026-01-05T10:00:05Z"),
            asst("a2", "m2", [text("noted")], sid=sid, ts="2026-01-05T10:00:06Z"),
            user("u3", "try 7719 on the keypad first", sid=sid, ts="2026-01-05T10:00:08Z"),
            asst("a3", "m3", [text("done")], sid=sid, ts="2026-01-05T10:00:09Z"),
            user("u4", "my pin is 7719", sid=sid, ts="2026-01-05T10:00:10Z"),
            asst("a4", "m4", [text("ok")], sid=sid, ts="2026-01-05T10:00:11Z")]


def _mem(home, *args):
    return subprocess.run([sys.executable, "-m", "cmds", *args], env=hook_env(home), cwd=REPO, check=True,
                          capture_output=True, text=True, timeout=180)


def _users(home, sid: str) -> list[str]:
    wait_store_processes_gone(home)
    return [t[3] for t in sorted(turns(home)) if t[0] == sid and t[2] == "user"]


def _no_value_left(home) -> None:
    _mem(home, "gc", "--prune=now")
    assert scan_store(home, [PW.encode()]) == []
    assert "5521" not in _mem(home, "search", "Quartz").stdout


def test_mem_import_withholds_a_password_named_later_from_the_earlier_turn(tmp_path):
    home, sid = tmp_path / "store", str(uuid.uuid4())
    _mem(home, "init")
    t = tmp_path / f"{sid}.jsonl"
    t.write_bytes(b"".join(line(r) for r in _records(sid)))
    _mem(home, "import", "claude-code", str(t))
    got = _users(home, sid)
    assert got[0] == f"try {SV} as the login" and got[2] == f"try {SV} on the keypad first", got
    _no_value_left(home)


def test_the_stop_hooks_sync_withholds_it_from_a_turn_an_earlier_stop_stored(tmp_path):
    home, sid = tmp_path / "store", str(uuid.uuid4())
    _mem(home, "init")
    t = tmp_path / f"{sid}.jsonl"
    recs = _records(sid)
    t.write_bytes(b"".join(line(r) for r in recs[:2]))
    assert run_hook(home, payload("Stop", sid, t))[0] == 0
    assert _users(home, sid) == [f"try {PW} as the login"]     # nothing names it yet
    t.write_bytes(b"".join(line(r) for r in recs))
    assert run_hook(home, payload("Stop", sid, t))[0] == 0
    got = _users(home, sid)
    assert got[0] == f"try {SV} as the login" and got[2] == f"try {SV} on the keypad first", got
    assert "7719" not in " ".join(got) and PW not in " ".join(got), got
    _no_value_left(home)
