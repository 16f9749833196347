"""redb22 (tester test22's findings X8, X9, X10): credential shapes stored in
the clear on batch.  X8: a secret piped by ``echo``/``printf`` into a secret
store that reads it from standard input (``gh secret set``, ``wrangler secret
put``, ``vercel env add``, ``docker secret create``, ``security
add-generic-password -w``, ``pass insert``, ``firebase functions:secrets:set``).
X9: Markdown and HTML tables and labels: a ``pass``, ``PIN``, ``secret key``
or ``Password (prod)`` column, ``**pass**: `X```, ``<th>password</th>`` ...
``<td>X</td>``.  X10: ``passcode:``, ``ENCRYPTION_KEY=``.  fp22 (test22b's Y6)
took back ``NAME_SECRET=words`` and held ``pass`` / ``Secret Key`` values to a
credential's shape: their look-alikes are in :data:`FP22_KEPT`.  The label and the rest of the text stay; the value
becomes ``[REDACTED:…]``.  Every value is fake."""

from __future__ import annotations

import json

import pytest

from objstore.core.redact import redact
from tests.hooks._util import asst, line, tool_result, tool_use, user

#: case: (text, the secret in it, what must stay); X8 command lines
COMMANDS = {
    "gh": ("echo Zq7mmPl0x | gh secret set DB_PASS", "Zq7mmPl0x", "| gh secret set DB_PASS"),
    "wrangler": ("printf 'Wr4ngl3rPw' | wrangler secret put API_SECRET", "Wr4ngl3rPw", "wrangler secret put"),
    "npx-wrangler": ('echo -n "NpxWr4ng9" | npx wrangler secret put N', "NpxWr4ng9", "npx wrangler"),
    "vercel": ("echo 'V3rcelPw9x' | vercel env add DB_PASSWORD production", "V3rcelPw9x", "vercel env add"),
    "docker": ("echo 'D0ckSecPw9' | docker secret create db_pw -", "D0ckSecPw9", "docker secret create db_pw -"),
    "security": ("printf '%s' 'K3ychainPw' | security add-generic-password -a me -s svc -w", "K3ychainPw",
                 "printf '%s' '"),
    "pass": ("echo 'P4ssStore9' | pass insert -e web/site", "P4ssStore9", "pass insert -e web/site"),
    "firebase": ("echo 'F1rebaseSec' | firebase functions:secrets:set STRIPE_KEY", "F1rebaseSec",
                 "functions:secrets:set STRIPE_KEY"),
    "printf-newline": ("printf '%s\\n' 'Gcl0udSec9' | gcloud secrets versions add db --data-file=-", "Gcl0udSec9",
                       "--data-file=-"),
}
#: X9 Markdown and HTML
MARKDOWN = {
    "password-qualified": ("| host | Password (prod) |\n|---|---|\n| db1 | Tr0ub4dor&3x |", "Tr0ub4dor&3x",
                           "| host | Password (prod) |"),
    "password-staging": ("| host | Password (staging) |\n|---|---|\n| db1 | St4gingPw9 |", "St4gingPw9", "| db1 |"),
    "pass-column": ("| host | pass |\n|---|---|\n| db1 | Zq7mmPl0x |", "Zq7mmPl0x", "| host | pass |"),
    "pin-column": ("| card | PIN |\n|---|---|\n| visa | 4471-9902 |", "4471-9902", "| visa |"),
    "secret-key-column": ("| host | secret key |\n|---|---|\n| db1 | Sk3yValue9 |", "Sk3yValue9", "| db1 |"),
    "secret-key-random": ("| Name | Secret Key |\n|---|---|\n| prod | aK3jR9xQ2mW7pL5vN8bT4cY6hF1gD0sZeUi |",
                          "aK3jR9xQ2mW7pL5vN8bT4cY6hF1gD0sZeUi", "| prod |"),
    "bold-pass": ("* **pass**: `Zq7mmPl0y`", "Zq7mmPl0y", "* **pass**: `"),
    "html": ("<table><tr><th>user</th><th>password</th></tr><tr><td>bob</td><td>Htm1Pw9x</td></tr></table>",
             "Htm1Pw9x", "<td>bob</td>"),
    "html-lines": ("<table>\n  <thead><tr><th>Host</th><th>Password</th></tr></thead>\n  <tbody>\n"
                   "    <tr><td>db1</td><td><code>Html2Pw9x</code></td></tr>\n  </tbody>\n</table>",
                   "Html2Pw9x", "<td>db1</td>"),
    "html-row-header": ("<table><tr><th>Host</th><td>db1</td></tr><tr><th>Password</th><td>Html3Pw9x</td></tr></table>",
                        "Html3Pw9x", "<th>Password</th><td>"),
}
#: X10 settings
SETTINGS = {
    "passcode": ("passcode: Zq7mmPl0z", "Zq7mmPl0z", "passcode: "),
    "encryption-key": ("ENCRYPTION_KEY=Zq7mmPl0xQ8rT5y6", "Zq7mmPl0xQ8rT5y6", "ENCRYPTION_KEY="),
    # fp22 dropped redb22's 'jwt-secret' / 'export-session-secret' (``NAME_SECRET=words``): a words-only value
    # after '_SECRET=' cannot be told from a Kubernetes Secret's name (``DB_SECRET=postgres-credentials``)
    "jwt-secret-mixed": ("JWT_SECRET=Sup3rSecretValue", "Sup3rSecretValue", "JWT_SECRET="),
}
CASES = {**COMMANDS, **MARKDOWN, **SETTINGS}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_shape_is_redacted(case):
    text, secret, kept = CASES[case]
    res = redact(text)
    assert secret not in res.text, f"{case}: {secret!r} survived\n{res.text}"
    assert kept in res.text, f"{case}: {kept!r} was taken\n{res.text}"
    assert "[REDACTED:" in res.text
    assert redact(res.text).text == res.text


