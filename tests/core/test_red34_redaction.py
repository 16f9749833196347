"""red34 (test33 T4, T9, T10, T19; red33's and red33b's left-outs): secrets earlier testers still saw in the clear.
A label in mixed Latin and Cyrillic script (a keyboard layout switched inside the word); a passphrase after
``pw:`` or holding a word of a UI text (``please``); ``MY_APP_CREDENTIAL=`` with a short password; a random token
that merely holds ``example``/``SAMPLE``; ``CARD_PIN=4711``; a value under a numbered key (``…/db-pass3``).  Kept:
the next line under an empty ``REDIS_PASSWORD=`` when it is an assignment of its own, GPIO pins, UI texts after a
label, placeholders, and the value after a mixed-script label is read as written.  Every secret is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact, redact_named
from objstore.core.redact.keywords import credential_name
from objstore.core import text as core_text
from tests.core._redaction_util import assert_kept, assert_redacted, check_prompt_hook, check_remembered_and_imported


def pw(i: int) -> str:
    """The fake secret of shape ``i``: letters no object id or time holds."""
    return f"Zq7mc{i:02d}xLpW"


#: Cyrillic letters written inside Latin words (and the reverse), as a keyboard layout switched mid-word types them
CYR_A, CYR_E, CYR_O, LAT_O = "\u0430", "\u0435", "\u043e", "o"
PAROL = "\u043f\u0430\u0440\u043e\u043b\u044c"   # Russian/Ukrainian 'password'
#: a random session token with "example" glued to its end, and an API key with "SAMPLE" inside
SESSION = "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD6example"
SAMPLE_KEY = "xk_live_8Fh2SAMPLEp9Qz3Lm7Rt"
#: case -> (text, its secret, what must stay, the rule that names the hit)
CASES = {
    "mixed-latin-label": (f"p{CYR_A}ssword: {pw(1)}", pw(1), f"p{CYR_A}ssword: ", "generic-secret"),
    "mixed-cyrillic-label": (f"\u043f\u0430\u0440{LAT_O}\u043b\u044c: {pw(2)}", pw(2), f"\u043f\u0430\u0440{LAT_O}\u043b\u044c: ",
                             "markdown-secret"),
    "mixed-env-name": (f"DB_P\u0410SSWORD={pw(3)}", pw(3), "DB_P\u0410SSWORD=", "generic-secret"),
    "mixed-secret": (f"secr{CYR_E}t = {pw(4)}", pw(4), f"secr{CYR_E}t = ", "generic-secret"),
    "pw-passphrase": ("Admin pw: Correct Horse Battery Staple", "Correct Horse Battery Staple", "Admin pw: ",
                      "password-phrase"),
    "pwd-passphrase": ("Admin pwd: tulip river amber lantern", "tulip river amber lantern", "Admin pwd: ",
                       "password-phrase"),
    "please-passphrase": ("Password: open sesame pretty please", "open sesame pretty please", "Password: ",
                          "password-phrase"),
    "credential-name": ("MY_APP_CREDENTIAL=Zt5#wq", "Zt5#wq", "MY_APP_CREDENTIAL=", "generic-secret"),
    "credentials-name": ("DEPLOY_CREDENTIALS=Kv8!rz", "Kv8!rz", "DEPLOY_CREDENTIALS=", "generic-secret"),
    "token-example-glued": ("aws_session_token = " + SESSION, SESSION, "aws_session_token = ", "generic-secret"),
    "key-sample-inside": ("api_key: " + SAMPLE_KEY, SAMPLE_KEY, "api_key: ", "generic-secret"),
    "card-pin-env": ("CARD_PIN=4711", "4711", "CARD_PIN=", "password-phrase"),
    "card-pin-snake": ("card_pin = 4711", "4711", "card_pin = ", "password-phrase"),
    "sim-pin-dash": ("sim-pin: 8264", "8264", "sim-pin: ", "password-phrase"),
    "empty-then-value": ("REDIS_PASSWORD=\n" + pw(5), pw(5), "REDIS_PASSWORD=\n", "generic-secret"),
}

LOOKALIKES = [
    # an empty password in a .env, then the next variable (also as Claude Code's Read tool numbers its lines)
    "REDIS_PASSWORD=\nDB_HOST=db9.internal",
    "     9\u2192REDIS_PASSWORD=\n    10\u2192DB_HOST=db9.internal",
    "Password:\nexport DB_NAME=orders",
    # GPIO pins and numbers after a pin that is no card's
    "led_pin = 17", "pin = 13", "discard_pin_count = 4711", "LED_PIN=17",
    # UI texts and notes after an explicit label
    "Password: Please Contact Admin", "Password: please ask the admin", "Password: Confirm Current Password",
    "Password: see the vault", "Admin pw: see the vault", "pwd - print working directory", "pwd: /home/dev/proj",
    # placeholders: a whole placeholder, one as a part of its own, one at the start, a human-made fake, AWS's own
    "token: your_token_here_1234567890abcdef", "api_key: sk_test_example_key_1234567890abcd",
    "token = exampleTokenValue12345678", "token = MyTokenExample1234567890", "api_key: <your-api-key-here-123456>",
    # Cyrillic and mixed words that are no label; a label's value is read as written
    "\u041f\u0440\u0438\u0432\u0435\u0442 world", f"p{CYR_A}sta: Hunter2x9", f"t{CYR_O}kens used: 1523",
    # a setting about a credential, not one
    "CREDENTIALS_FILE=/etc/app/creds.json",
]


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_shape_is_redacted_by_its_rule(case):
    """Raw and JSON-escaped (the shared check, idempotence included); the label stays as written; the hit is the
    rule's."""
    text, secret, kept, rule = CASES[case]
    assert_redacted(case, text, [secret], kept=[kept], rule=rule)


