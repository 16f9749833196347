"""red33b (test33 T2, T3, T14, T15): secrets that still reached the store in the clear.  A password after a
no-break space (U+00A0, U+202F: macOS Option-Space, Slack, web pages) in prose and changed-to forms, without
eating the word before it; ``Credentials:``/``Logins:``/``Tokens:`` lists of one unsigned pair or on their own
lines; a wallet seed after ``wallet seed is/:`` and as the whole value under a key named ``…/wallet-seed2`` or
``…/mnemonic``; a keypad code with ``#``, a safe's combination, a payment card's number and CVV, a Wi-Fi key in
prose.  Kept: prose, code and numbers of those shapes that hold no credential.  Every secret is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact, redact_named
from tests.core._redaction_util import assert_kept, assert_redacted, check_prompt_hook, check_remembered_and_imported


def pw(i: int) -> str:
    """The fake secret of shape ``i``: letters no object id or time holds."""
    return f"Zq7mb{i:02d}xLpW"


#: 12-word seeds of BIP-39's shape (3-8 letters, no word of prose), each word list its own
SEEDS = ["abandon ability able about above absent absorb abstract absurd abuse access accident",
         "apple banana cherry damp elder fig grape honey iris jade kiwi lemon",
         "orbit pulse quartz raven salmon tundra umbra velvet walnut xenon yodel zephyr"]
#: case -> (text, its secret, what must stay, the rule that names the hit)
CASES = {
    "nbsp-prose": ("use password\u00a0" + pw(1), pw(1), "use password\u00a0", "password-phrase"),
    "nnbsp-prose": ("use password\u202f" + pw(2), pw(2), "use password\u202f", "password-phrase"),
    "nbsp-label": ("password\u00a0" + pw(3), pw(3), "password\u00a0", "password-phrase"),
    "nbsp-changed-to": ("the db password has been changed to\u00a0" + pw(4), pw(4), "changed to\u00a0",
                        "password-phrase"),
    "nbsp-is": ("the password is\u00a0" + pw(5), pw(5), "the password is\u00a0", "password-phrase"),
    "credentials-lone": ("Credentials: bob " + pw(6), pw(6), "Credentials: bob ", "password-phrase"),
    "credentials-lines": ("Credentials:\n  bob: " + pw(7), pw(7), "Credentials:\n  bob: ", "password-phrase"),
    "logins-lines": ("Logins:\n  admin: " + pw(8), pw(8), "Logins:\n  admin: ", "password-phrase"),
    "tokens-lines": ("DB tokens:\n  ci: " + pw(9), pw(9), "DB tokens:\n  ci: ", "password-phrase"),
    "wallet-seed-is": ("my wallet seed is " + SEEDS[0], SEEDS[0], "my wallet seed is ", "seed-phrase"),
    "wallet-seed-colon": ("wallet seed: " + SEEDS[1], SEEDS[1], "wallet seed: ", "seed-phrase"),
    "bitcoin-wallet-seed": ("the bitcoin wallet seed is " + SEEDS[2], SEEDS[2], "the bitcoin wallet seed is ",
                            "seed-phrase"),
    "keypad-hash": ("the garage code is 25807#", "25807#", "the garage code is ", "password-phrase"),
    "keypad-star": ("the gate code is *91735", "*91735", "the gate code is ", "password-phrase"),
    "safe-combination": ("the safe combination is 17-42-86", "17-42-86", "the safe combination is ",
                         "password-phrase"),
    "card-number": ("my credit card is 5555 5555 5555 4444 exp 12/28", "5555 5555 5555 4444",
                    "my credit card is ", "payment-card"),
    "card-cvv": ("card ending 4444, cvv 9317", "9317", "card ending 4444, cvv ", "payment-card"),
    "wifi-key": ("the wifi is called Tulip and its key is " + pw(20), pw(20), "the wifi is called Tulip and its key is ",
                 "password-phrase"),
}

LOOKALIKES = [
    # Unicode spaces in prose and numbers, no credential
    "the price is 1\u202f000 \u20ac", "see\u00a0the password policy", "use the password\u00a0manager",
    # a list head in code, a usage line, a pointer to a vault
    "for token in tokens:\n    token_type = token.type2", "Tokens: input=1523, output=377", "Credentials: see 1Password",
    "Credentials: in vault2",
    # codes that are no keypad's, dates, numbers that fail Luhn, a wifi key's whereabouts
    "the exit code is 1", "the status code: 404", "safe combination is 2024-01-15", "the door code is #",
    "the card is 1234 5678 9012 3456", "Card #1234 of 5000", "the wifi key is in the drawer",
    "the wifi api key is stored in vault",
    # prose after 'wallet seed'
    "the wallet seed is stored offline in a safe",
]


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_shape_is_redacted_by_its_rule(case):
    """Raw and JSON-escaped (the shared check, idempotence included); the label stays whole; the hit is the rule's."""
    text, secret, kept, rule = CASES[case]
    assert_redacted(case, text, [secret], kept=[kept], rule=rule)


def test_a_card_number_and_its_cvv_together():
    """test33 T15's own line: the number and the code both go, the expiry's words stay."""
    out = assert_redacted("card", "my credit card is 4111 1111 1111 1111 exp 12/28 cvv 123",
                          ["4111 1111 1111 1111", "cvv 123"], kept=["exp 12/28 cvv "], rule="payment-card")
    assert out.count("[REDACTED:payment-card]") == 2


@pytest.mark.parametrize("text", LOOKALIKES)
def test_prose_code_and_numbers_of_those_shapes_are_kept(text):
    """Raw and JSON-escaped, nothing taken."""
    assert_kept(text)


@pytest.mark.parametrize("key", ["project/acme/wallet-seed2", "project/acme/mnemonic", "user/btc_wallet_seed"])
def test_a_seed_under_a_key_named_for_it_is_redacted_whole(key):
    """README: a value under a key named for a credential goes whatever its shape; a seed is all dictionary
    words, which the password-shaped words rule never took."""
    res = redact_named(SEEDS[0], key)
    assert res.text == "[REDACTED:named-secret]", res.text
    assert redact_named(SEEDS[0], "project/acme/notes").text == SEEDS[0]   # the shape alone is no credential


def test_no_secret_reaches_a_store_by_remember_import_or_the_prompt_hook(tmp_path, mem, store_path):
    """Real ``mem remember``/``get`` (a seed under ``…/wallet-seed2`` and ``…/mnemonic`` too) and an imported
    transcript's tool results, then the real UserPromptSubmit hook (its own store); each shape redacted, the
    look-alikes as typed, and no file of either store (packs decompressed) holds any secret."""
    for key in ("project/acme/wallet-seed2", "project/acme/mnemonic"):
        mem("remember", key, SEEDS[1])
        out = mem("get", key).stdout
        assert SEEDS[1] not in out and "[REDACTED:named-secret]" in out, out
    one = {c: CASES[c][:3] for c in sorted(CASES)}
    check_remembered_and_imported(mem, tmp_path, "red33b", "33333333-bbbb-4bbb-8bbb-333333333333", one,
                                  sorted(one), LOOKALIKES[0], store=store_path)
    check_prompt_hook(tmp_path / "hook-store", "d1111111-0000-4000-8000-00000003333b", one, LOOKALIKES,
                      "remember that the bitcoin wallet seed is " + SEEDS[2], extra=[SEEDS[2]])
