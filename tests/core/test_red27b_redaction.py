"""red27b (tester findings test27 V6, V9, V11): a passphrase of lower-case
words after an explicit password label (``Password: correct horse battery
staple``, ``WiFi password = …``, ``Password -``, the words on the next line);
HTTP Basic credentials outside an ``Authorization:`` header (``AUTH=Basic
…``, ``BASIC_AUTH=…``) and a ``…_CREDENTIAL=`` value; keys named for a
credential the key-name rule missed (``credentials``, ``DbPass``, ``psk``,
``otp-seed``, ``recovery-codes``, ``privkey``, ``cookie``).  The look-alikes
stay.  Every value is fake (``YWxpY2U6V29uZGVybGFuZDk5`` is
``alice:Wonderland99``)."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact_named
from tests.core._redaction_util import assert_kept, assert_redacted, check_remembered_and_imported

STAPLE = "correct horse battery staple"
B64 = "YWxpY2U6V29uZGVybGFuZDk5"
PHRASE, BASIC, GEN = "password-phrase", "basic-auth", "generic-secret"
#: case -> (text, the secret, what must stay, the rule named)
CASES = {
    "label-colon": (f"Password: {STAPLE}", STAPLE, "Password: ", PHRASE),
    "label-sentence": (f"Set up the NAS. Password: {STAPLE}", STAPLE, "Set up the NAS.", PHRASE),
    "label-three": ("Password: tulip river amber", "tulip river amber", "Password: ", PHRASE),
    "label-wifi": (f"WiFi password: {STAPLE}", STAPLE, "WiFi password", PHRASE),
    "label-dash": (f"Password - {STAPLE}", STAPLE, "Password - ", PHRASE),
    "label-assign": (f"I logged in with password = {STAPLE}", STAPLE, "I logged in with", PHRASE),
    "label-echo": (f'echo "Password: {STAPLE}" >> notes.txt', STAPLE, ">> notes.txt", PHRASE),
    "basic-env": (f"AUTH=Basic {B64}", B64, "AUTH=Basic ", BASIC),
    "basic-yaml": (f"auth: Basic {B64}", B64, "auth: Basic ", BASIC),
    "basic-var": (f"BASIC_AUTH={B64}", B64, "BASIC_AUTH=", BASIC),
    "basic-header": (f"header Basic {B64}", B64, "header Basic ", BASIC),
    "basic-read": (f"     4\u2192AUTH=Basic {B64}", B64, "AUTH=Basic ", BASIC),
    "credential-var": ("MY_SERVICE_CREDENTIAL=abcDEF123456ghiJKL789mnoPQR", "abcDEF123456ghiJKL789mnoPQR",
                       "MY_SERVICE_CREDENTIAL=", GEN),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_redacted(case):
    text, secret, kept, rule = CASES[case]
    assert_redacted(case, text, [secret, secret.split(" ")[-1]], kept=[kept], rule=rule)


def test_label_then_words_on_the_next_line():
    """The label ends its line, the passphrase is the next line (raw and JSON-escaped)."""
    assert_redacted("next-line", f"Password:\n{STAPLE}\n", [STAPLE], kept=["Password:"], rule=PHRASE)
    assert_redacted("next-line-crlf", f"Password:\r\n{STAPLE}\r\n", [STAPLE], kept=["Password:"], rule=PHRASE)


@pytest.mark.parametrize("text", [
    "Password: see the vault",
    "Password: Incorrectly typed three times",
    "Password: incorrectly typed three times",
    "password: successfully changed last week",
    "Reset password: click the link below",
    "password: must be long enough",
    "Password: Storage Best Practices",            # Title Case of a heading (red28 reads a Title Case passphrase)
    "basic understanding of Kubernetes",
    "Basic authentication is configured",
    "basic YWJjZGVmZ2hpams=",                      # base64 of 'abcdefghijk': no user:password
    "GOOGLE_APPLICATION_CREDENTIALS=/home/me/key.json",
    "AWS_CREDENTIALS: see the vault",
    "the credentials are in 1Password",
])
def test_look_alike_kept(text):
    assert_kept(text)


@pytest.mark.parametrize("key", ["db-pass", "DbPass", "credentials", "credential", "privkey", "otp-seed",
                                 "recovery-codes", "wifi-psk", "psk", "session-cookie", "cookie", "dbPassword"])
def test_credential_named_key(key):
    res = redact_named("plumtree quiet river", f"project/n/{key}")
    assert res.text == "[REDACTED:named-secret]", res


@pytest.mark.parametrize("key", ["password-policy", "tokens", "bypass", "Compass", "cookie-banner",
                                 "credentials-location", "psk-rotation"])
def test_not_credential_named_key(key):
    assert redact_named("plumtree quiet river", f"project/n/{key}").text == "plumtree quiet river"


def test_named_key_prose_kept():
    assert redact_named("stored in 1Password", "project/n/credentials").text == "stored in 1Password"


def test_stored_by_remember_and_import(tmp_path, mem):
    """Real ``mem remember``/``get`` and an imported transcript's Bash result."""
    check_remembered_and_imported(mem, tmp_path, "red27b", "27b27b27-aaaa-4bbb-8ccc-27b27b27b27b", CASES,
                                  ("label-colon", "label-wifi", "basic-env", "basic-var", "credential-var"),
                                  "Password: see the vault")
