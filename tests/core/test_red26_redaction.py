"""red26 (tester finding test25b U4, and what sits next to it): a quoted
password of several words was cut at its first word (``PASSWORD = "correct
horse battery staple"`` kept ``horse battery staple``; a Google app
password as Google shows it, ``"vbqk lmzt yhrw pxne"``, kept 3 of its 4
groups), the same value unquoted after ``=`` was kept whole, so was a
password given as a call's second argument (``smtp.login("me@gmail.com",
"vbqklmztyhrwpxne")``), and random lower-case letters after a secret's
keyword (``APP_SECRET=qwrtzpkdmfghjlxcvbnm``).  Next to them, from settings
files and shell history: ``wget --password=plumtree``, ``PGPASSWORD=plumtree
psql``, a connection string's ``Password=plumtree;``, a Java properties
``spring.datasource.password=plumtree``, ``redis-server --requirepass X``,
``auth=("bob", "X")``, a Kubernetes env entry's value of words (``- name:
DB_PASSWORD`` LF ``value: "correct horse battery staple"``), a quoted
command-line password of several words (``sshpass -p "correct horse
battery"``, ``echo "…" | sudo -S``, ``curl -u "bob:…"``, raw or with its
quotes JSON-escaped).  The
look-alikes stay: UI texts and translations, prose about where a password
is, lower-case words and names, variables given to a call.  Every value is
fake."""

from __future__ import annotations

import pytest

from tests.core._redaction_util import assert_kept, assert_redacted, check_remembered_and_imported

STAPLE = "correct horse battery staple"
GAPP = "vbqk lmzt yhrw pxne"
GAPP1 = "vbqklmztyhrwpxne"
RAND = "qwrtzpkdmfghjlxcvbnm"
RAND2 = "bxkrtplmnqwzvhgdfsjc"

