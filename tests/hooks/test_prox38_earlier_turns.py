"""Session 38 (lane prox38), test37b T7: a password typed in a prompt
*before* the prompt that names it one ("try Quartz-Lily-5521 as the login",
then "my password is Quartz-Lily-5521") stayed in the clear in that earlier
turn, searchable and served; a short PIN likewise ("try 7719 on the keypad
first", then "my pin is 7719").  Now the naming turn's value is withheld
from the session's recent earlier turns too (``objstore.memory.
sessionearlier``: the seal's rewrite of a stored turn).  Real hook
processes."""

from __future__ import annotations

import subprocess
import sys
import uuid

from objstore import scan_store
from tests.hooks._util import REPO, hook_env, turns, vault_project, wait_store_processes_gone

SV = "[REDACTED:sealed-value]"


def _users(home, sid: str) -> list[str]:
    wait_store_processes_gone(home)
    return [t[3] for t in sorted(turns(home)) if t[0] == sid and t[2] == "user"]


def test_a_password_named_later_is_withheld_from_the_sessions_earlier_turns(tmp_path):
    home, _cwd, prompt = vault_project(tmp_path)
    sid = str(uuid.uuid4())
    prompt("try Quartz-Lily-5521 as the login", sid)
    prompt("my password is Quartz-Lily-5521", sid)
    prompt("ok Quartz-Lily-5521 worked", sid)
    assert _users(home, sid) == [f"try {SV} as the login", "my password is [REDACTED:password-phrase]",
                                 f"ok {SV} worked"]
    other = str(uuid.uuid4())       # another session's words are not this session's to rewrite
    prompt("the room 4410 is not a password here", other)   # (not "the pin 4410 is …": a PIN since pin42)
    pin = str(uuid.uuid4())
    prompt("try 7719 on the keypad first", pin)
    prompt("my pin is 7719", pin)
    assert _users(home, pin)[0] == f"try {SV} on the keypad first", _users(home, pin)
    assert _users(home, other) == ["the room 4410 is not a password here"]
    subprocess.run([sys.executable, "-m", "cmds", "gc", "--prune=now"], env=hook_env(home), cwd=REPO, check=True,
                   capture_output=True, timeout=180)
    assert scan_store(home, [b"Quartz-Lily-5521"]) == []
    r = subprocess.run([sys.executable, "-m", "cmds", "search", "Quartz"], env=hook_env(home), cwd=REPO,
                       capture_output=True, text=True, timeout=180)
    assert "5521" not in r.stdout, r.stdout
