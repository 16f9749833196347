"""red27c (test27 V30): a password holding a quote, apostrophe, backtick,
backslash or one of ``; | < > ( ) { } [ ] , /`` after its label is redacted
whole (the label, ``KEY=`` and prose rules stopped at the symbol and kept the
value, or its tail), also JSON-escaped in a tool call; and curl's
``-u user:pass`` takes an escaped quote inside the password.  Code and prose
after a password label stay.  Every value is fake."""

from __future__ import annotations

import json

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted, check_remembered_and_imported

#: case: (text, the secret in it, what must stay)
CASES = {
    "dquote": ('Password: Zq7"mm2x!', 'Zq7"mm2x!', "Password: "),
    "squote": ("Password: Zq7'mm2x!", "Zq7'mm2x!", "Password: "),
    "backtick": ("Password: Zq7`mm2x!", "Zq7`mm2x!", "Password: "),
    "backslash": ("Password: Zq7\\mm2x!", "Zq7\\mm2x!", "Password: "),
    "db-pass": ('DB_PASS=Zq7"mm2x!', 'Zq7"mm2x!', "DB_PASS="),
    "passwd": ('passwd=Zq7"mm2x', 'Zq7"mm2x', "passwd="),
    "prose": ('the password is Zq7"mm2x! ok', 'Zq7"mm2x!', "the password is "),
    "parens": ("Password: Hx8(kq)Lm3", "Hx8(kq)Lm3", "Password: "),
    "comma": ("Password: Tk9,xm2!", "Tk9,xm2!", "Password: "),
    "semicolon-tail": ("Password: Zq7mm2x;9", "Zq7mm2x;9", "Password: "),
    **{f"inner-{i}": (f"Password: Zq7{c}mm2x!", f"Zq7{c}mm2x!", "Password: ")
       for i, c in enumerate(";|<>(){}[],/")},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_symbol_password_redacted_whole(case):
    text, secret, kept = CASES[case]
    out = assert_redacted(case, text, [secret, secret[3:]], [kept], "generic-secret")
    assert not out.endswith(secret[-2:]), f"{case}: the tail stayed: {out!r}"


def test_json_escaped_tool_call_keeps_no_tail():
    """An agent's Bash tool call stored JSON-escaped: the escaped quote inside the
    password is part of it; the quotes that close the shell and JSON strings stay."""
    call = json.dumps({"command": 'echo "Password: Zq7\\"mm2x!"'})
    out = redact(call).text
    assert "mm2x" not in out and "Zq7" not in out, out
    assert out.startswith('{"command": "echo \\"Password: [REDACTED:') and out.endswith('\\""}'), out
    for raw in ('curl -u admin:Zq7\\"mm2x https://x', json.dumps({"command": 'curl -u admin:Zq7\\"mm2x https://x'})):
        out = redact(raw).text
        assert "mm2x" not in out and "Zq7" not in out and "https://x" in out, out
        assert "[REDACTED:cli-password]" in out, out


def test_quoted_curl_user_still_ends_at_its_quote():
    out = redact(json.dumps({"command": 'curl -u "admin:Zq7mm2x!" https://x'})).text
    assert out == json.dumps({"command": 'curl -u "admin:[REDACTED:cli-password]" https://x'}), out


#: code and prose after a password label: kept as written
KEPT = [
    "password=get_password(user)", 'pwd=os.environ["PW"]', "password = input(prompt)",
    "password=request.form['password']", "DB_PASS=${DB_PASS}", "Password: <your-password>",
    "password: /etc/app/secret.txt", "password: read/write", "password: yes,no",
    "passwd=f(a,b)", "password: https://vault.example/x", "Password: (see below)", "Password::make($x)",
]


@pytest.mark.parametrize("text", KEPT)
def test_code_after_a_label_is_kept(text):
    assert redact(text).text == text


def test_mem_remember_get_and_import(tmp_path, mem):
    """Real mem processes: remembered and imported as a Bash result, the whole
    password is gone and the label stays; a line of code comes back as written."""
    check_remembered_and_imported(mem, tmp_path, "red27c", "27c27c27-aaaa-4bbb-8ccc-27c27c27c27c", CASES,
                                  ("dquote", "backslash", "db-pass", "prose", "parens", "semicolon-tail"),
                                  "password=get_password(user)")


#: test27 V26: vendor tokens known by their documented prefix (fake values of the documented shapes)
VENDOR = {
    "figma-token": "figd_" + "aB3_" * 10,
    "postman-key": "PMAK-" + "a1" * 12 + "-" + "b2" * 17,
    "sentry-token": "sntrys_eyJpYXQiOjE2ODQ5MDI0NzguMTk0NjU2LCJ1cmwiOiJodHRwczovL3NlbnRyeS5pbyJ9_Zq7mm2xAb",
    "grafana-token": "glsa_" + "Ab1" * 10 + "Zq_" + "deadbeef",
    "newrelic-key": "NRAK-A1B2C3D4E5F6G7H8I9J0K1L2M3N",
    "netlify-token": "nfp_" + "Ab1x" * 9,
    "terraform-cloud-token": "abcdefgh123456.atlasv1." + "Ab1_" * 16,
    "flyio-token": "fo1_" + "Ab1-" * 10 + "xyz",
    "render-key": "rnd_" + "Ab1x" * 8,
    "jfrog-key": "AKCp8" + "Ab1" * 22 + "xy",
}


@pytest.mark.parametrize("rule", sorted(VENDOR))
def test_vendor_token_without_a_label(rule):
    token = VENDOR[rule]
    assert_redacted(rule, f"deploy with {token} now", [token, token[8:]], ["deploy with ", " now"], rule)


@pytest.mark.parametrize("text", ["nfp_ok", "figd_thing", "rnd_module_name", "AKCpython", "glc_config",
                                  "PMAK-123", "import nfp_utils", "fo1_short"])
def test_vendor_prefix_look_alikes_are_kept(text):
    assert redact(text).text == text


def test_a_cut_mark_after_the_password_is_never_read_into():
    """The CI of the merged batch: the symbol rule read ``…[cut 9 chars]``,
    the importers' cut mark, as part of the password and left ``9 chars]``.
    The token ends at ``…``; the mark stays whole."""
    from objstore.core.redact import redact
    out = redact('x Password: Zq7"mm2x!…[cut 9 chars]').text
    assert out.endswith("…[cut 9 chars]") and "mm2x" not in out, out
    out = redact("a" * 40 + " DB_PASSWORD=Zq7mm9xQ!Lark#552…[cut 9 chars]").text
    assert out.endswith("…[cut 9 chars]"), out
