"""red37: a password or PIN of fewer than 8 characters the capture withheld from a turn ('the wifi password is
Qx7-k2', 'my pin is 4471') was not carried to the session's later turns (the session rules kept values of 8+
characters only), so the agent's next reply quoting it was stored in the clear.  Now a short value of one word
with a digit or a symbol (4-7 characters) is withheld in its own session's later turns, as a whole word; another
session (of the same project too) keeps the same characters as typed (a short value would withhold ordinary
words there).  Real ``mem import`` processes."""

from __future__ import annotations

from objstore import scan_store
from tests.hooks._util import asst, hook_env, line, text, user
from tests.hooks.test_seal_later_turns import _mem

SID = "37373737-1111-4222-8333-444444444444"
OTHER = "37373737-5555-4666-8777-888888888888"
PASSWORD = "Qx7-k2"


def test_a_short_value_is_withheld_in_its_session_only(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    _mem(env, "init")
    proj = tmp_path / "proj"
    proj.mkdir()
    rows = [user("p0", f"the wifi password is {PASSWORD}", SID), asst("a0", "m0", [text(f"Joined with {PASSWORD} ok.")], SID),
            user("p1", "my pin is 4471", SID), asst("a1", "m1", [text("Stored 4471 as the PIN; port 44710 unchanged.")], SID)]
    other = [user("q0", f"other session: the string {PASSWORD} and room 4471", OTHER)]
    for sid, rs in ((SID, rows), (OTHER, other)):
        for r in rs:
            r["cwd"] = str(proj)
        t = tmp_path / f"{sid}.jsonl"
        t.write_bytes(b"".join(line(r) for r in rs))
        _mem(env, "import", "claude-code", str(t))
    shown = _mem(env, "show", SID).stdout
    assert "Joined with [REDACTED:sealed-value] ok." in shown, shown
    assert "Stored [REDACTED:sealed-value] as the PIN; port 44710 unchanged." in shown, shown
    assert f"the string {PASSWORD} and room 4471" in _mem(env, "show", OTHER).stdout
    _mem(env, "gc", "--prune=now")
    assert scan_store(store, [b"Joined with [REDACTED:sealed-value] ok."])   # the scan reads what is stored
    assert scan_store(store, [f"Joined with {PASSWORD}".encode()]) == []
