"""test16 F12: "remember that Hunter2x9! is the admin password" (the prompt
hook) made a fact whose KEY was the password (``…/remembered/hunter2x9``,
value ``Hunter2x9``: the statement was cut at the ``!``) and stored the
prompt unredacted.  Now a statement whose predicate names a secret has its
password-shaped subject redacted and its key named from the predicate, and
the redaction rules take a password beside the word.  Real ``mem``
processes (the hook, keys, show) on a real store."""

from __future__ import annotations

import pytest

from tests.capture.test_fresh6_capture import SID, _files_holding, _keys, _prompt
from tests.conftest import word_in


@pytest.mark.parametrize("prompt, secret, key, turn", [
    ("remember that Hunter2x9! is the admin password", "Hunter2x9", "project/p5/remembered/admin-password", True),
    ("remember that Tr0ub4dor&3 is the db password for staging", "Tr0ub4dor", "project/p5/remembered/db-password-staging",
     True),
    # a short PIN-like token before 'my door pin' (red17: redacted in the prompt's turn too; 'GPIO17 is the LED
    # pin' is hardware, test_a_hardware_pin_is_not_a_secret)
    ("remember that kq77 is my door pin", "kq77", "project/p5/remembered/door-pin", True),
    # (8 digits: every file of the store is searched for it, and 4 digits stood in ~1 % of runs' object ids/times)
    ("remember that 44719302 is the alarm code", "44719302", "project/p5/remembered/alarm-code", True),
    # test16b B1: 'pass' and 'login' name a secret too (red16b, red17: the prompt's turn redacted as well)
    ("remember that Wombat#4471 is the root pass", "Wombat", "project/p5/remembered/root-pass", True),
    ("remember that admin / Lark#5521 is the login", "Lark", "project/p5/remembered/login", True),
])
def test_a_stated_secret_is_never_a_key_and_is_stored_redacted(tmp_path, mem, prompt, secret, key, turn):
    store = tmp_path / "store"
    _prompt(store, tmp_path, prompt)
    keys = _keys(mem, store)
    remembered = [k for k in keys if "/remembered/" in k]
    assert remembered == [key], remembered
    e = {"MEM_HOME": str(store)}
    assert "[REDACTED:password-phrase]" in mem("get", key, env=e).stdout
    if not turn:
        assert not any(secret in n for n in _files_holding(store, secret) if "/refs/" in n or "/logs/" in n)
        return
    assert secret.lower() not in mem("show", SID, env=e).stdout.lower()     # the prompt's turn, redacted too
    assert _files_holding(store, secret) == []                              # no object, ref name, log or index


def test_a_statement_about_a_plain_thing_keeps_its_subject(tmp_path, mem):
    store = tmp_path / "store"
    _prompt(store, tmp_path, "remember that the deploy host is walrus-orchid-77. It moved in May")
    _prompt(store, tmp_path, "remember that port 5432 is the db port")
    remembered = sorted(k for k in _keys(mem, store) if "/remembered/" in k)
    assert remembered == ["project/p5/remembered/deploy-host", "project/p5/remembered/port-5432"], remembered


def test_a_token_only_a_password_has_the_shape_of_never_names_a_key(tmp_path, mem):
    """test16b B1: letters, digits and a symbol together (``Owl$7733x``) are
    never a key's words, whatever the predicate says; ``python3`` still is."""
    store = tmp_path / "store"
    _prompt(store, tmp_path, "remember that Owl$7733x rotates every month")
    _prompt(store, tmp_path, "remember that python3 is the default interpreter")
    remembered = sorted(k for k in _keys(mem, store) if "/remembered/" in k)
    assert remembered == ["project/p5/remembered/python3", "project/p5/remembered/rotates-every-month"], remembered
    assert not any("owl" in n.lower() for n in _files_holding(store, "Owl$7733x") if "/refs/" in n or "/logs/" in n)


def test_a_hardware_pin_is_not_a_secret(tmp_path, mem):
    """red17: 'GPIO17 is the LED pin' names a board's pin, not a PIN: the
    statement is stored as typed (keyed from its subject), while a PIN
    stated the same way ('4471 is my door pin') stays redacted."""
    store = tmp_path / "store"
    _prompt(store, tmp_path, "remember that GPIO17 is the LED pin")
    _prompt(store, tmp_path, "remember that 4471 is my door pin")
    remembered = sorted(k for k in _keys(mem, store) if "/remembered/" in k)
    assert remembered == ["project/p5/remembered/door-pin", "project/p5/remembered/gpio17"], remembered
    e = {"MEM_HOME": str(store)}
    assert mem("get", "project/p5/remembered/gpio17", env=e).stdout.strip() == "GPIO17 is the LED pin"
    assert "4471" not in mem("get", "project/p5/remembered/door-pin", env=e).stdout
    assert not word_in("4471", mem("show", SID, env=e).stdout) and "GPIO17 is the LED pin" in mem("show", SID, env=e).stdout
