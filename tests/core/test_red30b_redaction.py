"""red30b (test30b S13): common English ways of stating a password that were stored in the clear, in turns and
facts: a verb beyond 'is|was' ('has been changed to X', 'got rotated to X', 'would be X', 'stays X', 'became X',
'being X'), a comma, '?' or '(' and 'it|which' between the label and its verb ('my github password, it is X',
'the db password (it is X)', 'the root password? it is X'), a comma after the verb ('is, X') and a relative
clause ('the password that I use is X', 'the password we picked was X'); after these heads a quoted passphrase
or 4+ plain words, judged as after 'is|was'.  Three rules of
:mod:`objstore.core.redact.passwordphrases`, read by the one entry point, so ``mem remember``, an imported
transcript, the prompt hook (turn and "remember" fact) and the proxy's capture store each redacted; prose about a
password stays.  Every secret is fake."""

from __future__ import annotations

import json

import pytest

from objstore.core.redact import name_hits, redact
from tests.core._redaction_util import assert_redacted, check_prompt_hook, check_remembered_and_imported


def pw(i: int) -> str:
    """The fake password of shape ``i``: letters no object id or time holds (no hex run of it can appear by chance)."""
    return f"Zq7mb{i:02d}xLpW"


#: (case, text before the secret, the secret (None: pw(i)), text after it)
_SHAPES = [
    ("has-been-changed", "the db password has been changed to ", None, ""),
    ("hook-sentence", "fyi the staging db password has been changed to ", None, ", please update the env file"),
    ("got-rotated", "the db password got rotated to ", None, ""),
    ("was-reset", "the db password was reset to ", None, "."),
    ("comma-it-is", "my github password, it is ", None, ""),
    ("comma-which", "the db password, which is ", None, ""),
    ("paren-it-is", "the db password (it is ", None, ")"),
    ("is-comma", "the db password is, ", None, ""),
    ("question-it-is", "the root password? it is ", None, ""),
    ("being", "password being ", None, ""),
    ("that-i-use", "the password that I use is ", None, ""),
    ("we-picked", "the password we picked was ", None, ""),
    ("would-be", "the password would be ", None, ""),
    ("will-be", "the new password will be ", None, " from Monday"),
    ("stays", "the prod password stays ", None, ""),
    ("became", "the new password became ", None, ""),
    ("owner-rotated", "the password for the staging box got rotated to ", None, ""),
    ("passphrase-comma", "my ssh passphrase, it is ", "blue-otter-canyon", ""),
    ("passphrase-quoted", 'my ssh passphrase, it is "', "correct horse battery", '"'),
    ("passphrase-words", "the wifi password, it is ", "tulip river amber canyon", ""),
    ("passphrase-changed", "the vpn password has been changed to ", "otter maple quartz lantern", "."),
]
#: case -> (text, the secret, what must stay before it)
CASES = {case: (before + (secret or pw(i)) + after, secret or pw(i), before)
         for i, (case, before, secret, after) in enumerate(_SHAPES)}

#: prose about a password, with the same verbs: stored as typed
LOOKALIKES = [
    "the password was changed to meet the policy", "the password is required", "your password would be reset by IT",
    "the password has been changed to something stronger", "the password, which is required, must be long",
    "password being reset now", "the password we picked was too short", "the password stays the same",
    "the new password became active yesterday", "my ssh passphrase, it is long", "the password (it is optional)",
    "the root password? it is in the vault", "the password got rotated to the new vault",
    "the password that I use is secret", "the password would be nice to have",
    "the password has been set to expire in 90 days", "the password will be emailed to you",
    "the password is, as always, in the vault", "passwords would be hashed with argon2",
    "the password has been changed to something much stronger now",
    "the password would be reset by the IT team tomorrow", "the password, which is stored in the vault as usual",
    "the password will be sent to you by email", "the password that we use is the same as before",
]


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_redacted(case):
    """Raw, and JSON-escaped as a tool call's argument holds it (the shared check, idempotence included)."""
    text, secret, kept = CASES[case]
    assert assert_redacted(case, text, [secret], rule="password-phrase").startswith(kept)
    assert secret not in redact(json.dumps({"command": text})).text


@pytest.mark.parametrize("text", LOOKALIKES)
def test_look_alike_kept(text):
    assert redact(text).text == text


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_key_naming_one_is_refused(case):
    """A ref file's name is stored in the clear: the one name rule reads it through the same rules."""
    assert name_hits("project/x/" + CASES[case][0])


def test_stored_by_remember_and_import(tmp_path, mem, store_path):
    """Real ``mem remember``/``get`` and an imported transcript's Bash result; then no file of the store
    (packs decompressed) holds any secret."""
    check_remembered_and_imported(mem, tmp_path, "red30b", "30b30b30-aaaa-4bbb-8ccc-30b30b30b30b", CASES,
                                  sorted(CASES), LOOKALIKES[0], store=store_path)


def test_the_prompt_hook_stores_them_redacted(tmp_path):
    """The real UserPromptSubmit hook stores each shape redacted, the "remember ..." prompt's fact too, and the
    look-alikes as typed; then no file of the store (packs decompressed) holds any secret."""
    check_prompt_hook(tmp_path / "store", "d1111111-0000-4000-8000-00000030b30b", CASES, LOOKALIKES,
                      "remember my ssh passphrase, it is " + CASES["passphrase-comma"][1])
