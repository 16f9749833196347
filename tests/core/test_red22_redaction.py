"""red22: redaction gaps left by session 21.  A JSON string value with an
escaped quote or a blank (``{"password": "a\\"b c"}``) lost only its part
before the escape, or nothing; the here-string rules other than cli21's
took no JSON-escaped opening quote (``sudo -S … <<< \\"pw\\"`` in a tool
call's JSON redacted the backslash and kept the password) and ate the
backslash of an escaped closing quote; Docker's ``identitytoken`` and
``registrytoken`` of a ``config.json`` were stored when they did not look
random; md21's Markdown rule and cli21's Cookie rule reported as
generic-secret and bearer-token (now markdown-secret, http-cookie).  Checked on ``redact`` and with real ``mem import claude-code`` /
``codex`` and ``mem export``.  Every value is fake."""

from __future__ import annotations

import json

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted, codex_rollout, remember_and_import

#: each text, the secrets that must not survive it, the pieces kept and the rule named
CASES = {
    "json-escaped-quote": ('{"password": "Qz7\\"mK2 vP9xLw"}', ["Qz7", "mK2", "vP9xLw"], ['{"password": "'],
                           "generic-secret"),
    "json-escaped-quote-token": ('{"api_token": "Ab9x\\"Qz7kWp3mN"}', ["Ab9x", "Qz7kWp3mN"], ['"api_token": '],
                                 "generic-secret"),
    "json-blank": ('{"db": {"password": "Hn4 pR8 wQ2x"}}', ["Hn4", "pR8", "wQ2x"], ['"password": "'],
                   "generic-secret"),
    "sudo-here": ('{"command": "sudo -S apt update <<< \\"Sudo9pwXq\\""}', ["Sudo9pwXq"], ["apt update <<< "],
                  "cli-password"),
    "passwd-here": ('{"command": "passwd <<< \\"Pwd9hereXq\\""}', ["Pwd9hereXq"], ["passwd <<< "], "cli-password"),
    "chpasswd-here": ('{"command": "chpasswd <<< \\"root:Chp9pwXq\\""}', ["Chp9pwXq"], ["root:"], "cli-password"),
    "docker-identitytoken": ('{"auths": {"acr.example.io": {"identitytoken": "AbcdefghijklmnopQrstuv"}}}',
                             ["AbcdefghijklmnopQrstuv"], ["acr.example.io", '"identitytoken": "'], "docker-auth"),
    "docker-registrytoken": ('{"auths":{"r.example.com":{"registrytoken":"abcdefgh-ijklmnop-qrstuv"}}}',
                             ["abcdefgh-ijklmnop-qrstuv"], ["r.example.com"], "docker-auth"),
    # md21's and cli21's rules under their own names (they reported as generic-secret and bearer-token)
    "markdown": ("- **DB password**: `Md9pwXYZq`", ["Md9pwXYZq"], ["- **DB password**: `"], "markdown-secret"),
    "cookie": ("> Cookie: sessionid=Sx4abcDEF123ghiJKL; theme=dark", ["Sx4abcDEF123ghiJKL"], ["Cookie: sessionid="],
               "http-cookie"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_shape_is_redacted(case):
    text, secrets, kept, rule = CASES[case]
    out = assert_redacted(case, text, secrets, kept, rule)
    if text.startswith("{"):
        json.loads(out)                             # still JSON: no escape backslash taken or left half


def test_exact_outputs():
    """The whole value goes, at every JSON level, and the quotes stay."""
    assert redact('{"password": "a\\"b c"}').text == '{"password": "[REDACTED:generic-secret]"}'
    inner = '{"password": "Qz7\\"mK2 vP9xLw"}'
    line = json.dumps({"type": "tool_result", "content": inner})          # a transcript's JSON-escaped field
    assert json.loads(json.loads(redact(line).text)["content"]) == {"password": "[REDACTED:generic-secret]"}
    deeper = json.dumps({"arguments": line})                              # one level further
    got = json.loads(json.loads(json.loads(redact(deeper).text)["arguments"])["content"])
    assert got == {"password": "[REDACTED:generic-secret]"}
    assert redact("| user | password |\n|---|---|\n| admin | Tabl3Pw9x |").text == \
        "| user | password |\n|---|---|\n| admin | [REDACTED:markdown-secret] |"
    assert redact("Set-Cookie: sid=SetCk9abcdef; Path=/").text == "Set-Cookie: sid=[REDACTED:http-cookie]"
    here = json.dumps({"command": 'sudo -S apt update <<< "Sudo9pwXq"'})
    assert json.loads(redact(here).text)["command"] == 'sudo -S apt update <<< "[REDACTED:cli-password]"'


@pytest.mark.parametrize("text", [
    '{"password": "Enter your password"}', '{"password_hint": "Must be 8 chars"}', '{"secret": "Client secret"}',
    '{"label": "Password", "help": "at least \\"8\\" characters"}', '{"password": "${DB_PASSWORD}"}',
    '{"auths": {"r.example.com": {"identitytoken": "<token>"}}}',
    '{"auths": {"r.example.com": {"identitytoken": "$ACR_TOKEN"}}}',
    '{"command": "grep x <<< \\"hello\\""}', '{"command": "sudo -S true <<< \\"$PW\\""}',
])
def test_look_alikes_are_kept(text):
    assert redact(text).text == text


def test_imports_and_export_hold_none_of_them(tmp_path, mem, store_path):
    """Real mem processes: each text remembered and imported as a Bash tool
    result of a Claude Code transcript and as a shell output of a Codex
    rollout; ``mem export`` (every object of the store) holds no secret."""
    texts = {case: text for case, (text, _s, _k, _r) in CASES.items()}
    gets, session = remember_and_import(mem, tmp_path, "red22", "22222222-1111-2222-3333-444444444444", texts)
    rollout = codex_rollout(tmp_path / "rollout-2026-03-02T10-00-00-T-red22.jsonl", list(texts.values()), "T-red22")
    mem("import", "codex", str(rollout))
    exported = mem("export").stdout
    assert exported.count("[REDACTED:") >= 3 * len(CASES), exported[:2000]
    for case, (_text, secrets, _k, _r) in CASES.items():
        for s in secrets:
            assert s not in gets[case], f"{case}: {s} remembered in clear"
            assert s not in session, f"{case}: {s} imported in clear"
            assert s not in exported, f"{case}: {s} in mem export"
