"""What the fresh tester found stored in clear after session 8, and the
promise that decides it (objstore/core/redact/__init__.py, "The promise"):
a value after an explicit password label, alone on its line, and a value
stored under a key named for a credential are redacted whatever their
shape (all lower case, no digit); ``api key: X`` with a blank is a label like
``api_key: X``; a password's owner may sit between it and its verb (``the
password for the staging box is X``); free prose keeps its shape test.
Every value here is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import NAMED_RULE, credential_name, redact, redact_named
from tests.cmds._credentials import check_kept, check_redacted

HEX32 = "0f3c9a7e5b1d4c2a8e6f0b9d7c5a3e1f"

# (text, the secret that must disappear, the rule expected to name it)
CASES = [
    ("the password for the staging box is Xq7pLm2wZ9", "Xq7pLm2wZ9", "password-phrase"),
    ("the password for the staging box is Xq7pLm2wZ9. Don't share it.", "Xq7pLm2wZ9", "password-phrase"),
    ("Password for the staging box: Xq7pLm2wZ9", "Xq7pLm2wZ9", "password-phrase"),
    ("the password of db.example.com was Pa55w0rdFake", "Pa55w0rdFake", "password-phrase"),
    ("the password to the admin account is now Adm1nFake!x", "Adm1nFake!x", "password-phrase"),
    (f"api key: {HEX32}", HEX32, "generic-secret"),
    (f"API key: {HEX32}", HEX32, "generic-secret"),
    (f"API Key = {HEX32}", HEX32, "generic-secret"),
    (f"the access key: {HEX32} (rotate it)", HEX32, "generic-secret"),
    ("secret key: abc123def456ghi789", "abc123def456ghi789", "generic-secret"),
    ("Password: correcthorsebattery", "correcthorsebattery", "generic-secret"),
    ("host: db1\nPassword: correcthorsebattery\nport: 5432", "correcthorsebattery", "generic-secret"),
    ('{"text": "host: db1\\npassword: correcthorsebattery\\nport: 5432"}', "correcthorsebattery",
     "generic-secret"),                                  # a raw transcript line: the break is JSON-escaped
    ("passwd=qwertyuiop", "qwertyuiop", "generic-secret"),
    ("passwd=qwerty", "qwerty", "generic-secret"),       # kept as typed before red9: now a password
    ("pwd: letmeinnow", "letmeinnow", "generic-secret"),
    ("export DB_PASS=sunshine", "sunshine", "generic-secret"),
    ("  POSTGRES_PASSWORD: postgres\n  POSTGRES_USER: app", "postgres", "generic-secret"),
    ("password: correct-horse-battery-staple", "correct-horse-battery-staple", "generic-secret"),
    ("Passwort: Geheimnisvoll", "Geheimnisvoll", "generic-secret"),
    ("the wifi password: `treehouse`", "treehouse", "generic-secret"),
]

LOOKALIKES = [
    "the password is stored in the vault",
    "the password for the staging box is stored in the vault",
    "the password for each user is hashed with bcrypt",
    "The password for this account is required.",
    "[sudo] password for alice: ",
    "the password manager is Bitwarden",
    "password: str",
    "def login(username: str, password: str) -> bool:",
    "    password: Optional[str] = None",
    "Args:\n    password: the user's password.\n    token: the session token.\n",
    "const user = { email, password: hashedPassword }",
    "  password: hashedPassword\n",
    "  password: hashed\n}",
    "password = getpass()",
    "        self.password = account\n",
    "self.username, self.password = credentials\n",
    "$password = request\n",
    "Password: required",
    "Password: incorrect",
    "Password: ********",
    "password: <hidden>",
    "PASSWORD: CHANGEME",
    "password: read-only",
    "password: Password\n",
    "pw: playwright",
    "first pass: tokenize",
    "api key: see the docs",
    "cache key: user_profile_v2",
    "primary key: id",
    "private key: ~/.ssh/id_ed25519",
]


@pytest.mark.parametrize("text,secret,rule", CASES)
def test_the_credential_is_redacted_by_its_rule(text, secret, rule):
    check_redacted(text, secret, rule)


@pytest.mark.parametrize("text,secret,rule", CASES[:3] + CASES[10:12])
def test_the_surrounding_words_are_kept(text, secret, rule):
    """Only the value goes: the label, the owner and the rest of the line stay."""
    r = redact(text)
    assert r.text == text.replace(secret, f"[REDACTED:{rule}]"), r.text


@pytest.mark.parametrize("text", LOOKALIKES)
def test_lookalikes_are_kept(text):
    check_kept(text)


def test_a_labelled_value_followed_by_more_words_is_prose():
    """The label's promise holds for a value alone on its line; after it,
    more words make the line prose (and a password with a digit is still
    found by its shape)."""
    assert redact("Password: incorrectly typed three times").hits == ()
    assert redact("Password: hunter2 (staging)").text == "Password: [REDACTED:generic-secret] (staging)"


@pytest.mark.parametrize("name,kind", [
    ("project/api/staging-password", "password"), ("user/wifi-passphrase", "password"), ("DB_PASS", "password"),
    ("project/db/passwd", "password"), ("project/api/github-token", "secret"), ("project/api/api-key", "secret"),
    ("project/llm/openai_api_key", "secret"), ("project/oauth/client-secret", "secret"),
    ("project/rails/secret-key-base", "secret"), ("project/api/apikey", "secret"),
    ("project/auth/password-policy", None), ("project/api/tokens", None), ("project/llm/token-budget", None),
    ("user/keyboard", None), ("project/net/bypass", None), ("project/api-token/notes", None),
    ("project/cache/cache-key", None), ("project/db/primary_key", None),
])
def test_credential_name_reads_the_last_part_of_a_key(name, kind):
    assert credential_name(name) == kind


@pytest.mark.parametrize("key,value", [
    ("project/api/staging-password", "hunter2"),
    ("project/api/staging-password", "correcthorsebattery"),
    ("project/db/passwd", "1234"),
    ("user/wifi-passphrase", "correct horse battery staple"),
    ("project/api/github-token", "abcd1234"),
    ("project/llm/openai_api_key", "sk-not-a-real-key"),
])
def test_a_value_under_a_credential_name_is_redacted_whatever_its_shape(key, value):
    r = redact_named(f" {value}\n", key)
    assert r.text == f" [REDACTED:{NAMED_RULE}]\n" and [(h.start, h.end) for h in r.hits] == [(1, 1 + len(value))]
    assert redact_named(r.text, key).text == r.text         # idempotent


@pytest.mark.parametrize("key,value", [
    ("project/db/password", "stored in 1Password under prod-db"),
    ("project/db/password", "$DB_PASSWORD"),
    ("project/db/password", "see the vault"),
    ("project/db/password", "none"),
    ("project/auth/password-policy", "hunter2"),
    ("project/llm/max-token", "4096"),
    ("project/ssh/private-key", "~/.ssh/id_ed25519"),
    ("project/api/token", "https://vault.example.com/v1/secret/api"),
    ("project/api/token", "rotate it every ninety days"),
    ("project/p/secret", "packed canary-58813 one"),       # words with digits: a note, not a passphrase
])
def test_a_note_under_a_credential_name_is_kept(key, value):
    assert redact_named(value, key).text == value


def test_under_another_name_the_text_rules_run():
    assert redact_named("the password for the staging box is Xq7pLm2wZ9", "project/api/notes").text == \
        "the password for the staging box is [REDACTED:password-phrase]"
    assert redact_named("hunter2", "project/api/notes").text == "hunter2"
    with pytest.raises(TypeError):
        redact_named("x", None)     # type: ignore[arg-type]


# rob10: the value on the line after a password label that ends its line
NEXT_LINE_CASES = [
    ("Password:\n  hunter2xyz", "hunter2xyz"),
    ("Password:\nhunter2xyz\nport: 5432", "hunter2xyz"),
    ("password:\r\n    correcthorsebattery", "correcthorsebattery"),
    ("db passwd =\n\tTr0ub4dor&3", "Tr0ub4dor&3"),
    ('creds = {"password":\n    "Tr0ub4dor&3"}', "Tr0ub4dor&3"),
    ('{"text": "the login is admin\\nPassword:\\n  hunter2xyz\\n"}', "hunter2xyz"),   # JSON-escaped breaks
    ("Password:\n\nhunter2xyz", "hunter2xyz"),        # red21: one blank line between (was: kept)
    ('{"text": "Password:\\n\\nhunter2xyz"}', "hunter2xyz"),
]

NEXT_LINE_LOOKALIKES = [
    "password:\n  type: string\n  minLength: 8",
    "password:\n  required: true",
    "Password:\nUsername:",
    "Enter the password:\nEnter it below and press return",
    "password:\n  - hunter2xyz",            # a list item: YAML/markdown structure, not a lone value
    "Password:\n\n\nhunter2xyz",            # two blank lines between: no longer the label's value (red21)
    "Password:\n  incorrect",
    "Password:\n  ********",
    "password:\n  <your password>",
    "password:\n  ${DB_PASSWORD}",
    "password =\n    os.environ['DB_PASSWORD']",
    "def login(username,\n          password):\n    return check(password)",
    "## Password:\n### Reset",
]


# test18 U7: a key's or a token's value alone on its label's next line (api_key:, API key:, token:), of a
# key's shape: random-looking, or 8+ characters with letters and digits or symbols (was: only a password's label)
KEY_NEXT_LINE_CASES = [
    ("api_key:\nZq7mm9xQZq7mm9xQZq7mm9xQ", "Zq7mm9xQZq7mm9xQZq7mm9xQ"),
    ("API key:\n  Zq7mm9xQZq7mm9xQZq7mm9xQ", "Zq7mm9xQZq7mm9xQZq7mm9xQ"),
    ("token:\nZq7mm9xQZq7mm9xQZq7mm9xQ", "Zq7mm9xQZq7mm9xQZq7mm9xQ"),
    ("token:\n  abc123def456ghi", "abc123def456ghi"),
    ('access_token:\n"Zq7mm9xQZq7mm9xQZq7mm9xQ"', "Zq7mm9xQZq7mm9xQZq7mm9xQ"),
    ('{"text": "row: api_key=\\nZq7mm9xQZq7mm9xQZq7mm9xQ"}', "Zq7mm9xQZq7mm9xQZq7mm9xQ"),   # JSON-escaped break
    ("OPENAI_API_KEY =\n    k3y-Zq7mm9xQ2024", "k3y-Zq7mm9xQ2024"),
]

KEY_NEXT_LINE_LOOKALIKES = [
    "token:\n  type: string\n  minLength: 8",
    "api_key:\n  description: the key the service gives you",
    "token:\n  v2",
    "token:\n  gpt4o",                    # shorter than a key
    "self.token:\n  abcdef12345",          # an attribute in code
    "if token:\n    return x",
    "api_key:\n  required",
    "token:\n  2026-02-27T01:24:49Z",
    "key:\n  Zq7mm9xQZq7mm9xQ",             # 'key' alone is no label (cache key, primary key)
    "token:\n  ${API_TOKEN}",
    "api_key:\n  <your api key>",
]


@pytest.mark.parametrize("text,secret", NEXT_LINE_CASES + KEY_NEXT_LINE_CASES)
def test_a_password_on_the_line_after_its_label_is_redacted(text, secret):
    check_redacted(text, secret, "generic-secret")
    assert redact(text).text == text.replace(secret, "[REDACTED:generic-secret]")


@pytest.mark.parametrize("text", NEXT_LINE_LOOKALIKES + KEY_NEXT_LINE_LOOKALIKES)
def test_next_line_lookalikes_are_kept(text):
    check_kept(text)


# red13: the password on the label's next line with prose after it on that line (its first token,
# judged by the short-value rule), and a label alone on its line with no ':' or '='
PROSE_AFTER_CASES = [
    ("Password:\nPlumTree#77 is set for the db", "PlumTree#77", " is set for the db"),
    ("password\nPlumTree#77", "PlumTree#77", ""),
    ("password\nPlumTree#77 is set for the db", "PlumTree#77", " is set for the db"),
    ("Password:\nPlumTree#77. Set for the db", "PlumTree#77", ". Set for the db"),
    ("Password:\n\nPlumTree#77 is set", "PlumTree#77", " is set"),      # red21: one blank line between
    ("pwd:\n  Zq7mm (the staging one)", "Zq7mm", " (the staging one)"),
    ('Password:\n"PlumTree#77" is set', "PlumTree#77", '" is set'),
    ("  Passwort\n  Geheim#2024, bitte nicht teilen", "Geheim#2024", ", bitte nicht teilen"),
    ('{"text": "Username\\nadmin\\nPassword\\nPlumTree#77\\n"}', "PlumTree#77", "\\n\"}"),
    ('{"text": "Password:\\nPlumTree#77 is set"}', "PlumTree#77", ' is set"}'),
]

PROSE_AFTER_LOOKALIKES = [
    "Password:\nContact the admin for it",      # a word of prose: letters alone
    "Password\nthe admin one is in the vault",
    "password\nusername\nemail",                  # field names read out: letters alone after a bare label
    "password\n  pw2 = hash(x)",                  # code: an operator after the token
    "if password:\n    user2.set(password)",
    "Password:\n2026-02-27T01:24:49.093Z INFO login ok",   # a log line's stamp
    "password\n2026-02-27",
    "the password\nPlumTree#77",                  # not a label alone on its line
    "Password:\n- PlumTree#77 is set",            # a list item
    "Password:\nNote: it is in the vault",
    "Password:\n\n\nPlumTree#77 is set",         # two blank lines between (one: red21, redacted)
]


@pytest.mark.parametrize("text,secret,rest", PROSE_AFTER_CASES)
def test_the_first_token_of_the_next_line_is_redacted_and_the_prose_kept(text, secret, rest):
    check_redacted(text, secret, "generic-secret")
    out = redact(text).text
    assert out.endswith("[REDACTED:generic-secret]" + rest), out


@pytest.mark.parametrize("text", PROSE_AFTER_LOOKALIKES)
def test_prose_after_a_label_line_is_kept(text):
    check_kept(text)


# sec20: the label in a sentence that ends its line ('Your password is:', 'Your API key is:'), and a shell
# line continuation after the '=' ('API_KEY=\' LF the value): the value alone on the next line (was: kept)
PHRASE_NEXT_LINE_CASES = [
    ("Your password is:\nVelvet-Otter-Harbor-42", "Velvet-Otter-Harbor-42"),
    ("Your password is:\n\nVelvet-Otter-Harbor-42", "Velvet-Otter-Harbor-42"),   # red21: one blank line
    ("Your new password is:\r\n  Tr0ub4dor&3\n", "Tr0ub4dor&3"),
    ("Your API key is:\nZq7mm9xQZq7mm9xQZq7mm9xQ", "Zq7mm9xQZq7mm9xQZq7mm9xQ"),
    ("The access token was:\n  Zq7mm9xQ4kLp2Wv8", "Zq7mm9xQ4kLp2Wv8"),
    ("Here is your token:\nZq7mm9xQ4kLp2Wv8", "Zq7mm9xQ4kLp2Wv8"),
    ("export API_KEY=\\\nZq7mm9xQ4kLp2Wv8", "Zq7mm9xQ4kLp2Wv8"),
    ("API_KEY=\\\n    Zq7mm9xQ4kLp2Wv8\n./run.sh", "Zq7mm9xQ4kLp2Wv8"),
    ("DB_PASSWORD= \\\n  hunter2xyz", "hunter2xyz"),
    ('{"text": "Your API key is:\\nZq7mm9xQZq7mm9xQZq7mm9xQ"}', "Zq7mm9xQZq7mm9xQZq7mm9xQ"),   # JSON-escaped
    ('{"command": "export API_KEY=\\\\\\nZq7mm9xQ4kLp2Wv8"}', "Zq7mm9xQ4kLp2Wv8"),
]

PHRASE_NEXT_LINE_LOOKALIKES = [
    "Your password is:\nEnter it below and press return",
    "Your password is:\n\n\nVelvet-Otter-Harbor-42",    # two blank lines between, as after 'Password:'
    "The key is:\n  Zq7mm9xQZq7mm9xQ",                   # 'key' alone is no label
    "The primary key is:\n  id_column_12345",
    "the api key is:\n  required",
    "Your token is:\n  2026-02-27T01:24:49Z",
    "export API_KEY=\\\n  $(cat ~/.keys/openai)",
    "export API_KEY=\\\n  ${OPENAI_KEY}",
    "export PATH=\\\n  /usr/local/bin:$PATH",
    "the token is: shown below\nZq7mm9xQ4kLp2Wv8",        # the label does not end its line
]


@pytest.mark.parametrize("text,secret", PHRASE_NEXT_LINE_CASES)
def test_a_value_on_the_line_after_a_phrase_label_or_a_continuation_is_redacted(text, secret):
    check_redacted(text, secret, "generic-secret")
    assert redact(text).text == text.replace(secret, "[REDACTED:generic-secret]")


@pytest.mark.parametrize("text", PHRASE_NEXT_LINE_LOOKALIKES)
def test_phrase_label_lookalikes_are_kept(text):
    check_kept(text)
