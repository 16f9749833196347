"""red33: red32's left-outs that still reached the store in the clear.  A password table typed with neither
outer pipes nor a delimiter row ('user | password' LF 'root | X'); a tab-separated paste of user and password
columns; a table's rows past the 200th; a password's hash under a name for it (``PASSWORD_HASH=…``,
``password_digest:``, ``hashed_password =``: credential material, an offline cracker's input); a card's or a
SIM's PIN assigned (``card pin = 4711``).  Kept: a token's id (``TOKEN_ID=…``, a name for the token, printed by
the tools beside the secret), a hash algorithm's name, a board's pin.  Every secret is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_kept, assert_redacted, check_prompt_hook, check_remembered_and_imported


def pw(i: int) -> str:
    """The fake secret of shape ``i``: letters no object id or time holds (no hex run of it can appear by chance)."""
    return f"Zq7mr{i:02d}xLpW"


def bcrypt(i: int) -> str:
    """A fake bcrypt hash (crypt(5): '$2b$', cost, 53 characters of salt and digest) holding :func:`pw`."""
    return "$2b$12$" + (pw(i) + "Kd9rTvQm2Lx8Wn4HyPz6JbFs1Gc3Ne5Ua7Rk0Vt.Yo/Mi")[:53]


def table(n: int, secret_row: int, secret: str, framed: bool = True) -> str:
    """A password table of ``n`` body rows, ``secret`` in the row ``secret_row`` (counted from 1), the rest fakes
    of another shape (each a password too: a table read to its end takes them all)."""
    rows = [f"u{i} | {secret if i == secret_row else f'Kp{i:04d}rWx9'}" for i in range(1, n + 1)]
    if framed:
        return "| user | password |\n|---|---|\n" + "".join(f"| {r} |\n" for r in rows)
    return "user | password\n" + "\n".join(rows)


#: a SHA-256 hex digest (fake: no known preimage)
HEX = "7d1a54127b222502f5b79b5fb0803061152a44f92b37e23c6527baf665d4da9a"
#: case -> (text, its secrets, what must stay)
CASES = {
    "row-250-framed": (table(260, 250, pw(1)), [pw(1)], "| user | password |"),
    "row-230-bare": (table(240, 230, pw(2), framed=False), [pw(2)], "user | password"),
    "tsv-past-200": ("user\tpassword\n" + "".join(f"u{i}\tKp{i:04d}rWx9\n" for i in range(220)) + f"last\t{pw(3)}\n",
                     [pw(3)], "user\tpassword"),
    "sha-hex": (f"ADMIN_PASSWORD_HASH={HEX}", [HEX], "ADMIN_PASSWORD_HASH="),
}
#: case -> its text, a secret at each "{n}" (what stands before the first stays)
_TEMPLATES = {
    "bare-table": "user | password\nroot | {0}\nadmin | {1}",
    "bare-table-3": "host | user | password\ndb1 | root | {0}\ndb2 | admin | {1}",
    "bare-read-tool": "     1\u2192user | password\n     2\u2192root | {0}",
    "tsv": "user\tpassword\nroot\t{0}\nadmin\t{1}",
    "tsv-columns": "host\tusername\tpassword\tnotes\ndb1\troot\t{0}\tprod primary\ndb2\tadmin\t{1}\treplica",
    "tsv-cat-n": "     1\tuser\tpassword\n     2\troot\t{0}",
}
for _i, (_case, _tmpl) in enumerate(_TEMPLATES.items()):
    _secrets = [pw(100 + 2 * _i + k) for k in range(_tmpl.count("{"))]
    CASES[_case] = (_tmpl.format(*_secrets), _secrets, _tmpl.split("{")[0])
#: a card's, a SIM's, a bank's PIN assigned (8 digits: no other string of the store holds them by chance)
CASES.update({"card-pin": ("card pin = 73918264", ["73918264"], "card pin = "),
              "sim-pin": ("the SIM pin = 80267315", ["80267315"], "the SIM pin = "),
              "bank-pin-json": ('{"bank pin": "55182947"}', ["55182947"], '{"bank pin": "')})
#: a password's hash under a name for it: case -> (name and sign, hash)
HASHES = {
    "bcrypt-env": ("PASSWORD_HASH=", bcrypt(40)),
    "argon2-yaml": ("password_hash: ", "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$" + pw(41) + "RdescudvJCsgt3ub"),
    "django-digest": ("password_digest = ", "pbkdf2_sha256$600000$" + pw(42) + "$abcDEF1234567890ghijKLMN0="),
    "hashed-json": ('{"hashed_password": "', bcrypt(43)),
    "sha512crypt": ("user.pw_hash = '", "$6$rounds=5000$" + pw(44) + "$Qz9k2LmN4pR7sT1vW3xY5zA8bC0dE6fG"),
    "ldap-ssha": ("PASSWD_HASH: ", "{SSHA}" + pw(45) + "Wn4HyPz6JbFs1Gc3Ne5U="),
}
for _case, (_head, _h) in HASHES.items():
    CASES[_case] = (_head + _h + ('"}' if _head.endswith('"') else "'" if _head.endswith("'") else ""), [_h], _head)

LOOKALIKES = [
    # a token's id names the token: printed beside the secret, which its own label takes
    "TOKEN_ID=ab12cd34ef56", "token_id: 3f9c2a71-5b6e-4d2a-9c1f-7e8b0a4d6c21", "Token ID 7e0b4c1f2a9d4e6b8c3a5f1d2e4b6a8c",
    # the algorithm or code about the hash, not a hash
    "PASSWORD_HASH=bcrypt", "PASSWORD_HASHERS = [", "password_hash = generate_password_hash(password)",
    "password_hash: str", "PASSWORD_HASH_ALGORITHM=argon2id", "password_hash = models.CharField(max_length=128)",
    "password_hash = '0000000000000000000000000000000000000000'", "PASSWORD_DIGEST=sha256",
    # a board's pin, a count
    "led pin = 13", "pin = 13", "card pin = 12", "CARD_PIN_COUNT=4",
    # tables of no credential's value, pipes of a shell pipeline, a sentence
    "user | password\nroot | see the vault\nadmin | ask Bob", "ps aux | grep token\ndocker ps | wc -l",
    "name\tpassword\nalice\t(see vault)\nbob\tn/a", "service\ttoken count\napi\t1532\nweb\t877",
    "I piped the password | through base64\nthen it | worked",
    "feature | token\nlogin | yes\nsignup | no",
]


def rule_of(case: str) -> str:
    """The rule that names ``case``'s hit: a PIN's phrase, a hash's keyword rule, else a table's column."""
    if "pin" in case:
        return "password-phrase"
    return "generic-secret" if case in HASHES or case == "sha-hex" else "markdown-secret"


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_shape_is_redacted_by_its_rule(case):
    """Raw and JSON-escaped (the shared check, idempotence included); the label stays; the hit is the rule's."""
    text, secrets, kept = CASES[case]
    assert_redacted(case, text, secrets, kept=[kept], rule=rule_of(case))


