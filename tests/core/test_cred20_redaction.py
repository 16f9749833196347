"""cred20: credentials in config formats that were stored in the clear, each
reproduced first with a real ``mem`` store (``mem remember K "<text>"`` and a
Bash tool result in an imported Claude Code transcript, then ``mem search``
for a piece of the secret): base64 PEM private keys (a kubeconfig's
``client-key-data``), Kubernetes Secret entries, a labelled value longer than
4,096 characters, every keytool / jarsigner password option, Terraform
variable defaults, fish ``set``, PuTTY ``Private-Lines``.  Every value is
fake (random, shaped to the documented format)."""

from __future__ import annotations

import base64
import json
import random
import string

import pytest

from objstore.core.redact import redact
from tests.hooks._util import bash_results

rnd = random.Random(2020)
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"


def r(n: int, alphabet: str = ALNUM) -> str:
    return "".join(rnd.choice(alphabet) for _ in range(n))


def pem(label: str, nbytes: int = 600, width: int = 64) -> str:
    body = base64.b64encode(bytes(rnd.randrange(256) for _ in range(nbytes))).decode()
    lines = [body[i:i + width] for i in range(0, len(body), width)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----\n"


def b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def wrapped(s: str, width: int) -> str:
    return "\n".join(s[i:i + width] for i in range(0, len(s), width))


KEYS = {label: b64(pem(label)) for label in ("RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY",
                                             "PRIVATE KEY", "ENCRYPTED PRIVATE KEY")}
CERT = b64(pem("CERTIFICATE"))
DOCKERCFG = b64('{"auths":{"registry.example.com":{"auth":"' + r(24) + '"}}}')
LONG = "Zq7" + r(4997)
KT = {f: "Kt9" + r(9) for f in ("storepass", "keypass", "srcstorepass", "deststorepass", "srckeypass",
                                "destkeypass", "new")}
JAR_STORE, JAR_KEY, COLON = "Jr9" + r(9), "Jk9" + r(9), "Co9" + r(9)
TF_ML, TF_1L, TFVARS = "Tf9" + r(11), "Tf8" + r(11), "Tv9" + r(11)
FISH = {"set -x API_KEY": "Fx9" + r(20), "set -gx GITHUB_TOKEN": "ghx" + r(20), "set -Ux DB_PASSWORD": "Fu9" + r(9),
        "set API_KEY": "Fb9" + r(20), "set --export --global SLACK_TOKEN": "Fl9" + r(20)}
PPK_LINES = [r(64, B64) for _ in range(3)] + [r(20, B64) + "=="]

KUBECONFIG = (f"users:\n- name: admin\n  user:\n    client-certificate-data: {CERT}\n"
              f"    client-key-data: {KEYS['RSA PRIVATE KEY']}\n")
SECRET = (f"apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: {CERT}\n"
          f"  tls.key: {KEYS['EC PRIVATE KEY']}\n  ssh-privatekey: {KEYS['OPENSSH PRIVATE KEY']}\n"
          f"  .dockerconfigjson: {DOCKERCFG}\n  app.key: {b64('Zq7' + r(21))}\n  username: YWRtaW4=\n"
          f"stringData:\n  server.key: Zq7!{r(20)}\n  greeting.key: Hello\n")
TERRAFORM = (f'variable "db_password" {{\n  type      = string\n  sensitive = true\n  default   = "{TF_ML}"\n}}\n'
             f'variable "api_token" {{ default = "{TF_1L}" }}\nvariable "region" {{ default = "eu-west-1" }}\n'
             f'variable "token_ttl" {{ default = "3600s" }}\n')
TFVARS_TEXT = f'db_password = "{TFVARS}"\nregion = "eu-west-1"\n'
KEYTOOL = ("keytool -importkeystore " + " ".join(f"-{f} {v}" for f, v in KT.items())
           + " -storepass:env KS_PW -keypass:file /run/kp\n"
           f"jarsigner -keystore b.jks -storepass {JAR_STORE} -keypass {JAR_KEY} app.jar alias\n"
           f"keytool -list -storepass:{COLON}\n")
FISH_TEXT = "".join(f"{k} {v}\n" for k, v in FISH.items()) + "set -gx EDITOR vim\nset -x API_KEY $OTHER_KEY\n"
PPK = ("PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: rsa-key-fake\nPublic-Lines: 1\n"
       "AAAAB3NzaC1yc2EAAAADAQABAAAAgQ\nPrivate-Lines: 4\n" + "\n".join(PPK_LINES)
       + "\nPrivate-MAC: " + r(64, "0123456789abcdef") + "\n")

#: each case: its text and the secrets that must not survive it (all of each)
CASES = {
    "base64-pem": (KUBECONFIG + "".join(f"k{i}: {v}\n" for i, v in enumerate(KEYS.values()))
                   + "wrapped:\n" + wrapped(KEYS["RSA PRIVATE KEY"], 76) + "\nopenssl:\n"
                   + wrapped(KEYS["PRIVATE KEY"], 64) + "\n", list(KEYS.values())),
    "k8s-secret": (SECRET, [KEYS["EC PRIVATE KEY"], KEYS["OPENSSH PRIVATE KEY"], DOCKERCFG]),
    "long-label": (f"password: {LONG}\nAPI_KEY={LONG}\n", [LONG[:4000], LONG[-900:]]),
    "keytool": (KEYTOOL, [*KT.values(), JAR_STORE, JAR_KEY, COLON]),
    "terraform": (TERRAFORM + TFVARS_TEXT, [TF_ML, TF_1L, TFVARS]),
    "fish": (FISH_TEXT, list(FISH.values())),
    "putty": (PPK, PPK_LINES),
}
#: what each case keeps as typed (public or no credential)
KEPT = {
    "base64-pem": [CERT],
    "k8s-secret": [CERT, "username: YWRtaW4=", "greeting.key: Hello"],
    "long-label": [],
    "keytool": ["-storepass:env KS_PW", "-keypass:file /run/kp"],
    "terraform": ['default = "eu-west-1"', 'default = "3600s"', 'region = "eu-west-1"'],
    "fish": ["set -gx EDITOR vim", "set -x API_KEY $OTHER_KEY"],
    "putty": ["Private-Lines: 4", "Private-MAC: ", "AAAAB3NzaC1yc2EAAAADAQABAAAAgQ"],
}
RULE = {"base64-pem": "private-key-base64", "k8s-secret": "k8s-secret", "long-label": "generic-secret",
        "keytool": "cli-password", "terraform": "terraform-variable", "fish": "fish-variable",
        "putty": "putty-private-key"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_format_is_redacted_and_its_public_parts_kept(case):
    text, secrets = CASES[case]
    res = redact(text)
    for s in secrets:
        assert s not in res.text, f"{case}: {s[:24]}… survived\n{res.text[:3000]}"
    for k in KEPT[case]:
        assert k in res.text, f"{case}: {k!r} was taken\n{res.text[:3000]}"
    assert RULE[case] in {h.rule for h in res.hits}
    assert redact(res.text).text == res.text
    # also JSON-escaped, as a transcript line holds it
    esc = redact(json.dumps(text)).text
    for s in secrets:
        assert s not in esc and json.dumps(s)[1:-1] not in esc, f"{case} (escaped): {s[:24]}… survived"


def test_a_pem_in_base64_after_a_colon_is_redacted_whole_and_a_certificate_is_not():
    res = redact(KUBECONFIG)
    assert "client-key-data: [REDACTED:private-key-base64]\n" in res.text
    assert f"client-certificate-data: {CERT}\n" in res.text


def test_putty_private_lines_become_one_marker_on_their_own_line():
    assert "Private-Lines: 4\n[REDACTED:putty-private-key]\nPrivate-MAC: " in redact(PPK).text


def test_a_long_labelled_value_is_redacted_whole():
    for head in ("password: ", "API_KEY=", "token = "):
        res = redact(f"{head}{LONG}\nnext line")
        assert res.text == f"{head}[REDACTED:generic-secret]\nnext line", head
    # prose of any length after a label is not a value
    prose = "password: " + "see below " * 600
    assert redact(prose).text == prose


def test_names_that_say_no_credential_keep_their_values():
    for t in ("set -x TOKEN_COUNT 5", "set the token value", 'variable "api_key" {\n  type = string\n}\n',
              '"i18n.key": "WelcomeMessage"', "cache.key: user_profile", "jarsigner -verify app.jar",
              "keytool -storepass $KS_PASS -keypass ${KEY_PASS}", "Private-Lines: 4 in the ppk file",
              "set -x API_KEY changeme",
              # the bench corpus's prose (bench/redact_hits.py): a bare set of a lower-case name is no fish
              "That entry was added in 928d0e2 to set token layout reset verify_handler comment."):
        assert redact(t).text == t, t


def test_mem_remember_and_capture_store_none_of_them(tmp_path, mem, store_path):
    """The reproduction with real mem processes: each text remembered, and all
    of them as a Bash tool result of an imported Claude Code transcript; no
    file of the store holds a secret, and ``mem search`` for a piece of one
    finds nothing that holds it."""
    for case, (text, _secrets) in CASES.items():
        mem("remember", f"project/cred20/{case}", text)
    sid = "20202020-1111-2222-3333-444444444444"
    t = tmp_path / f"{sid}.jsonl"
    t.write_bytes(bash_results(sid, [(case, text) for case, (text, _s) in sorted(CASES.items())]))
    mem("import", "claude-code", str(t))
    session = mem("show", sid[:8]).stdout
    for case, (_text, secrets) in CASES.items():
        got = mem("get", f"project/cred20/{case}").stdout
        for s in secrets:
            piece = s[3:40] if case != "long-label" else LONG[100:140]
            assert piece not in got, f"{case}: remembered in clear"
            assert piece not in session, f"{case}: captured in clear"
            if len(s) <= 64:               # a whole token: what a search for it would hit
                out = mem("search", s, "--json", exit_code=None).stdout
                assert s not in out, f"{case}: mem search {s} found it"
    assert mem("get", "project/cred20/fish").stdout.count("[REDACTED:fish-variable]") == len(FISH)
