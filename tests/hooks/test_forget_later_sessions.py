"""test34b T17: after ``mem forget KEY`` a new session quoting the value
(the person's prompt, the agent's reply) stored it in the clear: ``mem
scan`` found it after ``gc --prune=now`` and ``mem export`` carried it
(reads masked it).  The forget now writes the value's local seal rules
(``objstore.memory.sealrules``, label ``forgotten:KEY``), by which the one
turn writer withholds it in every turn captured later, in any session, as
after a seal; a person's own ``mem remember`` of it after the forget is
kept (docs/forget.md)."""

from __future__ import annotations


from objstore import scan_store
from objstore.memory.sealrules import RULES_FILE
from tests.hooks._util import hook_env, wait_store_processes_gone
from tests.hooks.test_remember_asked import _Session
from tests.hooks.test_seal_later_turns import _mem

VALUE = "bluebird-falcon-7q"
TYPED = "pg-wren-host-4410"


def test_a_forgotten_value_quoted_in_a_later_session_is_stored_withheld(tmp_path):
    s = _Session(tmp_path)
    env = {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}
    s.prompt(f"remember that the launch codename is {VALUE}")
    s.stop(f"Noted: {VALUE}.")
    (key,) = s.remembered()
    _mem(env, "remember", "project/acme/dbhost", TYPED)     # typed, never in a turn before the forget
    wait_store_processes_gone(s.store)
    _mem(env, "forget", key, "--yes")
    _mem(env, "forget", "project/acme/dbhost", "--yes")
    later = _Session(tmp_path / "b", sid="dddddddd-0000-4000-8000-000000000017")
    later.store = s.store
    later.prompt(f"put the launch codename {VALUE} in the README and ping {TYPED}")
    later.stop(f"Added {VALUE} to the README; {TYPED} is up.")
    wait_store_processes_gone(s.store)
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [VALUE.encode(), TYPED.encode()]) == []
    assert (s.store / RULES_FILE).stat().st_mode & 0o077 == 0
    exported = _mem(env, "export").stdout
    assert exported and VALUE not in exported and TYPED not in exported
    shown = _mem(env, "show", later.sid[:8]).stdout
    # (since txt42 the forget's text rule of the cited value's quoted form withholds it first, as [forgotten])
    assert "Added [forgotten] to the README; [REDACTED:forgotten-value] is up." in shown, shown
    # the rules are the forget's, not a seal's: unseal has none to drop; the person's own write is kept
    _mem(env, "remember", "project/acme/dbhost", TYPED)
    assert TYPED in _mem(env, "get", "project/acme/dbhost").stdout
    assert _mem(env, "fsck").returncode == 0
