"""test36 T8: a value sealed by ``mem remember --sensitivity secret`` of
two words, one of them shaped as a value ("8841-2290 rowan", "PIN
7731-0042", "blue-otter-42 staging"), got no seal rule, so every later turn
quoting it was stored in the clear.  The value and its value-shaped word
now get one each (``sealsources.quoted_forms``)."""

from __future__ import annotations

import pytest

from objstore import scan_store
from objstore.memory.sealsources import quoted_forms
from tests.hooks._util import hook_env
from tests.hooks.test_remember_asked import _Session
from tests.hooks.test_seal_later_turns import _mem

VALUES = ["8841-2290 rowan", "PIN 7731-0042", "blue-otter-42 staging"]


def sealed_session(tmp_path, values, prefix: str = "s"):
    """A hooked session (``_Session``) over a store with a vault, each of ``values`` remembered with
    ``--sensitivity secret`` under ``user/<prefix><i>``; ``(session, env)`` (red37: shared)."""
    s = _Session(tmp_path)
    env = {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    _mem(env, "init")
    _mem(env, "vault", "init", "--passphrase-file", str(pp))
    for i, v in enumerate(values):
        _mem(env, "remember", f"user/{prefix}{i}", v, "--sensitivity", "secret")
    return s, env


def test_a_later_turn_quoting_a_sealed_two_word_value_is_stored_withheld(tmp_path):
    s, env = sealed_session(tmp_path, VALUES)
    s.prompt("values: " + " / ".join(VALUES))
    s.stop("Noted: " + ", ".join(v.split()[0] if v[0].isdigit() or "-" in v.split()[0] else v.split()[1]
                                 for v in VALUES) + ".")
    _mem(env, "gc", "--prune=now")
    found = scan_store(s.store, [b"8841-2290", b"7731-0042", b"blue-otter-42"])
    assert found == [], found
    out = _mem(env, "show", s.sid[:8]).stdout
    assert out.count("[REDACTED:sealed-value]") >= 6, out


@pytest.mark.parametrize("value", ["main", "postgres 16", "node 20", "Tuesday afternoon"])
def test_ordinary_short_values_still_get_no_rule(value):
    assert quoted_forms(value) == []