@pytest.mark.parametrize("case", sorted(COMMANDS) + ["jwt-secret-mixed", "encryption-key", "html"])
def test_each_one_line_shape_is_redacted_in_a_tool_calls_json(case):
    """As a hook sees a tool call: the command inside a JSON string (its quotes escaped)."""
    text, secret, _kept = CASES[case]
    esc = redact(json.dumps({"command": text})).text
    assert json.dumps(secret)[1:-1] not in esc, f"{case} (JSON): {secret!r} survived\n{esc}"


#: fp22 (tester test22b's Y6): what redb22's rules took that is no credential: a Kubernetes Secret's name after
#: '_SECRET=' (and a rotation period), a 'Secret Key' column naming keys, a build table's hash, a build's name
FP22_KEPT = [
    "IMAGE_PULL_SECRET=regcred", "DB_SECRET=postgres-credentials", "TLS_SECRET=ingress-tls",
    "K8S_SECRET=app-secrets", "ROTATE_SECRET=weekly",   # red23 (Y3): 'export JWT_SECRET=supersecretvalue' is a key
    "| Secret Key | Used by |\n|---|---|\n| stripe-webhook | billing-service |",
    "| Build | Pass |\n|---|---|\n| #8812 | 3f9a0c1e7b2d4a6f |",
    "* **pass**: build-7788a",
    "<table><tr><th>Secret Key</th><th>Used by</th></tr><tr><td>stripe-webhook</td><td>billing</td></tr></table>",
]


