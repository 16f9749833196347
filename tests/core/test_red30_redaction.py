"""red30 (test29 P5's rest, the fresh helper's findings on main 7e7a2431):
password shapes that were stored in the clear.  A label's qualifier in any
bracket or quotes (``DB password {prod}: X``, ``DB password 'prod': X``, which
redacted the word ``prod`` as an SQL literal and kept the password), two
qualifiers, a fullwidth sign after one, a plural label with one, ``pwd for
root: X``, ``Kennwort (prod): X``; a dash label with a qualifier or two dashes
(``Password (staging) - X``, ``prod password -- X``); a quoted passphrase
with blanks after a label in another language; ``our vpn secret is <words>``;
the prose forms in Polish, Czech, Swedish, Norwegian, Danish and Finnish; and
a URL's ``key`` parameter in its query, fragment or a path segment
(``#key=X``, ``;key=X``), which the URL check of a setting refuses too.  Each
is read by the one entry point (:func:`objstore.core.redact.redact`), so
``mem remember``, an imported transcript, the prompt hook and the proxy's
capture store it redacted.  Every secret is fake."""

from __future__ import annotations

import json

import pytest

from objstore import scan_store
from objstore.core.errors import InvalidInput
from objstore.core.redact import check_name, name_hits, redact
from tests.cmds._credentials import assert_none_stored, run_prompt_hooks
from tests.core._redaction_util import assert_redacted, check_remembered_and_imported
from tests.hooks._util import hook_env


def pw(i: int) -> str:
    """The fake password of shape ``i``: letters no object id or time holds (no hex run of it can appear by chance)."""
    return f"Zq7mm{i:02d}xLpW"


PHRASE = "correct horse battery staple"
#: (case, text before the secret, the secret, text after it, the rule named)
_SHAPES = [
    ("brace", "DB password {prod}: ", None, "", "generic-secret"),
    ("angle", "DB password <prod>: ", None, "", "generic-secret"),
    ("double-quoted", 'DB password "prod": ', None, "", "generic-secret"),
    ("single-quoted", "DB password 'prod': ", None, "", "generic-secret"),
    ("backticked", "DB password `prod`: ", None, "", "generic-secret"),
    ("two-qualifiers", "DB password (prod) [eu]: ", None, "", "generic-secret"),
    ("fullwidth-colon", "DB password (prod)\uff1a", None, "", "generic-secret"),
    ("fullwidth-equals", "Password [staging]\uff1d", None, "", "generic-secret"),
    ("plural-qualified", "DB passwords (prod): ", None, "", "generic-secret"),
    ("slash-comma-qualifier", "DB password (prod/eu, b): ", None, "", "generic-secret"),
    ("json-key-qualified", '{"DB password (prod)": "', None, '"}', "generic-secret"),
    ("qualified-next-line", "DB password (prod):\n    ", None, "", "generic-secret"),
    ("for-user-phrase", "password for root: ", PHRASE, "", "password-phrase"),
    ("pwd-for", "pwd for root: ", None, "", "generic-secret"),
    ("foreign-qualified", "Kennwort (prod): ", None, "", "markdown-secret"),
    ("dash-qualified", "Password (staging) - ", None, "", "password-phrase"),
    ("double-dash", "prod password -- ", None, "", "password-phrase"),
    ("foreign-quoted-words", 'wachtwoord: "', "Zq7 mm horse", '"', "markdown-secret"),
    ("foreign-quoted-phrase", 'Kennwort: "', PHRASE, '"', "markdown-secret"),
    ("vpn-secret", "remember that our vpn secret is ", PHRASE, "", "password-phrase"),
    ("prose-pl", "has\u0142o do bazy to ", None, "", "password-phrase"),
    ("prose-pl-jest", "moje haslo jest ", None, "", "password-phrase"),
    ("prose-cs", "heslo k datab\u00e1zi je ", None, "", "password-phrase"),
    ("prose-sv", "l\u00f6senordet \u00e4r ", None, "", "password-phrase"),
    ("prose-no", "passordet til databasen er ", None, "", "password-phrase"),
    ("prose-da", "adgangskoden er ", None, "", "password-phrase"),
    ("prose-da-kodeord", "kodeordet er ", None, "", "password-phrase"),
    ("prose-fi", "salasana on ", None, "", "password-phrase"),
    ("url-fragment", "OPENAI_BASE_URL=https://llm.example.com/v1#key=", None, "", "generic-secret"),
    ("url-path-param", "base_url = https://llm.example.com/v1;key=", None, "", "generic-secret"),
    ("url-query", "see https://llm.example.com/v1?key=", None, " for it", "generic-secret"),
]
#: case -> (text, the secret, what must stay before it, the rule named)
CASES = {case: (before + (secret or pw(i)) + after, secret or pw(i), before, rule)
         for i, (case, before, secret, after, rule) in enumerate(_SHAPES)}

