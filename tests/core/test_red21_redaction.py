"""red21: credentials in password-file and registry formats that were stored
in the clear on main, each with its format's source: a password label whose
value follows one blank line, ``.netrc`` entries (``default``, ``password``
before ``login``, a quoted password, an entry over several lines), a libpq
password-file line with no ``.pgpass`` named near it (and its ``\\:``
escapes), and the ``auth`` of a Docker ``config.json`` / Kubernetes
``.dockerconfigjson``.  Every value is fake (random, shaped to the format)."""

from __future__ import annotations

import base64
import json
import random
import string

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted, remember_and_import

rnd = random.Random(2121)
ALNUM = string.ascii_letters + string.digits


def r(n: int) -> str:
    return "".join(rnd.choice(ALNUM) for _ in range(n))


def b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


BLANK = {"Password:": "hunter2-" + r(4), "Your password is:": "Plum#" + r(6), "api_key:": "Zq7" + r(16),
         "secret =": "Kx9" + r(6)}
#: words: no shape rule takes them (a random value is the password-phrase rule's anyway), the entry's grammar does
NETRC = {"default": "bluefalcon", "first": "greenotter", "split": "redmaple", "quoted": "blue otter",
         "account": "silverfox", "letters": "letmein"}
PG = {k: "Pg" + str(i) + r(8) for i, k in enumerate(("host", "star", "ip", "escaped", "json"))}
DK = {k: "Dk" + str(i) + r(8) for i, k in enumerate(("k8s", "k8s-multi", "config"))}

DOCKER_K8S = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: regcred\ntype: kubernetes.io/dockerconfigjson\n"
              "stringData:\n  .dockerconfigjson: '{\"auths\":{\"registry.example.com\":{\"username\":\"bob\","
              f"\"auth\":\"{b64('bob:' + DK['k8s'])}\"}}}}}}'\n")
DOCKER_K8S_MULTI = ("stringData:\n  .dockerconfigjson: |\n    {\n      \"auths\": {\n        \"ghcr.io\": {\n"
                    f"          \"auth\": \"{b64('ci-bot:' + DK['k8s-multi'])}\"\n        }}\n      }}\n    }}\n")
DOCKER_CONFIG = ('{\n\t"auths": {\n\t\t"https://index.docker.io/v1/": {\n\t\t\t"auth": "'
                 + b64("bob:" + DK["config"]) + '"\n\t\t}\n\t},\n\t"credsStore": "desktop"\n}\n')

