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
from tests.core._redaction_util import assert_redacted, check_prompt_hook, check_remembered_and_imported


def pw(i: int) -> str:
    """The fake secret of shape ``i``: letters no object id or time holds (no hex run of it can appear by chance)."""
    return f"Zq7mr{i:02d}xLpW"


#: a PIN-like secret (pin_ok: letters and digits, 4-8 characters) whose letters are no hex digit: a store's
#: object ids and times cannot hold it by chance, as a digits-only PIN could
PIN = "kq47zw"

#: (case, its text with "{}" where the secret stands, the secret (None: pw(i)))
_SHAPES = [
    # test30c T6
    ("got-updated", "my db password got updated to {}"),
    ("is-now-set-to", "the db password is now set to {}"),
    ("should-be", "the db password should be {}"),
    ("pin-code-changed", "my pin code has been changed to {}", PIN),
    ("db-pass-changed", "the db pass has been changed to {}"),
    ("changed-it-s", "the password has changed, it's {} now"),
    ("changed-arrow", "password changed -> {}"),
    ("reset-new-one", "the password has been reset; the new one is {}"),
    # test30c T14's rest
    ("qualified-is", "The db password (prod) is {}"),
    ("qualified-for-dash", "DB password for prod - {}"),
    ("table-no-delimiter", "| user | password |\n| root | {} |"),
    ("qualified-pair-row", "| db password (prod) | {} |"),
    # red30's left-out
    ("fullwidth-qualifier", "Password\uff08prod\uff09: {}"),
    ("fullwidth-sign", "DB password\uff08prod\uff09\uff1a{}"),
    ("long-qualifier", "DB password (production eu-west-1 primary): {}"),
    ("list-second-pair", "Passwords: root = Zq7mrAAxLpW, admin = {}"),
    ("list-blank-pairs", "DB passwords: prod Zq7mrBBxLpW, staging {}"),
    ("list-indented", "passwords:\n  root: Zq7mrCCxLpW\n  admin: {}"),
    # red30b's left-out
    ("question-it-s", "my password? it's {}"),
    ("typographic-it-s", "my password? it\u2019s {}"),
    ("token-changed", "the api token has been changed to {}"),
    ("api-key-rotated", "our api key got rotated to {}"),
    ("secret-comma-it-is", "the webhook secret, it is {}"),
    ("secret-became", "the new signing secret became {}"),
    ("pin-became", "my pin became {}", PIN),
    ("passcode-reset", "the alarm passcode was reset to {}", PIN),
    # further shapes of the same families
    ("going-to-be", "the password is going to be {}"),
    ("possessive-now", "the password's now {}"),
    ("now-colon", "password now: {}"),
    ("aside-between", "the password, by the way, is {}"),
    ("list-dash", "Passwords \u2014 root: Zq7mrDDxLpW, admin: {}"),
    ("german-changed", "das Passwort wurde auf {} ge\u00e4ndert"),
    ("german-qualified", "das Passwort (prod) lautet {}"),
    ("spanish-changed", "la contrase\u00f1a cambi\u00f3 a {}"),
    ("french-changed", "le mot de passe a \u00e9t\u00e9 chang\u00e9 en {}"),
    ("dutch-changed", "het wachtwoord is gewijzigd naar {}"),
]
#: the rule that takes a case's secret where it is not password-phrase
RULE_OF = {"table-no-delimiter": "markdown-secret", "qualified-pair-row": "markdown-secret",
           "fullwidth-qualifier": "generic-secret", "fullwidth-sign": "generic-secret", "long-qualifier": "generic-secret"}
#: case -> (text, the secret, what must stay before it, the rule)
CASES = {case: (tmpl.format(secret), secret, tmpl.split("{}")[0].split("Zq7mr")[0], RULE_OF.get(case, "password-phrase"))
         for i, (case, tmpl, *sec) in enumerate(_SHAPES) for secret in [sec[0] if sec else pw(i)]}
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
    check_prompt_hook(tmp_path / "store", "d1111111-0000-4000-8000-000000003131", CASES, LOOKALIKES,
                      "remember the api token has been changed to " + CASES["token-changed"][1],
                      extra=_FIRST_PAIRS.values())


def test_rows_that_each_read_as_a_header_are_read_once(monkeypatch):
    """test31c W15: a body row was read again as the header of a new table,
    with every row after it: 1,000 '| user | password |' rows took ~1.4 s
    (70x base) and a pasted 39 KB prompt timed the hook out.  Counted in
    rows split into cells (no clock): each row about twice (as a header
    candidate and as a row), not once per header above it (~80,000)."""
    from objstore.core.redact import markdown
    reads = []
    real = markdown._cells
    monkeypatch.setattr(markdown, "_cells", lambda low, a, b, sep: reads.append(a) or real(low, a, b, sep))
    for text in ("| user | password |\n" * 400, json.dumps({"c": "| user | password |\n" * 400})):
        reads.clear()
        redact(text)
        assert len(reads) <= 3 * 400, len(reads)
