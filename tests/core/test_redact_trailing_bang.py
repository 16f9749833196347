"""A trailing ``!`` goes with the password in prose as in the pair and label
forms (lane rob11): ``the password is P@ssw0rd!`` kept the ``!`` outside
the placeholder, while ``password: P@ssw0rd!`` and ``admin / P@ssw0rd!``
took it.  A ``!`` still makes no word a password (``the password is
wrong!``).  Every value here is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact

TAKEN = [
    ("the password is P@ssw0rd!", "the password is [REDACTED:password-phrase]"),
    ("the password is P@ssw0rd! and more", "the password is [REDACTED:password-phrase] and more"),
    ("my password was Tr0ub4dor&3!!", "my password was [REDACTED:password-phrase]"),
    ("the password is P@ssw0rd!.", "the password is [REDACTED:password-phrase]."),
    ("the password for the staging box is Stag1ngFake!", "the password for the staging box is [REDACTED:password-phrase]"),
    ("my passphrase is Tr0ub4dorFake!", "my passphrase is [REDACTED:password-phrase]"),
    ("my pw is PwFake2024!", "my pw is [REDACTED:password-phrase]"),
    ("the wifi pass is Guest2024Fake!", "the wifi pass is [REDACTED:password-phrase]"),
    ("the secret is s3cr3tV4lFake!", "the secret is [REDACTED:password-phrase]"),
    # the pair and label forms, as before: the same answer for the same password
    ("password: P@ssw0rd!", "password: [REDACTED:generic-secret]"),
    ("login admin / P@ssw0rd!", "login admin / [REDACTED:password-phrase]"),
    ("Password - P@ssw0rd!", "Password - [REDACTED:password-phrase]"),
]

KEPT = ["the password is wrong!", "my password is incorrect!", "the token is invalid!",
        "the secret is out!", "the password is P@ssw0rd? no."]


@pytest.mark.parametrize("text,want", TAKEN)
def test_a_trailing_bang_goes_with_the_password(text, want):
    assert redact(text).text == want


@pytest.mark.parametrize("text", KEPT[:4])
def test_a_bang_makes_no_word_a_password(text):
    assert redact(text).text == text


def test_a_question_mark_stays_sentence_punctuation():
    assert redact(KEPT[4]).text == "the password is [REDACTED:password-phrase]? no."