@pytest.mark.parametrize("text", LOOKALIKES)
def test_prose_code_placeholders_and_pins_of_those_shapes_are_kept(text):
    """Raw and JSON-escaped, nothing taken."""
    assert_kept(text)


def test_the_line_after_an_empty_password_keeps_its_assignment_and_its_own_secret_goes():
    """test33 T10 in its .env: the host stays whole, and the next line's own credential is judged by its name."""
    text = "REDIS_PASSWORD=\nMY_APP_CREDENTIAL=Zt5#wq\nDB_HOST=db9.internal"
    out = redact(text).text
    assert out == "REDIS_PASSWORD=\nMY_APP_CREDENTIAL=[REDACTED:generic-secret]\nDB_HOST=db9.internal", out


def test_a_mixed_script_label_is_folded_and_its_value_is_not():
    """The fold reads the label only, one character for one (offsets stay); words that are no label, and the
    value after the label, stay as written."""
    value = f"H{CYR_E}llo{pw(6)}"
    text = f"p{CYR_A}ssword: {value} and \u043f\u0430\u0440{LAT_O}\u043b\u044c"
    fold_labels = core_text.fold_labels   # red34's (on the base: no such function, the test fails)
    folded = fold_labels(text)
    assert folded == f"password: {value} and {PAROL}"
    assert len(folded) == len(text)
    assert fold_labels("\u041f\u0440\u0438\u0432\u0435\u0442 world") == "\u041f\u0440\u0438\u0432\u0435\u0442 world"
    assert fold_labels(f"p{CYR_A}sta") == f"p{CYR_A}sta"
    assert redact(text).text == f"p{CYR_A}ssword: [REDACTED:generic-secret] and \u043f\u0430\u0440{LAT_O}\u043b\u044c"


@pytest.mark.parametrize("key, kind", [("project/acme/db-pass3", "password"), ("project/acme/pw2", "password"),
                                       ("project/acme/api-key-2", "secret"), ("project/acme/db_password12", "password"),
                                       ("project/acme/bypass3", None), ("project/acme/compass2", None),
                                       ("project/acme/token-budget2", None), ("project/acme/passes2", None)])
def test_a_numbered_key_is_read_as_its_name(key, kind):
    """red33b's left-out: a number after the credential's word; a longer word holding it stays no credential."""
    assert credential_name(key) == kind
    res = redact_named("hunter2x", key)
    assert (res.text == "[REDACTED:named-secret]") == (kind is not None), res.text


def test_aws_documented_fake_keys_are_judged_as_before():
    """The AWS fakes end in EXAMPLE(KEY): their vendor rules take them as on the base; a glued placeholder word
    alone at such an end never makes a generic token a secret."""
    for text in ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
                 "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"):
        assert "EXAMPLE" not in redact(text).text
    assert_kept("token = Zq8Kx3mPw2nR7tY4vEXAMPLE")


def test_no_secret_reaches_a_store_by_remember_import_or_the_prompt_hook(tmp_path, mem, store_path):
    """Real ``mem remember``/``get`` (``hunter2x`` under ``…/db-pass3``, test33's own lines) and an imported
    transcript's tool results, then the real UserPromptSubmit hook (its own store); each shape redacted, the
    look-alikes as typed, and no file of either store (packs decompressed) holds any secret."""
    mem("remember", "project/acme/db-pass3", "hunter2x")
    out = mem("get", "project/acme/db-pass3").stdout
    assert "hunter2x" not in out and "[REDACTED:named-secret]" in out, out
    mem("remember", "project/acme/env", "REDIS_PASSWORD=\nDB_HOST=db9.internal")
    assert "DB_HOST=db9.internal" in mem("get", "project/acme/env").stdout
    one = {c: CASES[c][:3] for c in sorted(CASES)}
    check_remembered_and_imported(mem, tmp_path, "red34", "34343434-aaaa-4aaa-8aaa-343434343434", one,
                                  sorted(one), LOOKALIKES[0], store=store_path)
    check_prompt_hook(tmp_path / "hook-store", "d1111111-0000-4000-8000-000000034340", one, LOOKALIKES,
                      f"remember that the staging p{CYR_A}ssword: {pw(9)}", extra=[pw(9), "hunter2x"])
