"""What the fresh tester found stored in clear after session 9 (red10): a
placeholder word inside a value (``Example#2024``, ``dummy-Pa55``,
``hunter2EXAMPLE``) kept it, though after an explicit password label or
under a key named for a credential only a value that IS a placeholder
(``changeme``, ``<password>``, ``${VAR}``, ``your_password_here``) may be
kept; ``Password - X`` and ``secret: X`` are labels too; a trailing ``!``
of a ``user / password`` pair goes with the password.  Elsewhere (free
prose, ``Authorization:`` headers) the substring test stays.  Every value
here is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import NAMED_RULE, redact, redact_named
from objstore.core.redact.checks import is_placeholder
from tests.cmds._credentials import check_kept, check_redacted

KEY = "project/staging/db-password"

#: the tester's values: each holds a placeholder word, none is a placeholder
NOT_PLACEHOLDERS = ["Example#2024", "sample!Pw9", "dummy-Pa55", "MySampleCorp#1", "myexamplepass1",
                    "hunter2EXAMPLE", "samplepassword", "Changeme2024!", "xxx-Pa55-xxx"]
#: no placeholder marker: weak passwords (under a credential name; after a label, 4 characters or
#: words joined by '-' are read as prose, the label's own shape test, unchanged here)
WEAK = ["test", "my-password", "database"]

#: values that stand in for a credential as a whole
PLACEHOLDERS = ["changeme", "CHANGEME", "change_me", "example", "password", "xxxxxxxx", "XXXX", "***", "********",
                "...", "<password>", "<your db password>", "${DB_PASSWORD}", "$DB_PASSWORD", "%DB_PASSWORD%",
                "{{ db_password }}", "{password}", "your-password", "your_password_here", "YOUR_PASSWORD_HERE",
                "example-password", "insert-password-here", "dummy", "placeholder", "[REDACTED:named-secret]"]


@pytest.mark.parametrize("value", NOT_PLACEHOLDERS + WEAK)
def test_a_value_holding_a_placeholder_word_is_not_a_placeholder(value):
    assert not is_placeholder(value)


@pytest.mark.parametrize("value", PLACEHOLDERS + ["", "  "])
def test_a_whole_placeholder_is_one(value):
    assert is_placeholder(value)


@pytest.mark.parametrize("value", NOT_PLACEHOLDERS + WEAK)
def test_under_a_credential_name_it_is_redacted(value):
    r = redact_named(value, KEY)
    assert r.text == f"[REDACTED:{NAMED_RULE}]", r.text
    assert redact_named(r.text, KEY).text == r.text                 # idempotent


@pytest.mark.parametrize("value", PLACEHOLDERS + [""])
def test_under_a_credential_name_a_placeholder_is_kept(value):
    assert redact_named(value, KEY).text == value


@pytest.mark.parametrize("label,value", [
    (label, v) for label in ("Password: ", "password=", "DB_PASSWORD=", "pwd: ", "Password - ") for v in NOT_PLACEHOLDERS
    # a dash may start prose ('Password - required'): there letters alone keep the shape test
    if not (label == "Password - " and v.isalpha())])
def test_after_a_password_label_it_is_redacted(label, value):
    text = f"host: db1\n{label}{value}\nport: 5432"
    r = redact(text)
    assert value not in r.text and r.text.startswith(f"host: db1\n{label}[REDACTED:") and r.text.endswith(
        "]\nport: 5432"), r.text
    assert redact(r.text).text == r.text


@pytest.mark.parametrize("value", PLACEHOLDERS[:-1])
@pytest.mark.parametrize("label", ["Password: ", "password=", "Password - "])
def test_after_a_password_label_a_placeholder_is_kept(label, value):
    check_kept(f"{label}{value}\n")


@pytest.mark.parametrize("text,secret,rule", [
    ("Password - hunter2", "hunter2", "password-phrase"),
    ("Password \u2013 hunter2 (staging)", "hunter2", "password-phrase"),
    ("secret: hunter2", "hunter2", "generic-secret"),
    ("  secret: Tr0ub4dor", "Tr0ub4dor", "generic-secret"),
    ("login with admin / P@ssw0rd!", "P@ssw0rd!", "password-phrase"),
    ("login admin/Pw2024x!", "Pw2024x!", "password-phrase"),
    ("sign in as admin with P@ssw0rd!", "P@ssw0rd!", "password-phrase"),
])
def test_label_and_pair_forms_lose_the_whole_token(text, secret, rule):
    check_redacted(text, secret, rule)
    assert redact(text).text == text.replace(secret, f"[REDACTED:{rule}]")


@pytest.mark.parametrize("text", [
    "Password - required",
    "password - see the vault",
    "the password - correcthorse",           # letters alone after a dash: prose may follow
    "login as admin / whatever!",            # the '!' does not make a word a password
    "login admin / Pw!2024x.",               # sentence punctuation still stays (checked below)
    "secret: true",
    "secret: str",
    "secret: ${API_SECRET}",
    "secret: secret: secret:",               # a label after a label is no value
    "the password is an example like Example#2024",   # free prose keeps the substring test
    "Authorization: Bearer your-example-token-here",
])
def test_prose_and_placeholders_around_the_new_forms_are_kept(text):
    if text.startswith("login admin / Pw"):
        assert redact(text).text == "login admin / [REDACTED:password-phrase]."
    else:
        check_kept(text)
