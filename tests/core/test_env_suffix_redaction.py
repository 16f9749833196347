"""test30c T14: a credential variable with a suffix after its keyword
(``DB_PASSWORD_PROD=X``, ``PASSWORD_STAGING=X``, ``SMTP_PASSWORD_2=X``,
``db-password-prod: X``): the common ``.env`` and CI-setting shape, taken
straight from a shell command line, was stored and indexed in the clear.
The suffixes are an environment's or a number's; the value is judged as
every keyword assignment's (``looks_secret``)."""

from __future__ import annotations

import pytest

from tests.core._redaction_util import assert_redacted, check_remembered_and_imported

SECRET = "Zq7mmKx92"
#: name -> what stands before the value (the variable and its sign)
HEADS = {"env-prod": "DB_PASSWORD_PROD=", "export": "export PASSWORD_STAGING=", "number": "SMTP_PASSWORD_2=",
         "pass": "DB_PASS_PROD=", "kebab": "db-password-prod: ", "token-dev": "API_TOKEN_DEV="}
CASES = {name: (head + SECRET, SECRET, head.rstrip()) for name, head in HEADS.items()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_suffixed_credential_variable_is_redacted(name):
    text, secret, kept = CASES[name]
    assert_redacted(name, text, [secret], [kept], rule="generic-secret")


@pytest.mark.parametrize("text", ["PASSWORD_PROD=changeme", "password_test=true", "DB_PASSWORD_POLICY=strict",
                                  "DB_PASSWORD_PROD=${DB_PASSWORD_PROD}"])
def test_look_alikes_are_kept(text):
    assert_redacted(text, text, [], [text], escaped=False)


def test_through_remember_and_an_import(mem, tmp_path, store_path):
    check_remembered_and_imported(mem, tmp_path, "envsfx", "e7e7e7e7-0000-4000-8000-00000000e7e7", CASES,
                                  sorted(CASES), "the prod db password lives in the vault", store=store_path)
