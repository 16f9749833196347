"""Lane red14: the name rule reads a labelled short value with words after
it (``Password: Zq7mm x``) as the credential it is in a name — a key,
``--session``, ``--agent`` — though a value keeps such a line as prose:
a name holds no prose after a password.  Refused with exit 2, the field
named, the name never echoed.  Real ``mem`` processes; the secrets are fake."""

from __future__ import annotations

import pytest

NAME = "Password: Zq7mm x"


@pytest.mark.parametrize("args, field", [
    (["remember", f"project/api/{NAME}", "v1"], "key"),
    (["remember", "project/api/k1", "v1", "--session", NAME], "session"),
    (["remember", "project/api/k1", "v1", "--session", "s1", "--agent", NAME], "agent"),
])
def test_a_labelled_short_value_with_words_after_it_is_refused_in_a_name(mem, store_path, args, field):
    mem("init")
    r = mem(*args, exit_code=2)
    assert f"the {field} holds a credential" in r.stderr and "Zq7mm" not in r.stdout + r.stderr, r.stderr


@pytest.mark.parametrize("key", ["project/api/password-reset-flow", "project/api/secret sauce v2",
                                 "project/api/Password: hello world"])
def test_prose_about_a_password_in_a_key_is_still_a_key(mem, store_path, key):
    mem("init")
    r = mem("remember", key, "v1", exit_code=None)
    assert "holds a credential" not in r.stderr, r.stderr


def test_memory_add_says_a_credential_was_replaced_as_remember_does(mem, store_path):
    """Tester test14 (d): ``mem memory add`` stored ``[REDACTED:generic-secret]``
    without the warning ``mem remember`` gives (one warning, ``cmds._out.warn_redacted``)."""
    mem("init")
    r = mem("memory", "add", "memory", "password: Zq7mm!x9")
    assert "1 credential(s) in the value were replaced" in r.stderr and "Zq7mm" not in r.stdout + r.stderr, r.stderr
    shown = mem("memory", "show", "memory").stdout
    assert "[REDACTED:generic-secret]" in shown and "Zq7mm" not in shown, shown
    r = mem("memory", "add", "memory", "the build uses make")
    assert "replaced" not in r.stderr, r.stderr
