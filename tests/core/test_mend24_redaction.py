"""mend24 (session 23's note, redaction left open): credential shapes stored
in the clear on batch, and the look-alikes that must stay.  An Express or
Flask session signing secret of letters alone (``SESSION_SECRET=…``,
``COOKIE_SECRET=…``); an HTML description list's ``<dt>PIN</dt><dd>…``;
``pin_code = …``; a PostgreSQL password-file line on a port other than 5432
(5433, pgbouncer's 6432, a pooler's 6543) with no ``.pgpass`` named near it;
a headerless row ``|password|X|``, a definition ``Password`` LF ``: X`` and
``<dt>Password</dt>`` LF ``<dd>X</dd>`` inside JSON-escaped text.  Every
value is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted, check_remembered_and_imported

LETTERS = "keyboardcatwombat"
PW = "hunter2secret"

#: case: (text, the secret in it, what must stay, the rule named, JSON-escaped too)
CASES = {
    "session-secret-letters": (f"SESSION_SECRET={LETTERS}", LETTERS, "SESSION_SECRET=", "generic-secret", True),
    "cookie-secret-letters": (f"export COOKIE_SECRET={LETTERS}", LETTERS, "export COOKIE_SECRET=",
                              "generic-secret", True),
    "session-secret-quoted": (f'session_secret: "{LETTERS}"', LETTERS, "session_secret: ", "generic-secret", True),
    "dt-pin": ("<dl><dt>PIN</dt><dd>4471-9902</dd></dl>", "4471-9902", "<dt>PIN</dt><dd>", "markdown-secret", True),
    "pin-code-assigned": ("pin_code = 448812", "448812", "pin_code = ", "password-phrase", True),
    "pincode-quoted": ('PINCODE="8812"', "8812", 'PINCODE="', "password-phrase", True),
    "pgpass-5433": (f"localhost:5433:mydb:postgres:{PW}", PW, "localhost:5433:mydb:postgres:", "pgpass-password",
                    True),
    "pgpass-pgbouncer": (f"db.internal:6432:app:app_user:{PW}", PW, "db.internal:6432:app:app_user:",
                         "pgpass-password", True),
    "pgpass-pooler": (f"10.0.0.5:6543:*:admin:{PW}", PW, "10.0.0.5:6543:*:admin:", "pgpass-password", True),
    # Markdown and HTML forms JSON-escaped too (a tool call's input, a transcript line): the JSON string's
    # opening quote starts the row's or the term's line, a '\\n' breaks it
    "row-no-header": (f"|password|{PW}|", PW, "|password|", "markdown-secret", True),
    "definition": (f"Password\n: {PW}", PW, "Password\n: ", "markdown-secret", True),
    "dt-dd-broken": (f"<dl><dt>Password</dt>\n<dd>{PW}</dd></dl>", PW, "<dt>Password</dt>", "markdown-secret",
                     True),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_shape_is_redacted(case):
    text, secret, kept, rule, escaped = CASES[case]
    assert_redacted(case, text, [secret], [kept], rule, escaped=escaped)


#: what must stay: a placeholder or a reference, a name of a Secret, prose, a GPIO pin, an exit or error code,
#: a time, a log line with a port, a host:port list
KEPT = [
    "SESSION_SECRET=changeme",
    "SESSION_SECRET=${SESSION_SECRET}",
    "SESSION_SECRET_NAME=appsecrets",
    "COOKIE_SECRET=required",
    "the session secret is stored in vault",
    "<dl><dt>Pin</dt><dd>GPIO17</dd></dl>",
    "<dl><dt>PIN</dt><dd>13</dd><dt>Mode</dt><dd>OUTPUT</dd></dl>",
    "led_pin = 13",
    "pin = 448812",
    "error_code = 4471",
    "pin_count = 4471",
    "started at 12:30:45:000 on worker",
    "GET:8080:api:v1:users",
    "redis:6379:cache:primary:up",
    '{"text": "|password|required|"}',
    '{"text": "password\\n: required\\n"}',
]


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_are_kept(text):
    assert redact(text).text == text


def test_mem_remember_get_and_import(tmp_path, mem):
    """Real mem processes: each shape remembered (``mem get`` shows the
    label, not the value) and each one a Bash result of an imported Claude
    Code transcript (``mem show``); a look-alike comes back as written."""
    cases = ("session-secret-letters", "cookie-secret-letters", "dt-pin", "pin-code-assigned", "pgpass-5433",
             "pgpass-pgbouncer")
    check_remembered_and_imported(mem, tmp_path, "mend24", "4c4c4c4c-aaaa-4bbb-8ccc-242424242424", CASES, cases,
                                  "the session secret is stored in vault")
