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
