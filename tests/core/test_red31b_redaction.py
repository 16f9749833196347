"""red31b (test31 U1, U2, U3): a credential variable with further name segments after its word
('DB_PASSWORD_V2=X', 'PASSWORD_PROD_EU=X', 'db.password.prod=X', camel 'smtpPasswordProd=X'), a qualifier in
typographic quotes or guillemets ('DB password \u201cprod\u201d: X', 'Passwort \u00abprod\u00bb: X'), and a
qualifier before an arrow ('DB password (prod) -> X', '\u2192') were stored in the clear.  A name segment that
names a setting about the credential ('PASSWORD_MIN_LENGTH', 'TOKEN_EXPIRY_SECONDS', 'SECRET_NAME') keeps the
assignment as typed.  Every secret is fake."""

from __future__ import annotations

import json

import pytest

from objstore.core.redact import redact
from objstore.core.redact.keywords import credential_name
from tests.core._redaction_util import assert_redacted, check_prompt_hook, check_remembered_and_imported


def pw(i: int) -> str:
    """The fake secret of shape ``i``: letters no object id or time holds (no hex run of it can appear by chance)."""
    return f"Zq7mr{i:02d}xLpW"


#: (case, its text with "{}" where the secret stands)
#: U1: a variable's name with segments after its word, then its sign
_NAMES = ("DB_PASSWORD_V2= PASSWORD_V2= REDIS_PASSWORD_OLD= REDIS_PASSWORD_NEW= DB_PASSWORD_RO= DB_PASSWORD_READONLY= "
          "DB_PASSWORD_PROD_1= PASSWORD_PROD_EU= DB_PASSWORD_STAGING_EU_WEST= DB_PASSWORD_US_EAST_1= DB_PASSWORD__PROD= "
          "db.password.prod= app.db.password.prod= password.prod= smtpPasswordProd= dbPasswordProd: API_TOKEN_V2= "
          "APP_SECRET_OLD= DB_PWD_NEW= db-password-old:").split()
_SHAPES = [(n.rstrip("=:").lower(), n + (" {}" if n.endswith(":") else "{}")) for n in _NAMES] + [
    # U2: typographic quotes
    ("curly-double", "DB password \u201cprod\u201d: {}"), ("curly-single", "DB password \u2018prod\u2019: {}"),
    ("guillemets", "DB password \u00abprod\u00bb: {}"), ("low-high", "DB password \u201eprod\u201c: {}"),
    ("single-guillemets", "DB password \u2039prod\u203a: {}"), ("corner", "DB password \u300cprod\u300d: {}"),
    ("german-guillemets", "Passwort \u00abprod\u00bb: {}"), ("french-guillemets", "mot de passe \u00ab prod \u00bb : {}"),
    # U3: an arrow after a qualifier
    ("paren-arrow", "DB password (prod) -> {}"), ("colon-arrow", "DB password (prod): -> {}"),
    ("unicode-arrow", "DB password (prod) \u2192 {}"), ("quoted-arrow", "DB password \"prod\" -> {}"),
    ("curly-arrow", "DB password \u201cprod\u201d \u2192 {}"), ("fullwidth-arrow", "Password\uff08prod\uff09\u2192 {}"),
]
#: case -> (text, the secret, what must stay before it)
CASES = {case: (tmpl.format(pw(i)), pw(i), tmpl.split("{}")[0]) for i, (case, tmpl) in enumerate(_SHAPES)}

#: settings about a credential, the same layouts, a value no password: stored as typed
LOOKALIKES = [
    "PASSWORD_MIN_LENGTH=12", "TOKEN_EXPIRY_SECONDS=3600", "PASSWORD_FILE=/run/secrets/x", "SECRET_NAME=prod-db",
    "password.policy.enabled=true", "TOKEN_TYPE=bearer", "PASSWORD_HASH_ALGO=argon2id",
    "TOKEN_URL=https://auth.example.com/token", "SECRET_KEY_FILE=/etc/app/key", "PASSWORD_RESET_TIMEOUT=259200",
    "TOKEN_ISSUER=auth-service", "password_hash_rounds=12", "token_ttl_ms=60000",
    "secret_manager_arn=arn:aws:secretsmanager:us-east-1:1234:secret:x", "PASSWORD_REGEX=^[a-z]+$",
    "passwordEncoder=bcrypt", "tokenizer_name=gpt2", "tokens_used=1234", "password_policy=strict",
    "SECRET_BACKEND=vault", "token_refresh_interval=300", "token -> next", "if (token)->next == NULL",
    "the password (prod) -> see vault", "DB password (prod) -> rotated weekly", "set PASSWORD_V2 in the env",
    "DB_PASSWORD_V2=${DB_PASSWORD_V2}", "DB password \u201cprod\u201d is fine",
]


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_redacted(case):
    """Raw and JSON-escaped (the shared check, idempotence included); what stands before the secret stays: the
    qualifier is not taken for the password (U2's bug: '[REDACTED]: X')."""
    text, secret, kept = CASES[case]
    assert assert_redacted(case, text, [secret], kept=[kept]).startswith(kept)
    assert secret not in redact(json.dumps({"command": text})).text


@pytest.mark.parametrize("text", LOOKALIKES)
def test_look_alike_kept(text):
    assert redact(text).text == text
    esc = json.dumps({"command": text})
    assert redact(esc).text == esc


@pytest.mark.parametrize("key", ["password-old", "db-password-v2", "redis-password-new", "api-token-old", "secret-v2",
                                 "github-token-new", "api-key-v2", "dbPasswordProd", "password.prod"])
def test_a_key_named_so_is_a_credential(key):
    """The key-name rule reads the same keywords (U1's second half: 'mem remember project/api/password-old X')."""
    assert credential_name("project/api/" + key) is not None


@pytest.mark.parametrize("key", ["password-policy", "token-budget", "db-password-policy", "secret-rotation",
                                 "token-count", "password-hint", "secret-name", "token-ttl", "password-min-length"])
def test_a_key_about_one_is_not(key):
    assert credential_name("project/api/" + key) is None


def test_stored_by_remember_and_import(tmp_path, mem, store_path):
    """Real ``mem remember``/``get`` and an imported transcript's Bash result; then no file of the store
    (packs decompressed) holds any secret."""
    check_remembered_and_imported(mem, tmp_path, "red31b", "31313131-bbbb-4bbb-8ccc-313131313131", CASES,
                                  sorted(CASES), LOOKALIKES[0], store=store_path)


def test_remembered_under_a_credential_key(mem, store_path):
    """'mem remember project/api/password-old <value>' (test31 U1): the value is not stored in the clear."""
    from objstore import scan_store
    mem("remember", "project/api/password-old", "Zq7mrKNxLpW")
    assert "Zq7mrKNxLpW" not in mem("get", "project/api/password-old").stdout
    assert scan_store(store_path, [b"Zq7mrKNxLpW"]) == []


def test_the_prompt_hook_stores_them_redacted(tmp_path):
    """The real UserPromptSubmit hook stores each shape redacted and the look-alikes as typed; then no file of
    the store (packs decompressed) holds any secret."""
    check_prompt_hook(tmp_path / "store", "d1111111-0000-4000-8000-00000031b31b", CASES, LOOKALIKES,
                      "remember DB_PASSWORD_V2=" + CASES["db_password_v2"][1])