@pytest.mark.parametrize("text", LOOKALIKES)
def test_a_token_id_an_algorithm_a_board_pin_or_prose_is_kept(text):
    """Raw and JSON-escaped, nothing taken."""
    assert_kept(text)


def test_every_row_of_a_long_table_is_read():
    """Not only the row holding the secret: each of the 260 body rows' passwords goes."""
    out = redact(table(260, 0, "")).text
    assert "Kp" not in out and out.count("[REDACTED:markdown-secret]") == 260


def test_no_secret_reaches_a_store_by_remember_import_or_the_prompt_hook(tmp_path, mem, store_path):
    """Real ``mem remember``/``get`` and an imported transcript's tool results, then the real UserPromptSubmit
    hook (its own store); each shape redacted, the look-alikes as typed, and no file of either store (packs
    decompressed) holds any secret.  The cases in their names' order: the hook's prompt starts 'Use this: '
    and the first case, which must be no table's header."""
    one = {c: (CASES[c][0], CASES[c][1][0], CASES[c][2]) for c in sorted(CASES)}
    check_remembered_and_imported(mem, tmp_path, "red33", "33333333-aaaa-4aaa-8aaa-333333333333", one,
                                  sorted(one), LOOKALIKES[0], store=store_path)
    check_prompt_hook(tmp_path / "hook-store", "d1111111-0000-4000-8000-000000003333", one, LOOKALIKES,
                      "remember that the vault's admin PASSWORD_HASH=" + bcrypt(60), extra=[bcrypt(60)])
