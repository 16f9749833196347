"""cli21 (tester finding W3): secrets typed on a command line that shell
capture and agents' tool calls stored in the clear on batch: ssh-keygen's
``-P``/``-N``, macOS ``security add-generic-password -w``, ``gh secret set
--body``, ``aws ssm put-parameter --value`` / ``aws secretsmanager
--secret-string`` / ``az keyvault secret set --value`` (whatever the
secret's name), ``openssl passwd``, a here-string fed to a secret store or
to ``read -s``, a ``Cookie:`` header's value and curl ``-b name=value``,
and mysql's ``-p'…'`` quoted with a blank inside.  Every value is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted

#: each command line and the secrets that must not survive it
CASES = {
    "ssh-keygen": ("ssh-keygen -p -P OldPass9Kx -N NewPass9Kx -f k", ["OldPass9Kx", "NewPass9Kx"]),
    "aws-ssm": ("aws ssm put-parameter --name /prod/db/password --value SsmVal9pw", ["SsmVal9pw"]),
    "aws-ssm-name": ("aws --region eu-west-1 ssm put-parameter --value=SsmPlain7q --name app/color --type String",
                     ["SsmPlain7q"]),
    "aws-sm": ("aws secretsmanager put-secret-value --secret-id db --secret-string SmStr9pwQ", ["SmStr9pwQ"]),
    "az": ("az keyvault secret set --vault-name v --name DbPassword --value AzKv9pwX", ["AzKv9pwX"]),
    "gcloud": ("gcloud secrets versions add db-pass --data-file=- <<< GcpSec9pw", ["GcpSec9pw"]),
    "security": ("security add-generic-password -a bob -s svc -w KeychainPw9", ["KeychainPw9"]),
    "gh": ("gh secret set FOO --body GhBody9Sec", ["GhBody9Sec"]),
    "gh-b": ("gh secret set FOO -b 'GhShort9x' --repo o/r", ["GhShort9x"]),
    "gh-stdin": ("gh secret set FOO <<< GhHere9Sec", ["GhHere9Sec"]),
    "openssl": ("openssl passwd -6 -salt s4lt OsslPasswd9", ["OsslPasswd9"]),
    "openssl-stdin": ("openssl passwd -6 -stdin <<< OsslStdin9", ["OsslStdin9"]),
    "read-s": ("read -s PW <<< 'ReadS9pw'", ["ReadS9pw"]),
    "read-rs": ("read -rs -p PW <<< \"ReadRs9pw\"", ["ReadRs9pw"]),
    "docker-secret": ("docker secret create db_pw - <<< DockSec9pw", ["DockSec9pw"]),
    "cookie": ("curl -H 'Cookie: session=CookieSess9abcdef; csrf=Csrf9Tok' https://x",
               ["CookieSess9abcdef", "Csrf9Tok"]),
    "set-cookie": ("< set-cookie: sid=SetCk9abcdef; Path=/; HttpOnly", ["SetCk9abcdef"]),
    "curl-b": ("curl -b 'sid=CurlB9cookie' https://x", ["CurlB9cookie"]),
    "mysql-quoted": ("mysql -uroot -p'MyQuot9 pw' app", ["MyQuot9", " pw'"]),
    "mysql-dquoted": ('mysqldump -u root -p"My Dq9 pw" db', ["My Dq9", 'pw"']),
}
KEPT = {"ssh-keygen": "-f k", "aws-ssm": "--name /prod/db/password", "az": "--name DbPassword",
        "gcloud": "--data-file=- <<< ", "security": "-a bob -s svc -w ", "gh": "gh secret set FOO --body ",
        "cookie": "Cookie: session=", "curl-b": "-b 'sid=", "mysql-quoted": "' app",
        "openssl": "-salt s4lt "}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_command_line_secret_is_redacted(case):
    text, secrets = CASES[case]
    assert_redacted(case, text, secrets, [KEPT[case]] if case in KEPT else ())


@pytest.mark.parametrize("text", [
    "ssh-keygen -t ed25519 -N '' -f ~/.ssh/id_ed25519", "ssh-keygen -p -P \"$OLD\" -N \"$NEW\" -f k",
    "security add-generic-password -a bob -s svc -w", "security find-generic-password -s svc -w",
    "gh secret set FOO < secret.txt", "gh variable set FOO --body plainvalue",
    "aws ssm put-parameter --name n --value \"$VALUE\"", "aws ssm get-parameter --name n --with-decryption",
    "openssl passwd -6 -stdin", "openssl passwd -6 -in pw.txt", "read -r LINE <<< \"$input\"",
    "read -s PW", "grep x <<< hello", "mysql -uroot -p app", "mysql -u root -p'$MYSQL_PWD' app",
    "Cookie: see the docs", "curl -b cookies.txt https://x", "curl -b 'lang=en' https://x",
    "Set-Cookie: PART_NUMBER=ROCKET_LAUNCHER_0001; path=/", "Cookie: theme=dark; lang=en", "gcloud secrets versions access latest --secret s",
])
def test_look_alikes_are_kept(text):
    assert redact(text).text == text


def test_shell_capture_stores_none_of_them(tmp_path, mem, store_path):
    """With real mem processes, the tester's reproduction: each line through
    ``mem hook shell`` with shell capture on; ``mem show`` holds no secret
    and ``mem search`` for one finds none."""
    env = {"MEM_HOME": str(store_path), "MEM_SHELL_CAPTURE": "1"}
    for text, _s in CASES.values():
        mem("hook", "shell", "--session", "sh-1", "--cwd", "/home/dev/proj", "--status", "0",
            "--start", "1767225600000", "--duration", "5", input=text, env=env)
    shown = mem("show", "sh-1", env=env).stdout
    assert "[REDACTED:cli-password]" in shown
    for case, (_text, secrets) in CASES.items():
        for s in secrets:
            assert s not in shown, f"{case}: {s!r} captured in clear\n{shown}"
    out = mem("search", "KeychainPw9", "--json", env=env, exit_code=None).stdout
    assert "KeychainPw9" not in out
