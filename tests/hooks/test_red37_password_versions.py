"""red37 (test36b T17): "we set the db password to X" said again from a new prompt with a new password wrote no
new version (its redacted text reads the same as the first), yet the hook answered "Remembered as you asked".
Now the second change is ``db-password``'s next version; the same prompt's write, read again, is still one.
Real ``mem hook claude-code`` processes, read back with ``mem log``."""

from __future__ import annotations

from objstore import scan_store
from tests.hooks._util import wait_store_processes_gone
from tests.hooks.test_remember_cue33 import _Hooked

PASSWORDS = ("Kq7-Lm2x9aa", "Zr4-Pp8w1bb")


def test_a_second_password_change_is_the_next_version(tmp_path):
    s = _Hooked(tmp_path)
    s.prompt(f"remember that we set the db password to {PASSWORDS[0]}")
    s.prompt(f"remember that we set the db password to {PASSWORDS[1]}")
    wait_store_processes_gone(s.store, timeout=600)   # (a loaded CI box: generous)
    log = s.log("db-password")
    assert len(log) == 2 and all(v.startswith("we set the db password to [REDACTED:") for v in log), log
    assert scan_store(s.store, [b"we set the db password to [REDACTED:"])   # the scan reads what is stored
    assert scan_store(s.store, [pw.encode() for pw in PASSWORDS]) == []


def test_a_plain_value_said_again_is_not_a_new_version(tmp_path):
    s = _Hooked(tmp_path)
    s.prompt("remember that the db port is 6543")
    s.prompt("remember that the db port is 6543")
    wait_store_processes_gone(s.store, timeout=600)
    assert s.log("db-port") == ["the db port is 6543"]