@pytest.mark.parametrize("text", [
    # X8 look-alikes: a reference, a file, no secret store, a read
    'echo "$DB_PASS" | gh secret set DB_PASS', "gh secret set DB_PASS < pw.txt", "echo hello | grep h",
    "echo done | tee log.txt", "cat pw.txt | wrangler secret put N", "pass show web/site",
    "echo '%s' | wc -c", "gh secret list",
    # X9 look-alikes: a test report's Pass column, a board's pin table, a password policy, no table
    "| Test | Pass |\n|---|---|\n| login | passed |\n| logout | yes |",
    "| Suite | Pass | Fail |\n|---|---|---|\n| unit | 120 | 3 |",
    "| Pin | Function |\n|---|---|\n| 13 | LED |\n| GPIO4 | SDA |",
    "| PIN | Name |\n|---|---|\n| 1 | VCC |",
    "<table><tr><th>Setting</th><th>Password policy</th></tr><tr><td>min</td><td>required</td></tr></table>",
    "<table><tr><th>Pin</th><th>Function</th></tr><tr><td>13</td><td>LED</td></tr></table>",
    "<table><tr><th>Password</th><td>required</td></tr><tr><th>PIN</th><td>13</td></tr></table>",
    "* **Pass**: all green", "**PIN**: 13",
    # X10 look-alikes: a placeholder, a name in lower case, a reference, a key's placeholder
    "JWT_SECRET=changeme", "JWT_SECRET=${JWT_SECRET}",   # red23 (Y3): 'jwt_secret=supersecretvalue' a key "JWT_SECRET=required",
    "SLOPOMETRY_LLM_PROXY_API_KEY=sk-whatever", "encryption key: AES-256", "passcode: required",
] + FP22_KEPT)
def test_look_alikes_are_kept(text):
    assert redact(text).text == text


def _transcript(sid: str) -> bytes:
    """A Claude Code transcript: each X8 command line as a Bash call, each X9/X10 text as a Bash result."""
    rows = [line(user("u1", "set up the secrets", sid))]
    for i, (case, (text, _s, _k)) in enumerate(sorted(CASES.items())):
        cmd = text if case in COMMANDS else f"cat {case}.md"
        rows.append(line(asst(f"a{i}", f"m{i}", [tool_use(f"toolu_{i}", "Bash", command=cmd)], sid)))
        rows.append(line(user(f"r{i}", [tool_result(f"toolu_{i}", "ok" if case in COMMANDS else text)], sid)))
    return b"".join(rows)


def test_mem_remember_and_import_store_none_of_them(tmp_path, mem, store_path):
    """With real mem processes: each text remembered (``mem get`` shows the
    label, not the value) and each in an imported Claude Code transcript
    (a command line as a Bash call, a table or setting as its result); the
    whole store's ``mem export`` holds none of the secrets."""
    keys = {case: f"project/redb22/note{i}" for i, case in enumerate(sorted(CASES))}   # names that say nothing
    for case, (text, _secret, _kept) in CASES.items():
        mem("remember", keys[case], text)
    for case, (_text, secret, kept) in CASES.items():
        got = mem("get", keys[case]).stdout
        assert secret not in got, f"{case}: {secret} remembered in clear"
        assert "[REDACTED:" in got and kept in got, f"{case}\n{got}"
    sid = "22222222-bbbb-4222-8222-222222222222"
    t = tmp_path / f"{sid}.jsonl"
    t.write_bytes(_transcript(sid))
    mem("import", "claude-code", str(t))
    out = mem("export", "-o", "-").stdout
    assert sid in out and "gh secret set DB_PASS" in out and "| host | Password (prod) |" in out
    for case, (_text, secret, _kept) in CASES.items():
        assert secret not in out and json.dumps(secret)[1:-1] not in out, f"{case}: {secret} exported in clear"


def test_fp22_look_alikes_are_kept_by_mem_remember(mem):
    """fp22 (Y6): with a real ``mem``: each look-alike remembered comes back whole from ``mem get``."""
    for i, text in enumerate(FP22_KEPT):
        mem("remember", f"project/fp22/k{i}", text)
    for i, text in enumerate(FP22_KEPT):
        got = mem("get", f"project/fp22/k{i}").stdout
        assert text in got and "[REDACTED:" not in got, f"{text!r} was redacted\n{got}"
