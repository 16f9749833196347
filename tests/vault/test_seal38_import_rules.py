"""seal38: where a seal reaches.

* test37b T20: ``mem remember KEY VALUE --sensitivity secret`` left the turns stored before it quoting the
  value in the clear (searchable, and derive sent them to the provider), while ``mem seal KEY`` of a plain key
  rewrites them: the secret write now rewrites them the same way and says how many.
* test37b T13: a key brought back by ``mem sealed import`` (after ``mem restore``) got no seal rule, so a later
  turn quoting it was stored in the clear: the import now opens the file (it asks for the passphrase) and
  writes the rules ``remember --sensitivity secret`` writes, and rewrites the turns already quoting it.
* fresh37 F7: an age file made for another recipient was stored, and failed only when read: it is refused at
  import (exit 2), nothing stored.

Real ``mem`` processes and real hook processes on a real store."""

from __future__ import annotations

from objstore import scan_store
from objstore.vault import age
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_seal_two_word_values import sealed_session

EARLIER = "cobalt-heron-7781"
IMPORTED = "7731-0042-9913"


def test_a_secret_write_and_an_import_withhold_the_value_in_turns_before_and_after(tmp_path):
    s, env = sealed_session(tmp_path, [], "i38")
    pp = str(tmp_path / "pp")
    s.prompt(f"use {EARLIER} for the vendor portal login; the side door pin is {IMPORTED}")
    s.stop("Noted.")
    r = _mem(env, "remember", "project/acme/vendor", EARLIER, "--sensitivity", "secret")
    assert "withheld in 1 turn quoting it" in r.stdout, r.stdout
    recipient = _mem(env, "vault", "recipient").stdout.strip()
    (tmp_path / "pin.age").write_bytes(age.encrypt(IMPORTED.encode(), [recipient]))
    r = _mem(env, "sealed", "import", "project/acme/pin", str(tmp_path / "pin.age"), "--passphrase-file", pp)
    assert "(imported), the value withheld in 1 turn quoting it" in r.stdout, r.stdout
    s.prompt(f"the pin {IMPORTED} works on the side door, and {EARLIER} too")
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [EARLIER.encode(), IMPORTED.encode()]) == []
    out = _mem(env, "show", s.sid[:8]).stdout
    assert out.count("[REDACTED:sealed-value]") == 4 and "works on the side door" in out, out
    assert "project/acme/pin" in _mem(env, "keys").stdout


def test_an_age_file_made_for_another_recipient_is_refused_at_import(tmp_path):
    s, env = sealed_session(tmp_path, [], "o38")
    _identity, other = age.generate_x25519()
    (tmp_path / "other.age").write_bytes(age.encrypt(b"not ours", [other]))
    r = _mem(env, "sealed", "import", "user/bank/pin3", str(tmp_path / "other.age"),
             "--passphrase-file", str(tmp_path / "pp"), ok=(2,))
    assert "not encrypted to this vault's key" in r.stderr and "nothing was stored" in r.stderr, r.stderr
    assert "user/bank/pin3" not in _mem(env, "sealed", "list").stdout
