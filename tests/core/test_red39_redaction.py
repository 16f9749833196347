"""red39: credentials a person types, stored in the clear (test39 T2).

From an empty store ``mem remember KEY "VALUE"; mem get KEY`` gave back, with no warning: a passphrase label with
what it opens before a colon (``passphrase for root: X``, while ``password for root: X`` was redacted), a value
under a key named ``…/creds`` (``…/credentials`` was a credential key), ``user:password@host`` with no scheme,
a Wi-Fi network and its password (``wifi: Tulip / X``), and a user named before a bare ``secret`` or ``pass``
(``user app, secret X``, ``db user app / pass X``).  The hooks, the proxy and MCP share these rules."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from objstore.core.redact.keywords import credential_name
from objstore.core.redact.names import redact_named
from tests.core._redaction_util import assert_kept, assert_redacted, check_prompt_hook, check_remembered_and_imported

SECRET = "Kx9#mmQ2zz"
#: name -> (text, the secret, what stays)
CASES = {
    "passphrase-for": (f"passphrase for root: {SECRET}", SECRET, "passphrase for root: "),
    "passphrase-for-the": (f"passphrase for the key: {SECRET}", SECRET, "passphrase for the key: "),
    "passphrase-for-is": (f"the passphrase for my gpg key is {SECRET}", SECRET, "for my gpg key is "),
    "passcode-for": ("passcode for the door: Zq7mm41", "Zq7mm41", "passcode for the door: "),
    "userinfo": (f"connect with admin:{SECRET}@db.internal:5432", SECRET, "admin:"),
    "userinfo-ip": ("root:hunter2x@10.0.0.5", "hunter2x", "@10.0.0.5"),
    "userinfo-path": ("mysql app:S3cr3t!x@localhost/appdb", "S3cr3t!x", "@localhost/appdb"),
    "userinfo-quoted": (f'DSN "app:{SECRET}@db.internal:5432"', SECRET, "@db.internal:5432"),
    "url-hash": (f"postgres://admin:{SECRET}@db.internal:5432/app", SECRET, "@db.internal:5432/app"),
    "wifi": (f"wifi: Tulip / {SECRET}", SECRET, "wifi: Tulip / "),
    "wifi-words": (f"Wi-Fi network: Tulip Home / {SECRET}", SECRET, "Tulip Home / "),
    "ssid": ("SSID Tulip / Kx9mmQ2zz", "Kx9mmQ2zz", "SSID Tulip / "),
    "user-secret": (f"user app, secret {SECRET}", SECRET, "user app, secret "),
    "user-pass": (f"db user app / pass {SECRET}", SECRET, "db user app / pass "),
    "user-and-pass": ("user app and pass Kx9mmQ2zz", "Kx9mmQ2zz", "user app and pass "),
    "login-pass": (f"login admin, pass {SECRET}", SECRET, "login admin, pass "),
    "account-secret": (f"account admin / secret {SECRET}", SECRET, "account admin / secret "),
}
#: prose and code that look like one of the shapes above
KEPT = ["the secret sauce is garlic", "pass the salt", "ssh user@host:22", "admin:8080",
        "user@host:22 with no password", "email:jdoe42@example.com", "Contact:john.doe2@example.com",
        "npm:lodash@4.17.21", "nginx:1.25@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "{user}:{pw}@{host}", "user:pass@host.com", "joe:password@db:5432", "ssh git@github.com:org/repo.git",
        "at 10:30@office.com", "scp -P 22 a.txt me@host:/tmp", "wifi: on / off", "wifi: 2.4GHz / 5GHz",
        "wifi: Tulip / see the note", "the user account, pass the salt", "user bob, secret santa",
        "user login / pass validation", "passphrase for the key: see the vault",
        "Enter passphrase for key '/home/u/.ssh/id_rsa':", "passphrase for your key: <passphrase>",
        "see https://x.com/a#b:c1d2e3@foo.com", "mailto:jdoe42@x.io",
        "https://0123456789abcdef@pypi.company.com/simple",
        "(http://lore.kernel.org/git/7vbptlsuyv.fsf@gitster.siamese.dyndns.org/)",
        "a URL (`s3://AKIA…@bucket`, `https://user@host`)"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_typed_credential_is_withheld(name):
    text, secret, kept = CASES[name]
    assert_redacted(name, text, [secret], [kept])


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_are_kept(text):
    assert_kept(text)


def test_userinfo_without_a_scheme_is_a_url_password():
    res = redact(f"connect with admin:{SECRET}@db.internal:5432")
    assert res.text == "connect with admin:[REDACTED:url-password]@db.internal:5432", res


@pytest.mark.parametrize("key", ["project/api/creds", "project/api/db-creds", "project/api/db-creds-prod",
                                 "project/api/creds2", "project/api/DB_CREDS", "project/api/cred",
                                 "project/api/credentials-prod"])
def test_a_creds_key_is_a_credential_key(key):
    assert credential_name(key) == "secret"
    assert redact_named("Kx9mmQ2zz", key).text == "[REDACTED:named-secret]"


@pytest.mark.parametrize("key", ["project/x/discreds", "project/x/creds-policy", "project/x/credit",
                                 "project/x/incredible", "project/x/credo", "project/x/creds-file"])
def test_look_alike_keys_are_not(key):
    assert credential_name(key) is None
    assert redact_named("Kx9mmQ2zz", key).text == "Kx9mmQ2zz"


def test_through_remember_and_an_import(mem, tmp_path, store_path):
    check_remembered_and_imported(mem, tmp_path, "red39", "39393939-0000-4000-8000-000000003939", CASES,
                                  sorted(CASES), "the secret sauce is garlic; pass the salt", store=store_path)


@pytest.mark.parametrize("key", ["project/api/creds", "project/api/db-creds-prod"])
def test_mem_remember_under_a_creds_key(mem, store_path, key):
    """T2: ``mem remember project/api/creds Kx9mmQ2zz`` gave it back as typed."""
    r = mem("remember", key, "Kx9mmQ2zz")
    assert "credential" in r.stderr, r
    got = mem("get", key).stdout
    assert "Kx9mmQ2zz" not in got and "[REDACTED:named-secret]" in got, got


def test_the_prompt_hook_stores_none_of_them(tmp_path):
    """The UserPromptSubmit hook runs the same rules: a prompt holding every case stores none of the secrets."""
    cases = {k: v for k, v in CASES.items() if k in ("passphrase-for", "userinfo", "wifi", "user-secret", "user-pass")}
    check_prompt_hook(tmp_path / "store", "39393939-1111-4000-8000-000000003939", cases, KEPT[:3],
                      f"remember that the db user app / pass {SECRET}")