#: (case, text, the secret's words, what must stay, the rule named or None)
_ROWS = [
    ("settings-py", f'PASSWORD = "{STAPLE}"', STAPLE, 'PASSWORD = "', "generic-secret"),
    ("django-email", f'EMAIL_HOST_PASSWORD = "{GAPP}"', GAPP, 'EMAIL_HOST_PASSWORD = "', "generic-secret"),
    ("django-email-single", f"EMAIL_HOST_PASSWORD = '{GAPP}'", GAPP, "EMAIL_HOST_PASSWORD = '", "generic-secret"),
    ("yaml-quoted", f'password: "{GAPP}"', GAPP, 'password: "', "generic-secret"),
    ("json", f'{{"smtp_password": "{GAPP}", "port": 587}}', GAPP, '"port": 587', "generic-secret"),
    ("django-databases", "'USER': 'app', 'PASSWORD': 'plum tree river', 'HOST': 'db'", "plum tree river",
     "'HOST': 'db'", "generic-secret"),
    ("flask-config", f"app.config['MAIL_PASSWORD'] = '{GAPP}'", GAPP, "app.config['MAIL_PASSWORD'] = '",
     "generic-secret"),
    ("secret-quoted", f'secret: "{STAPLE}"', STAPLE, 'secret: "', "generic-secret"),
    ("kubectl-literal", f"kubectl create secret generic db --from-literal=password='{STAPLE}'", STAPLE,
     "kubectl create secret generic db", None),
    ("dsn-quoted", f"psycopg2.connect(\"host=db user=app password='{STAPLE}'\")", STAPLE, "host=db user=app", None),
    ("symbols-single", "DB_PASSWORD = 'Tr0ub4dor & 3'", "Tr0ub4dor & 3", "DB_PASSWORD = '", None),
    ("env-unquoted", f"APP_PASSWORD={GAPP}", GAPP, "APP_PASSWORD=", "generic-secret"),
    ("env-words", f"DB_PASS={STAPLE}", STAPLE, "DB_PASS=", "generic-secret"),
    ("compose-words", f"      MYSQL_PASSWORD: {STAPLE}", STAPLE, "MYSQL_PASSWORD: ", "generic-secret"),
    ("properties-words", f"spring.mail.password={GAPP}", GAPP, "spring.mail.password=", "generic-secret"),
    ("conn-string-words", f"Server=db;User Id=sa;Password={STAPLE};", STAPLE, "User Id=sa;", "generic-secret"),
    ("label-app-password", f"Password: {GAPP}", GAPP, "Password: ", None),
    ("env-comment", f"PASSWORD={GAPP} # gmail app password", GAPP, "# gmail app password", "generic-secret"),
    ("k8s-env-words", f'  - name: DB_PASSWORD\n    value: "{STAPLE}"\n', STAPLE, "- name: DB_PASSWORD",
     "named-setting"),
    ("k8s-env-unquoted", f"  - name: SMTP_PASSWORD\n    value: {GAPP}\n", GAPP, "- name: SMTP_PASSWORD",
     "named-setting"),
    ("smtp-login", f'smtp.login("me@gmail.com", "{GAPP1}")', GAPP1, 'smtp.login("me@gmail.com", "', "call-password"),
    ("smtp-login-groups", f"server.login('me@gmail.com', '{GAPP}')", GAPP, "server.login('me@gmail.com', '",
     "call-password"),
    ("imap-login-var", f'imap.login(user, "{GAPP1}")', GAPP1, "imap.login(user, ", "call-password"),
    ("requests-auth", 'requests.get(url, auth=("bob", "plumtree77"))', "plumtree77", 'auth=("bob", "',
     "call-password"),
    ("basic-auth", 'auth=HTTPBasicAuth("bob", "plumtree")', "plumtree", 'HTTPBasicAuth("bob", "', "call-password"),
    ("sudo-echo-words", f'echo "{GAPP}" | sudo -S ls', GAPP, "| sudo -S ls", "cli-password"),
    ("docker-stdin-words", f'printf %s "{GAPP}" | docker login --password-stdin', GAPP,
     "| docker login --password-stdin", "cli-password"),
    ("passwd-stdin-words", f"echo '{STAPLE}' | passwd --stdin bob", STAPLE, "passwd --stdin bob", "cli-password"),
    ("sshpass-words", f'sshpass -p "{STAPLE}" ssh build-host', STAPLE, "ssh build-host", "cli-password"),
    ("curl-user-words", f'curl -u "bob:{GAPP}" https://x.example', GAPP, "https://x.example", "cli-password"),
    ("curl-user", 'curl -u "bob:Zq8mK2pLx9" https://x.example', "Zq8mK2pLx9", "https://x.example", "cli-password"),
    ("curl-user-then-header", 'curl -u bob:plumtree99 -H "Accept: text/plain" https://x.example', "plumtree99",
     '-H "Accept: text/plain"', "cli-password"),
    ("here-string-words", f'docker login -u bob --password-stdin <<< "{GAPP}"', GAPP, "docker login -u bob",
     "cli-password"),
    ("app-secret-lower", f"APP_SECRET={RAND}", RAND, "APP_SECRET=", "generic-secret"),
    ("api-token-lower", f"API_TOKEN={RAND}zz", RAND + "zz", "API_TOKEN=", "generic-secret"),
    ("webhook-secret-lower", f"WEBHOOK_SECRET={RAND2}", RAND2, "WEBHOOK_SECRET=", "generic-secret"),
    ("auth-token-quoted", f'auth_token = "{RAND}zz"', RAND + "zz", 'auth_token = "', "generic-secret"),
    ("client-secret-yaml", f"client_secret: {RAND}", RAND, "client_secret: ", "generic-secret"),
    ("wget-password", "wget --password=plumtree https://x.example/f", "plumtree", "https://x.example/f",
     "generic-secret"),
    ("mysqldump-password", "mysqldump -u root --password=plumtree app", "plumtree", " app", None),
    ("pgpassword-prefix", "PGPASSWORD=plumtree psql -h db -U app", "plumtree", "psql -h db -U app",
     "generic-secret"),
    ("conn-string", "Server=db;Database=app;User Id=sa;Password=plumtree;", "plumtree", "User Id=sa;",
     "generic-secret"),
    ("properties", "spring.datasource.password=plumtree", "plumtree", "spring.datasource.password=",
     "generic-secret"),
    ("redis-server", "    command: redis-server --requirepass plumtreeriver", "plumtreeriver",
     "redis-server --requirepass ", "config-password"),
]
CASES = {row[0]: row[1:] for row in _ROWS}


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_is_redacted_raw_and_json_escaped(case):
    text, secret, kept, rule = CASES[case]
    assert_redacted(case, text, [secret, *secret.split(" ")[1:]], kept=[kept], rule=rule)


