"""red23 (tester findings Y3, Y4, Y11): credential shapes stored in the clear
on batch, and the look-alikes that must stay.  Y3: a JWT's secret or a master
or app key of letters alone or hex/base64 (``JWT_SECRET="supersecretvalue"``,
``RAILS_MASTER_KEY=<32 hex>``, ``APP_KEY=base64:…``), while a Kubernetes
Secret's NAME after ``…_SECRET=`` stays (``IMAGE_PULL_SECRET=regcred``).  Y4:
a secret fed by standard input to a secret store (a here-document, ``echo X |
kubectl|vault|aws|secret-tool|keyring|htpasswd -i|openssl passwd -stdin|
ansible-vault``).  Y11: ``pincode:``, ``pass_code =``, tables with ``\\|``,
org-mode and grid tables, ``<dl>``, a definition list.  Every value is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted, check_remembered_and_imported

#: case: (text, the secret in it, what must stay, the rule named, JSON-escaped too)
Y3 = {
    "jwt-quoted": ('JWT_SECRET="supersecretvalue"', "supersecretvalue", 'JWT_SECRET="', "generic-secret", True),
    "jwt-yaml": ("jwt_secret: supersecretvalue", "supersecretvalue", "jwt_secret: ", "generic-secret", True),
    "jwt-json": ('{"jwtSecret": "supersecretvalue"}', "supersecretvalue", '{"jwtSecret": "', "generic-secret", True),
    "jwt-export": ("export JWT_SECRET=supersecretvalue", "supersecretvalue", "export JWT_SECRET=", "generic-secret",
                   True),
    "rails-master-key": ("RAILS_MASTER_KEY=4f3c2a1b9e8d7c6b5a4f3e2d1c0b9a8f", "4f3c2a1b9e8d7c6b5a4f3e2d1c0b9a8f",
                         "RAILS_MASTER_KEY=", "generic-secret", True),
    "laravel-app-key": ("APP_KEY=base64:dGhpcyBpcyBhIHRlc3Qga2V5IGZvciBsYXJhdmVsIQ==",
                        "dGhpcyBpcyBhIHRlc3Qga2V5IGZvciBsYXJhdmVsIQ==", "APP_KEY=", "generic-secret", True),
    "master-key": ("MASTER_KEY=Zq7mmPl0xQ8rT5y6", "Zq7mmPl0xQ8rT5y6", "MASTER_KEY=", "generic-secret", True),
}
Y4 = {
    "gh-heredoc": ("gh secret set N <<EOF\nZq7mmPl0x\nEOF", "Zq7mmPl0x", "gh secret set N <<EOF", "cli-password",
                   True),
    "gh-heredoc-quoted": ("gh secret set N <<'EOF'\nHd0cQuot9\nEOF\necho done", "Hd0cQuot9", "echo done",
                          "cli-password", True),
    "cat-heredoc-pipe": ("cat <<EOF | gh secret set N\nCatPipe9x\nEOF", "CatPipe9x", "| gh secret set N",
                         "cli-password", True),
    "kubectl-heredoc": ("kubectl create secret generic s --from-file=password=/dev/stdin <<EOF\nKubeHd9x\nEOF",
                        "KubeHd9x", "--from-file=password=/dev/stdin", "cli-password", True),
    "kubectl-stdin": ("echo KubeStd9x | kubectl create secret generic s --from-file=password=/dev/stdin",
                      "KubeStd9x", "| kubectl create secret", "cli-password", True),
    "vault": ("echo VaultPw9x | vault kv put secret/x password=-", "VaultPw9x", "vault kv put secret/x password=-",
              "cli-password", True),
    "aws": ("echo AwsStd9x | aws secretsmanager put-secret-value --secret-id x --secret-string file:///dev/stdin",
            "AwsStd9x", "--secret-string file:///dev/stdin", "cli-password", True),
    "secret-tool": ("echo -n StPw9xyz | secret-tool store --label=x service svc user me", "StPw9xyz",
                    "secret-tool store", "cli-password", True),
    "keyring": ("echo KeyrPw9x | keyring set svc user", "KeyrPw9x", "keyring set svc user", "cli-password", True),
    "htpasswd": ("echo HtPw9xyz | htpasswd -i .htpasswd bob", "HtPw9xyz", "htpasswd -i .htpasswd bob",
                 "cli-password", True),
    "openssl": ("echo OsslPw9x | openssl passwd -stdin", "OsslPw9x", "openssl passwd -stdin", "cli-password", True),
    "ansible-vault": ("echo -n AnsPw9xy | ansible-vault encrypt_string --stdin-name db_pw", "AnsPw9xy",
                      "ansible-vault encrypt_string", "cli-password", True),
}
Y11 = {
    "pincode": ("pincode: 4471", "4471", "pincode: ", "password-phrase", True),
    "pass-code": ('pass_code = "Zq7mmPl0x"', "Zq7mmPl0x", "pass_code = ", "generic-secret", True),
    "pass-code-letters": ('pass_code = "hunterxyz"', "hunterxyz", "pass_code = ", "generic-secret", True),
    "escaped-pipe": ("| user | password |\n|---|---|\n| bob | Zq7\\|mmPl0x |", "mmPl0x", "| bob | ",
                     "markdown-secret", False),
    "escaped-pipe-other-cell": ("| a\\|b | password |\n|---|---|\n| x | EscPipe9x |", "EscPipe9x", "| x | ",
                                "markdown-secret", False),
    "org-table": ("| user | password |\n|------+----------|\n| bob | OrgPw9xyz |", "OrgPw9xyz", "| bob | ",
                  "markdown-secret", False),
    "grid-table": ("+------+----------+\n| user | password |\n+======+==========+\n| bob  | GridPw9x |\n"
                   "+------+----------+\n| amy  | GridPw8y |\n+------+----------+", "GridPw8y", "| amy  | ",
                   "markdown-secret", False),
    "dl": ("<dl><dt>Password</dt><dd>DlPw9xyz</dd></dl>", "DlPw9xyz", "<dt>Password</dt><dd>", "markdown-secret",
           True),
    "dl-lines": ("<dl>\n  <dt>Password</dt>\n  <dd><code>DlPw8xyz</code></dd>\n</dl>", "DlPw8xyz", "<dd><code>",
                 "markdown-secret", False),
    "definition": ("Staging\n\npassword\n: DefPw9xy", "DefPw9xy", "password\n: ", "markdown-secret", False),
}
CASES = {**Y3, **Y4, **Y11}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_shape_is_redacted(case):
    text, secret, kept, rule, escaped = CASES[case]
    assert_redacted(case, text, [secret], [kept], rule, escaped=escaped)


#: what must stay: a Kubernetes Secret's name, a reference, a placeholder, an empty value, a read of a store, its
#: help, a board's pin table, a test report's Pass column (org-mode and grid too), prose after a definition's ':'
KEPT = [
    "IMAGE_PULL_SECRET=regcred", "DB_SECRET=postgres-credentials", "TLS_SECRET=ingress-tls",
    "jwt_secret: ${JWT_SECRET}", "JWT_SECRET=$JWT_SECRET", "JWT_SECRET=changeme", "JWT_SECRET=required",
    "jwt_secret: jwt-signing-secret", "jwtSecret: process.env.JWT_SECRET", "the jwt secret: rotated weekly",
    # decided: MASTER_KEY=changeme is the placeholder every other label keeps (checks.is_placeholder)
    "APP_KEY=", "APP_KEY=${APP_KEY}", "MASTER_KEY=changeme", "master key: disabled", "RAILS_MASTER_KEY=",
    "echo hello | gh secret list", "gh secret set --help", "gh secret set N < token.txt",
    "gh secret set N <<EOF\n$TOKEN\nEOF", "cat <<EOF > notes.md\nhello world\nEOF",
    "cat <<EOF | grep x\nsome text\nEOF", "cat <<EOF > notes.md && gh secret set N < f\nhello there\nEOF",
    'vault write sys/policy/x policy=- <<EOF\npath "secret/*" {}\nEOF', "std::cout << x << std::endl;", "echo hello | vault status",
    "kubectl get secret s -o yaml", "keyring get svc user",
    "| PIN | GPIO |\n|---|---|\n| 4 | 17 |", "| Test | Pass |\n|---|---|\n| login | passed |",
    "| Test | Pass |\n|------+------|\n| login | passed |",
    "+------+------+\n| Test | Pass |\n+======+======+\n| login | yes |\n+------+------+",
    "<dl><dt>PIN</dt><dd>GPIO4</dd><dt>Pass</dt><dd>all green</dd></dl>",
    "Password\n: required for login", "pincode: required", "pinned: 4471",
]


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_are_kept(text):
    assert redact(text).text == text


def test_mem_remember_get_and_import(tmp_path, mem):
    """Real mem processes: each shape remembered (``mem get`` shows the
    label, not the value) and each one a Bash result of an imported Claude
    Code transcript (``mem show``); a look-alike comes back as written."""
    cases = ("jwt-quoted", "laravel-app-key", "gh-heredoc", "vault", "org-table", "dl", "pincode")
    check_remembered_and_imported(mem, tmp_path, "red23", "23232323-aaaa-4bbb-8ccc-232323232323", CASES, cases,
                                  "IMAGE_PULL_SECRET=regcred")
