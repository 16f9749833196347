"""red27 (tester finding test26b W7): after red26, a quoted passphrase after
a password label was still cut after its first word when it was in Title
Case (``password="Correct Horse Battery Staple"``), held a common word
(``"open sesame please"``), sat in backticks, followed ``PASS=`` or had 7+
words; and a Markdown ``**Password:**`` label, a ``| Password | … |`` table
cell, a YAML ``password: words`` (a Kubernetes ``stringData``),
docker-compose's ``MYSQL_ROOT_PASSWORD: "…"``, a .NET ``Password=Str0ng Pass
1;``, a ``.pgpass`` line whose password holds blanks and ``keyring set …
<<< "…"`` kept the words.  The look-alikes stay: UI texts and translations
of the label, validation messages, templates, placeholders, prose after a
label or a YAML key.  Every value is fake."""

from __future__ import annotations

import pytest

from tests.core._redaction_util import assert_kept, assert_redacted, check_remembered_and_imported

STAPLE = "correct horse battery staple"
TITLE = "Correct Horse Battery Staple"
SEVEN = "correct horse battery staple and a few more words here"

#: the rules that name most shapes' hits
GEN, MD = "generic-secret", "markdown-secret"
#: (case, text, the secret, what must stay, the rule named or None)
_ROWS = [
    ("title-case", f'password="{TITLE}"', TITLE, 'password="', GEN),
    ("common-word", 'db password = "open sesame please"', "open sesame please", 'db password = "',
     GEN),
    ("seven-words", f'password: "{SEVEN}"', SEVEN, 'password: "', GEN),
    ("backticks", f"password: `{STAPLE}`", STAPLE, "password: `", GEN),
    ("pass-var", f'PASS="{STAPLE}"', STAPLE, 'PASS="', GEN),
    ("single-title", "EMAIL_HOST_PASSWORD = 'Vbqk Lmzt Yhrw Pxne'", "Vbqk Lmzt Yhrw Pxne", "EMAIL_HOST_PASSWORD",
     GEN),
    ("secret-prose-words", 'secret: "the cake is a lie"', "the cake is a lie", 'secret: "', GEN),
    ("json-title", f'{{"db_password": "{TITLE}", "port": 5432}}', TITLE, '"port": 5432', GEN),
    ("compose-quoted", f'services:\n  db:\n    environment:\n      MYSQL_ROOT_PASSWORD: "{TITLE}"\n', TITLE,
     "MYSQL_ROOT_PASSWORD", GEN),
    ("k8s-env-title", f'  - name: DB_PASSWORD\n    value: "{TITLE}"\n', TITLE, "- name: DB_PASSWORD",
     "named-setting"),
    ("md-bold-colon-in", f"**Password:** {STAPLE}", STAPLE, "**Password:** ", MD),
    ("md-bold-code", "**Password**: `Winter 2025 pass`", "Winter 2025 pass", "**Password**: `", MD),
    ("md-pair-code", "| Password | `hunter2 plus` |", "hunter2 plus", "| Password | `", MD),
    ("md-pair-words", f"| password | {STAPLE} |", STAPLE, "| password | ", MD),
    ("md-table-column", "users:\n| user | password |\n|---|---|\n| bob | `Open Sesame Please` |\n", "Open Sesame Please",
     "| bob | `", MD),
    ("yaml-indented", f"db:\n  password: {STAPLE}\n", STAPLE, "  password: ", GEN),
    ("k8s-stringdata", f"kind: Secret\nstringData:\n  password: {STAPLE}\n", STAPLE, "stringData:",
     GEN),
    ("yaml-plain", f"password: {STAPLE}", STAPLE, "password: ", GEN),
    ("yaml-caps-title", f"      MYSQL_ROOT_PASSWORD: {TITLE}", TITLE, "MYSQL_ROOT_PASSWORD: ", GEN),
    ("yaml-comment", "  db_password: Open Sesame 42 # prod\n", "Open Sesame 42", "# prod", GEN),
    ("yaml-list-entry", f"- password: {TITLE}\n", TITLE, "- password: ", GEN),
    ("dotnet-conn", 'ConnectionStrings__Default="Server=db;Database=app;User Id=sa;Password=Str0ng Pass 1;"',
     "Str0ng Pass 1", "User Id=sa;", GEN),
    ("pgpass-blanks", "db.example.com:5432:app:bob:my pg pass here", "my pg pass here", "db.example.com:5432:app:bob:",
     "pgpass-password"),
    ("keyring-here", f'keyring set myapp bob <<< "{STAPLE}"', STAPLE, "keyring set myapp bob", "cli-password"),
]
CASES = {row[0]: row[1:] for row in _ROWS}


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_is_redacted_whole_raw_and_json_escaped(case):
    text, secret, kept, rule = CASES[case]
    words = secret.split(" ")
    assert_redacted(case, text, [secret, " ".join(words[1:]), words[-1]], kept=[kept], rule=rule)