KEPT = [
    "API_TOKEN=placeholder",
    "SECRET=changeme",
    "TOKEN=refreshaccesstokenifexpired",
    "SECRET_NAME=mydatabasesecretname",
    'password: "Enter your password"',
    '"password": "mot de passe"',
    '"password": "new password"',
    '"password_hint": "at least eight characters"',
    "password: not set",
    "password: see the vault",
    "Password: reset every ninety days",
    "password: string or null",
    "password = hashed and salted",
    "secret: stored in the keychain",
    "password: the same as staging",
    "password: ask the admin for it",
    'self.password = "foo bar baz"',
    '"token": "new york city"',
    'api_key: "some words here"',
    "self.client.login(username, password)",
    'smtp.login(user, os.environ["SMTP_PASSWORD"])',
    "server.login(self.user, self.password)",
    'ftp.login("anonymous", "")',
    "requests.get(url, auth=(user, password))",
    'auth=("bob", "%s")',
    'requests.get(url, auth=HTTPBasicAuth("user", "password"))',
    'requests.get(url, auth=HTTPBasicAuth("user", "changeme"))',
    "user.password=form.cleaned_data",
    "PASSWORD=secret make test",
    "DB_PASSWORD=required by the app",
    "--password=$DB_PASSWORD",
    "wget --password=PASSWORD https://x",
    "spring.datasource.password=${DB_PASSWORD}",
    "self.db.password=value",
    "redis-server --requirepass $REDIS_PASSWORD",
    "  - name: DB_PASSWORD\n    value: not set here\n",
    "PASSWORD=changeme # set in production",
    "Password: incorrectly typed three times",
    "password: must have four char",
    'echo "hello world" | grep x',
    'echo "$PW and more" | sudo -S ls',
]


@pytest.mark.parametrize("case", ["pgpassword-prefix", "properties", "env-unquoted", "wget-password", "conn-string",
                                  "smtp-login", "sshpass-words", "k8s-env-words", "settings-py"])
def test_shape_past_the_first_window_and_after_a_line_break(case):
    """The shape on a line of its own after 360,000 characters of prose: the
    second scan window (its lowercased copy offset from the text) finds it
    as the first does."""
    text, secret, kept, rule = CASES[case]
    assert_redacted(case, "lorem ipsum dolor " * 20_000 + "\n" + text + "\n", [secret, *secret.split(" ")[1:]],
                    kept=[kept], rule=rule, escaped=False)


@pytest.mark.parametrize("text", KEPT)
def test_look_alike_stays(text):
    """A UI text, prose, a name, a variable, a reference or a placeholder
    where a red26 shape could stand: unchanged, raw and JSON-escaped."""
    assert_kept(text)


def test_stored_by_remember_and_import_without_the_last_word(tmp_path, mem):
    """``mem remember``/``mem get`` and an imported transcript's Bash
    result, real processes: the last word of each secret (what batch kept
    of a multi-word value) is stored by neither path."""
    cases = {k: (v[0], v[1].split(" ")[-1], v[2]) for k, v in CASES.items()}
    check_remembered_and_imported(mem, tmp_path, "red26", "26262626-aaaa-4bbb-8ccc-262626262626", cases,
                                  ("django-email", "env-unquoted", "smtp-login", "app-secret-lower",
                                   "pgpassword-prefix", "redis-server"),
                                  'password: "Enter your password"')
