"""red32: secrets in prose that still reached the store in the clear.  test31b V4: 2FA recovery or backup
codes, a TOTP seed or a client secret given with a blank (``otp secret X``, ``client_secret X``), a wallet's
seed phrase, and keys named for them (``…/wallet-seed``, ``…/mnemonic``, ``…/totp``).  test31c W1: a change
told as 'from OLD to NEW' (both values), an adverb before 'been' ('has now been changed to X'), 'changed again
to', 'should now be', 'has become', 'used to be', 'is, as of today,', and 'password OLD -> NEW'.  test31c W2:
'Password list:', 'Credentials:', 'Logins:' and 'Tokens:' lists of pairs, a qualifier in fullwidth square or
lenticular brackets.  test31c W3: a log field or a compound adjective after 'changed to' is no password.
Every secret is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from objstore.core.redact.keywords import credential_name
from tests.core._redaction_util import assert_kept, assert_redacted, check_prompt_hook, check_remembered_and_imported


def pw(i: int) -> str:
    """The fake secret of shape ``i``: letters no object id or time holds (no hex run of it can appear by chance)."""
    return f"Zq7mr{i:02d}xLpW"


#: a seed phrase of BIP-39 words (the list's first twelve)
SEED = "abandon ability able about above absent absorb abstract absurd abuse access accident"
#: case -> (text, its secrets, what must stay)
CASES = {
    "recovery-codes": (f"github 2FA recovery codes: kq7wr-{pw(1)[-4:]}x kq8wr-mzpw9x", ["kq7wr-", "kq8wr-mzpw9x"],
                       "recovery codes: "),
    "backup-codes-lines": ("backup codes:\n  kq7w-rm2z\n  kq8w-rm3z", ["kq7w-rm2z", "kq8w-rm3z"], "backup codes:"),
    "otp-secret": ("otp secret JBSWY3DPEHPK3PXPZQMW", ["JBSWY3DPEHPK3PXPZQMW"], "otp secret "),
    "seed-phrase": (f"seed phrase: {SEED}", ["absent absorb"], "seed phrase: "),
    "mnemonic": (f"my wallet mnemonic is {SEED}", ["absent absorb"], "mnemonic is "),
}
#: case -> its text, a secret at each "{n}" (what stands before the first stays)
_TEMPLATES = {
    "recovery-code": "recovery code: {0}", "client-secret": "client_secret {0}",
    # W1: a change told with both values, an adverb, 'again', a modal, 'become', 'used to be', an aside, an arrow
    "from-to": "the db password has been changed from {0} to {1}", "was-from-to": 'the password was changed from "{0}" to "{1}"',
    "changed-the-from": "I changed the password from {0} to {1}", "now-been": "Our VPN password has now been changed to {0}",
    "just-been": "the password has just been changed to {0}", "again": "the password has been changed again to {0}",
    "should-now": "the password should now be {0}", "has-become": "my password has become {0}",
    "used-to-be": "the password used to be {0}", "as-of-today": "the db password is, as of today, {0}",
    "arrow-both": "db password {0} -> {1}",
    # W1: the verb before a token's label
    "rotated-token": "we rotated the api token to {0}", "changed-token-from": "I changed the api token from {0} to {1}",
    # W2: lists of pairs, fullwidth qualifiers
    "password-list": "Password list: root = {0}, admin = {1}", "credentials": "Credentials: root = {0}, admin = {1}",
    "logins": "Logins: root / {0}, admin / {1}", "tokens": "Tokens: github = {0}Kq, npm = {1}Mw",
    "yaml-dash": "passwords:\n  - root: {0}\n  - admin: {1}",
    "fullwidth-square": "DB password\uff3bprod\uff3d: {0}", "lenticular": "DB password\u3010prod\u3011: {0}",
    # red31b's left-out: a camel-case version suffix after the word
    "camel-old": "dbPasswordOld={0}", "camel-new": "smtpPasswordNew: {0}",
}
for _i, (_case, _tmpl) in enumerate(_TEMPLATES.items()):
    _secrets = [pw(100 + 2 * _i + k) for k in range(_tmpl.count("{"))]
    CASES[_case] = (_tmpl.format(*_secrets), _secrets, _tmpl.split("{")[0])

LOOKALIKES = [
    "Tokens: input=1523, output=377, total=1900", "tokens: 1234 / 4096 used", "Logins: 3 / 5 failed today",
    "Credentials: see 1Password, admin = ask Bob", "recovery codes: 10 left", "backup code: use one of the ten",
    "the seed phrase is the only way to restore your wallet if you lose the device and the backup",
    "client_secret is required", "otp secret length must be 16", "otp secret: see the authenticator app",
    "the password has been changed again to meet the policy", "the password should now be rotated",
    "my password has become too long", "2026-12-05 12:00:01 INFO password changed -> user_id=4521 ok",
    "the api token has been changed to read-only scope", "the token changed from v1 to v2",
    "the password used to be stored in plain text", "db password -> see vault",
    "the password policy has been changed from 8 to 12 characters",
    "we changed the token to a JWT", "I reset the api key to default", "changed the token from JWT to opaque",
    "passwords:\n  - min_length: 12\n  - require_symbol: true", "tokenNext = cursor", 'passwordOld = request.form["old"]', "PASSWORD_BACKUP_DIR=/var/backups",
]


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_redacted(case):
    """Raw and JSON-escaped (the shared check, idempotence included); the label stays."""
    text, secrets, kept = CASES[case]
    assert_redacted(case, text, secrets, kept=[kept])


@pytest.mark.parametrize("text", LOOKALIKES)
def test_look_alike_kept(text):
    assert_kept(text)


@pytest.mark.parametrize("key", ["wallet-seed", "mnemonic", "seed-phrase", "totp", "mfa-seed", "recovery-phrase",
                                 "2fa-secret", "totp-key"])
def test_a_key_named_for_a_second_factor_is_a_credential(key):
    assert credential_name("user/" + key) == "secret"


@pytest.mark.parametrize("key", ["seed", "seeds", "db-seed", "phrase", "random-seed"])
def test_a_seed_of_another_kind_is_not(key):
    assert credential_name("project/db/" + key) is None


def test_the_old_value_is_taken_only_with_the_new():
    """'from OLD to NEW' takes OLD only where the new value is taken: 'changed from the admin panel' is prose."""
    text = "the password was changed from the admin panel to the new scheme"
    assert redact(text).text == text


def test_stored_by_remember_and_import(tmp_path, mem, store_path):
    """Real ``mem remember``/``get`` and an imported transcript's tool results; then no file of the store
    (packs decompressed) holds any secret."""
    one = {c: (t, s[0], k) for c, (t, s, k) in CASES.items()}
    check_remembered_and_imported(mem, tmp_path, "red32b", "32323232-bbbb-4bbb-8bbb-323232323232", one,
                                  sorted(one), LOOKALIKES[0], store=store_path)


def test_the_prompt_hook_stores_them_redacted(tmp_path):
    """The real UserPromptSubmit hook stores each shape redacted and the look-alikes as typed."""
    one = {c: (t, s[0], k) for c, (t, s, k) in CASES.items()}
    check_prompt_hook(tmp_path / "store", "d1111111-0000-4000-8000-000000032b32", one, LOOKALIKES,
                      "remember that the db password has been changed from " + pw(40) + " to " + pw(41),
                      extra=[pw(40), pw(41)])


#: test31c W17: a value of several words under a key named for a credential -> the password-shaped words in it
NAMED = {
    f"{pw(50)} since Monday": [pw(50)], "it is hunter2": ["hunter2"], "use hunter2": ["hunter2"],
    "hunter2 (rotated monthly)": ["hunter2"], f"old: {pw(51)} new: {pw(52)}": [pw(51), pw(52)],
    f"{pw(53)} (the new one)": [pw(53)],
}
NAMED_KEPT = ["stored in 1Password", "packed canary-58813 one", "the host is kiwi-17", "see vault: prod/db",
              "$DB_PASSWORD from the env", "min length 12, needs a symbol",
              "rotated every 90 days on db-prod-2.example.com", "ask Bob for it"]


@pytest.mark.parametrize("value", sorted(NAMED))
def test_a_password_in_prose_under_a_credential_key(value):
    from objstore.core.redact import redact_named
    out = redact_named(value, "project/web/db-password").text
    assert not [s for s in NAMED[value] if s in out] and "[REDACTED:" in out, out
    assert redact_named(out, "project/web/db-password").text == out


@pytest.mark.parametrize("value", NAMED_KEPT)
def test_a_note_under_a_credential_key_is_kept(value):
    from objstore.core.redact import redact_named
    assert redact_named(value, "project/web/db-password").text == value


def test_remember_under_a_credential_key_stores_no_password_in_prose(mem, store_path):
    """A real ``mem remember project/web/db-password "<X> since Monday"`` (W17): ``mem get`` and every file of the
    store (packs decompressed) are without X; the words around it stay."""
    from objstore import scan_store
    mem("remember", "project/web/db-password", f"{pw(54)} since Monday")
    out = mem("get", "project/web/db-password").stdout
    assert pw(54) not in out and "since Monday" in out
    assert scan_store(store_path, [pw(54).encode()]) == []


def test_a_password_corrected_after_a_take_back_is_redacted_too():
    """test32b Y7: the capture reads a take-back's value as the statement's
    ('… password is A. Correction: B.' stores B), yet the turn redacted the
    withdrawn A and kept B, the password in use, in the clear."""
    from objstore.core.redact import redact
    for said, gone in [("remember that the db password is Hunter2Secret99. Correction: Zq7mmTr33xQw.", "Zq7mmTr33xQw"),
                       ("remember that the wifi password is Foo12345678q \u2014 no wait, Bar98765432x", "Bar98765432x"),
                       ("the wifi password is Foo12345678q. Actually no, make it Zq7mmTr33xQw.", "Zq7mmTr33xQw"),
                       ("the db password is Foo12345678q, my mistake: Zq7mmTr33xQw", "Zq7mmTr33xQw"),
                       ("my password is hunter2-x9Q. no wait, it is hunter3-x9Q", "hunter3-x9Q")]:
        out = redact(said).text
        assert gone not in out and "Foo12345678q" not in out and "Hunter2Secret99" not in out, out
    for kept in ("the password is Foo12345678q. Sorry for the delay.",
                 "the password is Foo12345678q. Oops, the build broke."):
        assert redact(kept).text.endswith(kept.split(". ", 1)[1])


def test_a_password_said_now_currently_or_upgraded_is_redacted_in_the_turn():
    """test32b Y13: the key-name rule redacted the fact "the db password now
    is X", the prompt's turn kept X ("now is", "is currently", "has been
    upgraded to")."""
    from objstore.core.redact import redact
    for said, gone in [("remember that the db password now is Xq7vv92LmPzk", "Xq7vv92LmPzk"),
                       ("remember that the db password is currently Wq7vv92LmPzk", "Wq7vv92LmPzk"),
                       ("remember that the vpn password has been upgraded to Kp9vvLm44yW", "Kp9vvLm44yW"),
                       ("the root password is currently Zz7vv92LmPzk, use it for the migration", "Zz7vv92LmPzk")]:
        assert gone not in redact(said).text, said
    for kept in ("the password field is currently empty", "our password policy was upgraded to stricter rules"):
        assert redact(kept).text == kept
