"""red31 (test30c T6, T14; red30's and red30b's left-out): ways of stating a password, secret, token or PIN that
were stored in the clear in turns and facts: more verbs ('is now set to X', 'changed -> X', 'is going to be X',
"my password? it's X", 'has been reset; the new one is X'), the same verbs after a secret's, token's, api key's
and PIN's label, a qualifier before the verb ('The db password (prod) is X'), a qualifier over 24 characters or in
fullwidth parentheses, a pipe table typed without its delimiter row, a qualified pair row, every pair of a plural
label's list ('Passwords: root = X, admin = Y'), and the copula table's changed-to forms and qualifier
('das Passwort wurde auf X geändert', 'das Passwort (prod) lautet X').  All go through the one entry point, so
``mem remember``, an imported transcript, the prompt hook and the proxy's capture store each redacted; prose
about a password stays.  Every secret is fake."""

from __future__ import annotations

import json

import pytest

from objstore import scan_store
from objstore.core.redact import name_hits, redact
from tests.cmds._credentials import assert_none_stored, run_prompt_hooks
from tests.core._redaction_util import assert_redacted, check_remembered_and_imported
from tests.hooks._util import hook_env


def pw(i: int) -> str:
    """The fake secret of shape ``i``: letters no object id or time holds (no hex run of it can appear by chance)."""
    return f"Zq7mr{i:02d}xLpW"


#: a PIN-like secret (pin_ok: letters and digits, 4-8 characters) whose letters are no hex digit: a store's
#: object ids and times cannot hold it by chance, as a digits-only PIN could
PIN = "kq47zw"

#: (case, text before the secret, the secret (None: pw(i)), text after it, the rule that takes it)
_SHAPES = [
    # test30c T6
    ("got-updated", "my db password got updated to ", None, "", "password-phrase"),
    ("is-now-set-to", "the db password is now set to ", None, "", "password-phrase"),
    ("should-be", "the db password should be ", None, "", "password-phrase"),
    ("pin-code-changed", "my pin code has been changed to ", PIN, "", "password-phrase"),
    ("db-pass-changed", "the db pass has been changed to ", None, "", "password-phrase"),
    ("changed-it-s", "the password has changed, it's ", None, " now", "password-phrase"),
    ("changed-arrow", "password changed -> ", None, "", "password-phrase"),
    ("reset-new-one", "the password has been reset; the new one is ", None, "", "password-phrase"),
    # test30c T14's rest
    ("qualified-is", "The db password (prod) is ", None, "", "password-phrase"),
    ("qualified-for-dash", "DB password for prod - ", None, "", "password-phrase"),
    ("table-no-delimiter", "| user | password |\n| root | ", None, " |", "markdown-secret"),
    ("qualified-pair-row", "| db password (prod) | ", None, " |", "markdown-secret"),
    # red30's left-out
    ("fullwidth-qualifier", "Password\uff08prod\uff09: ", None, "", "generic-secret"),
    ("fullwidth-sign", "DB password\uff08prod\uff09\uff1a", None, "", "generic-secret"),
    ("long-qualifier", "DB password (production eu-west-1 primary): ", None, "", "generic-secret"),
    ("list-second-pair", "Passwords: root = Zq7mrAAxLpW, admin = ", None, "", "password-phrase"),
    ("list-blank-pairs", "DB passwords: prod Zq7mrBBxLpW, staging ", None, "", "password-phrase"),
    ("list-indented", "passwords:\n  root: Zq7mrCCxLpW\n  admin: ", None, "", "password-phrase"),
    # red30b's left-out
    ("question-it-s", "my password? it's ", None, "", "password-phrase"),
    ("typographic-it-s", "my password? it\u2019s ", None, "", "password-phrase"),
    ("token-changed", "the api token has been changed to ", None, "", "password-phrase"),
    ("api-key-rotated", "our api key got rotated to ", None, "", "password-phrase"),
    ("secret-comma-it-is", "the webhook secret, it is ", None, "", "password-phrase"),
    ("secret-became", "the new signing secret became ", None, "", "password-phrase"),
    ("pin-became", "my pin became ", PIN, "", "password-phrase"),
    ("passcode-reset", "the alarm passcode was reset to ", PIN, "", "password-phrase"),
    # further shapes of the same families
    ("going-to-be", "the password is going to be ", None, "", "password-phrase"),
    ("possessive-now", "the password's now ", None, "", "password-phrase"),
    ("now-colon", "password now: ", None, "", "password-phrase"),
    ("aside-between", "the password, by the way, is ", None, "", "password-phrase"),
    ("list-dash", "Passwords \u2014 root: Zq7mrDDxLpW, admin: ", None, "", "password-phrase"),
    ("german-changed", "das Passwort wurde auf ", None, " ge\u00e4ndert", "password-phrase"),
    ("german-qualified", "das Passwort (prod) lautet ", None, "", "password-phrase"),
    ("spanish-changed", "la contrase\u00f1a cambi\u00f3 a ", None, "", "password-phrase"),
    ("french-changed", "le mot de passe a \u00e9t\u00e9 chang\u00e9 en ", None, "", "password-phrase"),
    ("dutch-changed", "het wachtwoord is gewijzigd naar ", None, "", "password-phrase"),
]
#: case -> (text, the secret, what must stay before it, the rule)
CASES = {case: (before + (secret or pw(i)) + after, secret or pw(i), before.split("Zq7mr")[0], rule)
         for i, (case, before, secret, after, rule) in enumerate(_SHAPES)}
