"""red38: secrets stored in the clear (test37b T4, T5, T6, T19.4).

T5: a PKCS#1 RSA or SEC1 EC private key's body pasted without its BEGIN/END lines (made here by ``openssl``) was
kept; T6: ``terraform output -json``'s sensitive lists, numbers, map members and strings holding ``\\n`` were kept
(only a plain string after ``"sensitive": true, "type": "string"`` was withheld)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted

# ---- T5: PKCS#1 RSA and SEC1 EC bodies without their BEGIN line ----------------------------------------------
_OPENSSL = shutil.which("openssl")
#: (openssl arguments that write the key to OUT, the BEGIN line the file must have)
_KEYS = {
    "rsa2048": (["genrsa", "-traditional", "-out", "OUT", "2048"], "RSA PRIVATE KEY"),
    "rsa1024": (["genrsa", "-traditional", "-out", "OUT", "1024"], "RSA PRIVATE KEY"),
    "ec-p256": (["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "OUT"], "EC PRIVATE KEY"),
    "ec-p384": (["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "OUT"], "EC PRIVATE KEY"),
    "ec-p521": (["ecparam", "-name", "secp521r1", "-genkey", "-noout", "-out", "OUT"], "EC PRIVATE KEY"),
    "ec-k256": (["ecparam", "-name", "secp256k1", "-genkey", "-noout", "-out", "OUT"], "EC PRIVATE KEY"),
}


def _body(tmp_path: Path, name: str) -> list[str]:
    """The base64 lines of a fresh ``openssl`` key of kind ``name`` (:data:`_KEYS`), its BEGIN/END lines dropped."""
    if _OPENSSL is None:
        pytest.skip("openssl is not installed")
    args, begin = _KEYS[name]
    out = tmp_path / f"{name}.pem"
    subprocess.run([_OPENSSL, *[str(out) if a == "OUT" else a for a in args]], check=True, capture_output=True,
                   timeout=120)
    lines = out.read_text().splitlines()
    assert lines[0] == f"-----BEGIN {begin}-----", lines[0]
    return [ln for ln in lines[1:] if not ln.startswith("-----")]


@pytest.mark.parametrize("name", sorted(_KEYS))
def test_a_pkcs1_or_sec1_body_without_its_begin_line_is_withheld(tmp_path, name):
    lines = _body(tmp_path, name)
    assert_redacted(name, "\n".join(lines), [ln[8:40] for ln in lines if len(ln) >= 40], rule="private-key")
    assert_redacted(name, "here is the key: " + "".join(lines) + " thanks", [lines[0][10:40], lines[-1][:20]],
                    ["here is the key: ", " thanks"], rule="private-key")


def test_a_certificate_body_is_kept(tmp_path):
    """A certificate's body (public) starts ``MII`` too, then ``CCA``, not a private key's version 0."""
    text = "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTESMBAGA1UEChMJQmFsdGltb3Jl"
    assert redact(text).text == text


# ---- T6: every value terraform output -json marks sensitive ---------------------------------------------------
TF1 = {"keys": {"sensitive": True, "type": ["list", "string"], "value": ["listsecret-1", "listsecret-2"]},
       "num": {"sensitive": True, "type": "number", "value": 884411},
       "db_conn": {"sensitive": True, "type": ["map", "string"],
                   "value": {"primary": "postgres://app:MapSecret-4471@db1:5432/app", "replica_key": "MapSecret-5582"}},
       "sendgrid": {"sensitive": True, "type": "string", "value": "multi\nline-secret-3391"},
       "nested": {"value": {"a": ["rev-secret-7781", {"b": 77123.5}]}, "type": "x", "sensitive": True},
       "vpc_id": {"sensitive": False, "type": "string", "value": "vpc-0a1b2c3d"}}
TF_SECRETS = ["listsecret-1", "listsecret-2", "884411", "MapSecret-4471", "MapSecret-5582", "line-secret-3391",
              "rev-secret-7781", "77123.5"]
TF_KEPT = ['"replica_key": "', '"primary": "', '"vpc_id"', "vpc-0a1b2c3d", '"type": ["map", "string"]']


@pytest.mark.parametrize("indent", [None, 2])
def test_every_sensitive_terraform_value_is_withheld(indent):
    text = json.dumps(TF1, indent=indent)
    kept = TF_KEPT if indent is None else [k.replace('["map", "string"]', "[") for k in TF_KEPT]
    assert_redacted(f"indent={indent}", "$ terraform output -json\n" + text, TF_SECRETS, kept, "terraform-output")


def test_the_value_before_its_sensitive_key_and_broken_json():
    out = assert_redacted("value first", '{"token": {"value": ["Zq-first-4410"], "sensitive": true}}', ["Zq-first-4410"],
                          ['"sensitive": true'], "terraform-output")
    assert out.count("[REDACTED:") == 1
    for text in ('{"x": {"sensitive": true, "value": [1, 2', '"sensitive": true, "value": "nope"',
                 '{"sensitive": false, "value": "Kept-1234"}', '{"sensitive": true}'):
        assert "Kept-1234" not in text or redact(text).text == text
        redact(text)      # not JSON: nothing raised


# ---- T4: password-change wordings, a PIN after a comma, a keypad code after its owner, a common word ------------
X, V = "Tulip-Rain-9921", "Velvet-Comet-8812"
#: (text, secret, kept)
WORDINGS = [
    (f"the staging password got reset, now {X}", X, "the staging password got reset, now "),
    (f"login for grafana is admin:{X}", X, "login for grafana is admin:"),
    (f"password was rotated \u2192 {X}", X, "password was rotated \u2192 "),
    (f"Changed pw to {X}", X, "Changed pw to "),
    (f"changed PW for vault to {X}", X, "changed PW for vault to "),
    ("the new pw is tulip rain", "tulip rain", "the new pw is "),
    (f"I've switched my password over to {X}", X, "I've switched my password over to "),
    ("my bank PIN, 4471", "4471", "my bank PIN, "),
    ("the keypad code for the office 77341", "77341", "the keypad code for the office "),
    ("the door code 5520-1199-3377", "5520-1199-3377", "the door code "),
    (f"we moved the db password over to {V}", V, "we moved the db password over to "),
    (f"db password rotated, {V} is live", V, " is live"),
    (f"rotated the root creds to {V}", V, "rotated the root creds to "),
    (f"the root credentials are now {V}", V, "the root credentials are now "),
    (f"changed the password from the default to {V}", V, "from the default to "),
    (f"password update: {V}", V, "password update: "),
    (f"the password's {V} now", V, " now"),
    (f"the new one is {V} (password for grafana)", V, " (password for grafana)"),
    (f"the staging password got reset, now {X} - please update the env file", X, " - please update the env file"),
    (f"login for grafana is admin:{X}, check the dashboards", X, ", check the dashboards"),
    (f"I've switched my password over to {X}, can you update .env", X, ", can you update .env"),
    # T19.4: a password named by a common word is a password the person typed
    ("the staging login password is admin", "admin", "the staging login password is "),
    ("the wifi password is python", "python", "the wifi password is "),
]
#: kept as written: talk about passwords, a condition, words that say how a password is, years, hardware pins
WORDINGS_KEPT = [
    "If the password is external, `retry_pending_registry` falls back to the default",
    '"""If the password is clean, `load_expired_path` falls back to the cache."""',
    "whether the password is python, we check later",
    "the password is required.", "the password is incorrect", "the password is too short", "password is ok",
    "the password is in the vault", "the password is case sensitive", "the password was changed",
    "reset password to default", "changed pw to something stronger",
    "Changed the password from the default to something else",
    "we moved the config over to yaml", "set pin, 17", "my pin, 2024 edition",
    "the credentials are stored in the vault", "the credentials are now rotated", "credentials are fine",
    "the root creds are in 1password", "login for grafana is broken",
    "password update: done", "password update: see the vault", "the password's length now",
    "see the docs (password for grafana)", "the password got reset, now what?",
    "the password was rotated, it is live", "password rotated, v2 is live",
    "the keypad code for the office is on the wiki", "the release is planned for 2024, then",
]


@pytest.mark.parametrize("text,secret,kept", WORDINGS)
def test_the_password_change_wordings_are_withheld(text, secret, kept):
    assert_redacted(text, text, [secret], [kept], "password-phrase")


@pytest.mark.parametrize("text", WORDINGS_KEPT)
def test_their_look_alikes_are_kept(text):
    assert redact(text).text == text


@pytest.mark.parametrize("key", ["user/pin", "user/bank-pin", "project/api/door-code", "user/pin-code", "user/door_code",
                                 "user/bank/pin", "user/atm-pin", "user/sim-puk", "user/alarm-code",
                                 "user/safe-combination", "user/cvv", "user/ssn", "user/bank-pin-2"])
def test_a_key_named_for_a_pin_or_code_withholds_a_code_value(key):
    """test38 T1: ``mem remember user/pin 4471`` kept the PIN in the clear,
    while ``…/staging-password`` was redacted: a key named for a PIN or an
    access code withholds a value shaped as one."""
    from objstore.core.redact.names import redact_named
    for v in ("4471", "4471-9982", "5520 1199 3377", "kq77"):
        assert redact_named(v, key).text == "[REDACTED:named-secret]", (key, v)
    assert redact_named("ask the office", key).text == "ask the office"


@pytest.mark.parametrize("key", ["project/x/zip-code", "project/x/error-code", "project/x/pin-version", "user/editor",
                                 "project/board/led-pin"])
def test_a_key_not_named_for_a_code_or_a_short_value_keeps_it(key):
    from objstore.core.redact.names import redact_named
    assert redact_named("13" if key.endswith("led-pin") else "4471-9982", key).text != "[REDACTED:named-secret]"


def test_a_new_pin_under_a_pin_key_that_reads_the_same_withheld_says_so(store):
    """fresh38 F19: 'mem remember user/pin 8812' after 4471 answered
    "unchanged" with no word that the value was withheld (both read
    [REDACTED:named-secret]): the result counts the redaction, so the
    command warns as for the first write."""
    from objstore.memory import facts
    assert facts.remember(store, "user/pin", "4471").redacted == 1
    r = facts.remember(store, "user/pin", "8812")
    assert not r.written and r.redacted == 1