#: texts that hold a label, a qualifier or a prose form but no secret: stored as typed
LOOKALIKES = [
    "reset your password: click the link", "the secret is to keep it simple",
    "the secret is good test coverage and docs", "has\u0142o to podstawa bezpiecze\u0144stwa",
    "heslo je p\u0159\u00edli\u0161 kr\u00e1tk\u00e9", "l\u00f6senordet \u00e4r fel", "passordet er feil",
    "adgangskoden er forkert", "salasana on v\u00e4\u00e4rin", "password {name}: {value}",
    "token <optional>: a bearer token", "Password (required) - string", "password -- see the vault",
    'wachtwoord: "Voer uw wachtwoord in"', 'Kennwort: "bitte eingeben:"', "https://example.com/docs#key=value-pairs",
    "https://example.com/docs#token=", "SELECT 1 FROM users WHERE password 'x' IS NULL",
    "passwd -- alice", "pwd for root: see the vault", "password for root: see the vault please",
    "password (str, optional): the password",
]


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_redacted(case):
    """Raw, and JSON-escaped as a tool call's argument holds it (the shared check, idempotence included)."""
    text, secret, kept, rule = CASES[case]
    assert assert_redacted(case, text, [secret], rule=rule).startswith(kept)
    assert secret not in redact(json.dumps({"command": text}, ensure_ascii=False)).text   # non-ASCII kept raw


def test_the_quoted_qualifier_is_no_sql_literal():
    """The worst case: the word ``prod`` was redacted as ``PASSWORD 'x'`` of SQL, the password kept."""
    assert redact("DB password 'prod': " + pw(0)).text == "DB password 'prod': [REDACTED:generic-secret]"
    sql = "ALTER ROLE app WITH PASSWORD '" + pw(1) + "';"
    assert redact(sql).text == "ALTER ROLE app WITH PASSWORD '[REDACTED:sql-password]';"
    commented = "ALTER USER bob WITH PASSWORD '" + pw(2) + "' -- rotated"     # '--' opens an SQL comment, no sign
    assert redact(commented).text == "ALTER USER bob WITH PASSWORD '[REDACTED:sql-password]' -- rotated"


@pytest.mark.parametrize("text", LOOKALIKES)
def test_look_alike_kept(text):
    assert redact(text).text == text


#: a key name holding a shape is refused; one about a qualified password or a named account's secret is not
_KEY_NAMES = [("project/x/" + CASES[c][0], True) for c in sorted(CASES)] + [
    (k, False) for k in ("project/x/password (prod)", "project/x/db password {prod} notes",
                         "project/x/vpn secret is rotated monthly")]


@pytest.mark.parametrize("key, refused", _KEY_NAMES)
def test_the_name_rule_reads_a_key_as_values_are_read(key, refused):
    """A ref file's name is stored in the clear: the one name rule reads it through the same rules."""
    assert bool(name_hits(key)) is refused, key


@pytest.mark.parametrize("url", ["https://llm.example.com/v1#key=" + pw(0), "https://llm.example.com/v1;key=" + pw(0),
                                 "https://llm.example.com/v1;api_key=" + pw(0) + "/chat",
                                 "https://llm.example.com#access_token=" + pw(0)])
def test_a_setting_url_with_a_key_parameter_is_refused(url):
    with pytest.raises(InvalidInput) as e:
        check_name(url, "OPENAI_BASE_URL", url=True)
    assert pw(0) not in str(e.value)


@pytest.mark.parametrize("url", ["https://llm.example.com/v1", "https://llm.example.com/v1#usage",
                                 "https://llm.example.com/v1;v=2", "https://llm.example.com/v1#key="])
def test_a_setting_url_without_one_is_taken(url):
    assert check_name(url, "OPENAI_BASE_URL", url=True) is None


def test_stored_by_remember_and_import(tmp_path, mem, store_path):
    """Real ``mem remember``/``get`` and an imported transcript's Bash result; then no file of the store
    (packs decompressed) holds any secret."""
    check_remembered_and_imported(mem, tmp_path, "red30", "30303030-aaaa-4bbb-8ccc-303030303030", CASES,
                                  sorted(CASES), LOOKALIKES[0], store=store_path)


def test_the_prompt_hook_stores_them_redacted(tmp_path):
    """The real UserPromptSubmit hook stores each shape redacted and the look-alikes as typed; then no file of the
    store (packs decompressed) holds any secret."""
    store = tmp_path / "store"
    run_prompt_hooks(store, hook_env(store), "d1111111-0000-4000-8000-000000000030",
                     ["Use this: " + "\n".join(t for t, *_ in CASES.values()), "Keep: " + "\n".join(LOOKALIKES[:3])])
    assert_none_stored(store, [(text, secret, rule) for text, secret, _kept, rule in CASES.values()], LOOKALIKES)
    assert scan_store(store, [c[1].encode() for c in CASES.values()]) == []