#: the list cases' first pair's secret, redacted too
_FIRST_PAIRS = {"list-second-pair": "Zq7mrAAxLpW", "list-blank-pairs": "Zq7mrBBxLpW",
                "list-indented": "Zq7mrCCxLpW", "list-dash": "Zq7mrDDxLpW"}

#: T6's PIN as digits (the redaction alone: no store is searched for a run of digits)
DIGIT_PINS = ["the pin code has been changed to 482913", "my pin became 4711", "my PIN has been changed to 4711",
              "the alarm passcode was reset to 482913", "PIN (safe) is 482913", "pin code, it's 482913"]

#: prose about a password, a token or a PIN with the same verbs, labels and layouts: stored as typed
LOOKALIKES = [
    "the password is going to be reset by IT", "the password, if set, is required",
    "the password's length is 12", "the password now: see the vault", "the token is going to be refreshed",
    "the password, as usual, is stored in the vault", "the password is gonna be something long",
    "the token has been changed to a new format", "the secret became public knowledge",
    "the api token will be rotated monthly", "my pin became loose", "the pin code has been changed to a longer one",
    "cache token be ensure_helm", "the encoded word tokens of this part may be RFC2047",
    "| user | password |\n| root | see vault |", "| db password (prod) | ask #infra |",
    "| field | type |\n| password | string |", "Passwords: see 1Password", "passwords: min 12, max 64",
    "passwords:\n  min_length: 12\n  require_digit: true", "Passwords \u2014 see the wiki",
    "Password (optional) - leave blank for SSO", "the password for everyone - see the wiki",
    "das Passwort wurde auf Wunsch ge\u00e4ndert", "la contrase\u00f1a cambi\u00f3 a las 10",
    "le mot de passe a \u00e9t\u00e9 chang\u00e9 en vain", "het wachtwoord is gewijzigd naar wens",
]


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_redacted(case):
    """Raw, and JSON-escaped as a tool call's argument holds it (the shared check, idempotence included); the
    words before the secret stay, and the rule named is the one that takes it."""
    text, secret, kept, rule = CASES[case]
    secrets = [secret] + ([_FIRST_PAIRS[case]] if case in _FIRST_PAIRS else [])
    assert assert_redacted(case, text, secrets, rule=rule).startswith(kept)
    assert secret not in redact(json.dumps({"command": text})).text


@pytest.mark.parametrize("text", DIGIT_PINS)
def test_digit_pin_redacted(text):
    pin = text.rsplit(" ", 1)[1]
    assert assert_redacted(text, text, [pin], rule="password-phrase") == text[:-len(pin)] + "[REDACTED:password-phrase]"


@pytest.mark.parametrize("text", LOOKALIKES)
def test_look_alike_kept(text):
    assert redact(text).text == text
    esc = json.dumps({"command": text})
    assert redact(esc).text == esc


@pytest.mark.parametrize("case", [c for c in sorted(CASES) if "\n" not in CASES[c][0] and "|" not in CASES[c][0]])
def test_a_key_naming_one_is_refused(case):
    """A ref file's name is stored in the clear: the one name rule reads it through the same rules."""
    assert name_hits("project/x/" + CASES[case][0])


def _store_cases() -> dict:
    return {c: (t, s, k) for c, (t, s, k, _r) in CASES.items()}


def test_stored_by_remember_and_import(tmp_path, mem, store_path):
    """Real ``mem remember``/``get`` and an imported transcript's Bash result; then no file of the store
    (packs decompressed) holds any secret."""
    check_remembered_and_imported(mem, tmp_path, "red31", "31313131-aaaa-4bbb-8ccc-313131313131", _store_cases(),
                                  sorted(CASES), LOOKALIKES[0], store=store_path)
    assert scan_store(store_path, [s.encode() for s in _FIRST_PAIRS.values()]) == []


def test_the_prompt_hook_stores_them_redacted(tmp_path):
    """The real UserPromptSubmit hook stores each shape redacted, the "remember ..." prompt's fact too, and the
    look-alikes as typed; then no file of the store (packs decompressed) holds any secret."""
    store = tmp_path / "store"
    secret = CASES["token-changed"][1]
    run_prompt_hooks(store, hook_env(store), "d1111111-0000-4000-8000-000000003131",
                     ["Use this: " + "\n".join(t for t, *_ in CASES.values()), "Keep: " + "\n".join(LOOKALIKES[:3]),
                      "remember the api token has been changed to " + secret])
    assert_none_stored(store, [(text, s, rule) for text, s, _kept, rule in CASES.values()], LOOKALIKES)
    assert scan_store(store, [c[1].encode() for c in CASES.values()]
                      + [s.encode() for s in _FIRST_PAIRS.values()]) == []