#: each case: its text and the secrets that must not survive it
CASES = {
    "blank-line": ("".join(f"{k}\n\n{v}\n\n---\n" for k, v in BLANK.items()), list(BLANK.values())),
    "netrc": (f"default login anonymous password {NETRC['default']}\n"
              f"machine api.example.com password {NETRC['first']} login bob\n"
              # CRLF lines, a blank one, indented 12: 20 separator characters JSON-escaped
              f"machine\r\n\r\n            git.example.com\r\n\r\n            login carol\r\n\r\n"
              f"            password {NETRC['split']}\r\n"
              f'machine files.example.com login "dave smith" password "{NETRC["quoted"]}"\n'
              f"machine ftp.example.com account acct1 password {NETRC['account']} account acct2 login erin\n"
              f"machine old.example.com login frank password {NETRC['letters']}\n",
              list(NETRC.values())),
    "pgpass": (f"$ cat $PGPASSFILE\ndb.example.com:5432:app:alice:{PG['host']}\n*:*:*:postgres:{PG['star']}\n"
               f"  10.0.0.5:6432:reports:bob@srv:{PG['ip']}\n"
               f"localhost:5432:*:carol:{PG['escaped'][:4]}\\:{PG['escaped'][4:]}\n",
               [PG["host"], PG["star"], PG["ip"], PG["escaped"][4:]]),
    "docker": (DOCKER_K8S + DOCKER_K8S_MULTI + DOCKER_CONFIG,
               [b64("bob:" + DK["k8s"]), b64("ci-bot:" + DK["k8s-multi"]), b64("bob:" + DK["config"])]),
}
KEPT = {
    "blank-line": ["Password:\n\n", "api_key:\n\n"],
    "netrc": ["default login anonymous password ", "machine api.example.com password ", "login bob",
              'login "dave smith"'],
    "pgpass": ["db.example.com:5432:app:alice:", "*:*:*:postgres:", "10.0.0.5:6432:reports:bob@srv:",
               "localhost:5432:*:carol:"],
    "docker": ['"credsStore": "desktop"', '"username":"bob"', "registry.example.com"],
}
RULE = {"blank-line": "generic-secret", "netrc": "netrc-password", "pgpass": "pgpass-password",
        "docker": "docker-auth"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_format_is_redacted_and_its_public_parts_kept(case):
    text, secrets = CASES[case]
    assert_redacted(case, text, secrets, KEPT[case], RULE[case])


def test_a_pgpass_line_as_a_whole_json_string_value():
    line_ = f"db.example.com:5432:app:alice:{PG['json']}"
    out = redact(json.dumps({"type": "tool_result", "content": line_})).text
    assert PG["json"] not in out and "db.example.com:5432:app:alice:[REDACTED:pgpass-password]" in out


def test_a_quoted_netrc_password_is_redacted_whole_with_its_quotes_kept():
    assert (redact('machine h.example.com login bob password "Nt8 se\\"cr3t"\n').text
            == 'machine h.example.com login bob password "[REDACTED:netrc-password]"\n')


@pytest.mark.parametrize("text", [
    # the blank-line reader: one blank line at most, and the value's shape still judged
    "Password:\n\n\nhunter2-Xk9q\n", "Password:\n\n## Notes\n", "Password:\n\nEnter it below.\n",
    "Password:\n\n- item one\n", "password:\n\n  type: string\n", "token:\n\nsee the docs\n",
    "API_KEY=\\\n\nZq7mm9xQa81kLpT2vN4\n",
    # .netrc: no login in the entry, prose with its words
    "machine h.example.com password sunshine\n", "the machine learning password reset flow",
    "by default login screens ask the password twice", "machine h login bob password $NETRC_PW\n",
    # a password-file shape that is not one: a time, a grep hit, an IPv6 address, prose before it,
    # a password of digits, a placeholder, six fields
    "12:30:45:foo:barbaz\n", "fe80:1:2:3:abcd\n", "see db.example.com:5432:app:alice:hunter2x\n",
    "db:5432:app:alice:12345678\n", "db:5432:app:alice:changeme\n", "db:5432:app:alice:pw:extra\n",
    "app.py:42:value:other:thing more\n", "user:x:1000:1000:Alice:/home/alice:/bin/bash\n",
    # docker: an auth that is no base64 'user:pass', a key that only ends in 'auth'
    '{"auths":{"r.example.com":{"auth":""}}}', '{"auth":"basic-token"}', '{"auth":"dXNlcm5hbWU="}',
    '{"oauth":"' + b64("bob:hunter2") + '"}',
])
def test_look_alikes_are_kept(text):
    assert redact(text).text == text


def test_mem_remember_and_capture_store_none_of_them(tmp_path, mem, store_path):
    """With real mem processes: each text remembered, and each as a Bash tool
    result of an imported Claude Code transcript; neither ``mem get`` nor the
    imported session holds a secret, and ``mem search`` for one finds none."""
    gets, session = remember_and_import(mem, tmp_path, "red21", "21212121-1111-2222-3333-444444444444",
                                        {case: text for case, (text, _s) in CASES.items()})
    for case, (_text, secrets) in CASES.items():
        for s in secrets:
            assert s not in gets[case], f"{case}: {s} remembered in clear"
            assert s not in session, f"{case}: {s} captured in clear"
            out = mem("search", s, "--json", exit_code=None).stdout
            assert s not in out, f"{case}: mem search {s} found it"
