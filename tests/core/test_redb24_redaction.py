"""redb24 (tester finding U2): a key-itself secret (``SESSION_SECRET``,
``COOKIE_SECRET``, ``JWT_SECRET``, Django's and Flask's ``SECRET_KEY``) whose
value is letters alone in capitals or a random case mix was stored in the
clear (only lower case was taken).  The look-alikes stay: references,
identifiers in camel or Pascal case, placeholders.  Every value is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted, check_remembered_and_imported

MIXED = "KjHgFdSaQwErTyUiOpLkJhGfDsAzXcVb"
MIXED2 = "xKpQzRmWvTnLsYhBgFdJcAeU"
UPPER = "QWERTYUIOPASDFGHJKLZXCVBNM"
LOWER = "qwertyuiopasdfghjklzxcvbnm"

#: case: (text, the secret in it, what must stay)
CASES = {
    "session-mixed": (f"SESSION_SECRET={MIXED}", MIXED, "SESSION_SECRET="),
    "cookie-mixed": (f"COOKIE_SECRET={MIXED2}", MIXED2, "COOKIE_SECRET="),
    "jwt-mixed": (f"JWT_SECRET={MIXED}", MIXED, "JWT_SECRET="),
    "session-quoted": (f'SESSION_SECRET="{MIXED}"', MIXED, 'SESSION_SECRET="'),
    "secret-key-mixed": (f"SECRET_KEY={MIXED}", MIXED, "SECRET_KEY="),
    "secret-key-quoted": (f"SECRET_KEY = '{MIXED2}'", MIXED2, "SECRET_KEY = '"),
    "secret-key-lower": (f"SECRET_KEY={LOWER}", LOWER, "SECRET_KEY="),
    "session-upper": (f"SESSION_SECRET={UPPER}", UPPER, "SESSION_SECRET="),
    "flask-secret-key": (f'app.secret_key = "{MIXED}"', MIXED, "app.secret_key = "),
}

KEPT = [
    "SECRET_KEY=settings.SECRET_KEY",
    "JWT_SECRET=JwtSecret",
    "JWT_SECRET=${JWT_SECRET}",
    "SESSION_SECRET=process.env.SESSION_SECRET",
    'secret_key = "SessionSigningKeyName"',
    "JWT_SECRET=ChangeThisSecretValue",
    "SESSION_SECRET=YOURSECRETKEYHERE",
    "SECRET_KEY=HTTPSServerConfigLoader",
    "SECRET_KEY=required",
    f"APP_NAME={MIXED}",
]


@pytest.mark.parametrize("case", sorted(CASES))
def test_redacted(case):
    text, secret, part = CASES[case]
    assert_redacted(case, text, [secret], [part], "generic-secret")


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_are_kept(text):
    assert redact(text).text == text


def test_mem_remember_get_and_import(tmp_path, mem):
    """Real mem processes: ``mem remember`` then ``mem get``, and a Bash
    result of an imported transcript: the secret is in neither."""
    check_remembered_and_imported(mem, tmp_path, "redb24", "4c4c4c4c-aaaa-4bbb-8ccc-242424242425", CASES,
                                  ("session-mixed", "cookie-mixed", "secret-key-mixed", "session-upper"),
                                  "SESSION_SECRET=process.env.SESSION_SECRET")