KEPT = [
    '"password": "Enter your password"',
    '"secret": "Client secret"',
    'secret: "Show secrets"',
    'password: "{{ vault_db_password }}"',
    'password: "${DB_USER} ${DB_PASS}"',
    'password: "your password here"',
    'password: "Enter password:"',
    '"password": "Mot de passe"',
    '"password": "\u5bc6\u7801 \u9519\u8bef"',
    'password = "xxxx xxxx"',
    'password: "At least eight characters long"',
    'self.password = "Foo Bar Baz"',
    'token: "New York City"',
    'api_key: "some words here"',
    "password: see the vault",
    "password: not set",
    "  password: null",
    "  password: >-",
    "password: |\n  correct horse battery\n",
    "password: ${DB_PASSWORD} extra",
    "- password: the same as staging",
    "Password: Incorrectly typed three times",
    "password: must have four char",
    "password:   # set below",
    "Server=db;Password=see the vault;",
    "**Password:** see the vault",
    "**Password:** Ask the admin for it",
    "| password | see the vault |",
    "| Pass | all tests passed |",
    "| token | new york city |",
    "at 10:30:00 the meeting:5432:a:b:see you there",
    "use `password: str` in the model",
    "password: " + " ".join(["abcdefghijklmnopqrstuvw"] * 8),    # past the 128-character cap: no line end seen
    # the repository's own docs: a backtick or a quote that closes a label's span is no opening quote, and a
    # comma-separated line of prose after a line holding 'password' is no CSV table of passphrases
    "`SESSION_SECRET=`, `COOKIE_SECRET=`, `JWT_SECRET=` and (new to the key-itself names) `SECRET_KEY=`",
    "# ('Password:' LF LF 'the value'): a chat sets the value apart",
    "characters after a password keyword (``password``, ``passwd``,\n    ``passphrase``, ``pwd``) and 8 after the others",
    "(`mem remember --sensitivity\n  secret`, an agent's `mem sealed import`, which is `agent_observed`) over a\n"
    "  `user_stated` current sealed value is refused (exit 6), not queued\n",
]


@pytest.mark.parametrize("text", KEPT)
def test_look_alike_stays(text):
    """A UI text, a translation, a validation message, a template, a
    placeholder, prose after a label or a YAML key, a name: unchanged, raw
    and JSON-escaped."""
    assert_kept(text)


def test_past_the_first_window():
    """Shapes on lines of their own after 360,000 characters of prose (the
    second scan window, its lowercased copy offset from the text)."""
    for case in ("title-case", "yaml-plain", "md-bold-colon-in", "dotnet-conn", "backticks"):
        text, secret, kept, rule = CASES[case]
        assert_redacted(case, "lorem ipsum dolor " * 20_000 + "\n" + text + "\n", [secret, secret.split(" ")[-1]],
                        kept=[kept], rule=rule, escaped=False)


def test_stored_by_remember_and_import_without_the_last_word(tmp_path, mem):
    """``mem remember``/``mem get`` and an imported transcript's Bash
    result, real processes: the last word of each passphrase (batch kept
    every word but the first) is stored by neither path."""
    cases = {k: (v[0], v[1].split(" ")[-1], v[2]) for k, v in CASES.items()}
    check_remembered_and_imported(mem, tmp_path, "red27", "27272727-aaaa-4bbb-8ccc-272727272727", cases,
                                  ("title-case", "common-word", "md-pair-code", "yaml-indented", "pgpass-blanks",
                                   "keyring-here"),
                                  'password: "Enter your password"')
