"""red36: test35b T10, basic-auth credentials in the common command-line
spellings: ``--basic-auth admin:PW`` (a blank, not ``=``), HTTPie's and xh's
``-a``/``--auth admin:PW``, ``BASIC_AUTH admin:PW`` (a blank after the
name), and a quoted ``user:password`` whose password holds a blank (its
second half was kept).  curl ``-u``/``--user``, ``wget --http-password`` and a
URL's ``user:PW@`` are checked as regressions."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted

PW = "S3cretPass99"

#: (text, secrets, kept)
SECRETS = [
    (f"mytool --basic-auth admin:{PW} --url x", [PW], ["--basic-auth admin:", "--url x"]),
    (f'mytool --basic-auth "admin:{PW}"', [PW], ['--basic-auth "admin:']),
    (f"mytool --proxy-auth bob:{PW}", [PW], ["--proxy-auth bob:"]),
    (f"http --auth admin:{PW} GET https://api.example.org", [PW], ["--auth admin:", "GET https://api.example.org"]),
    (f"http -a admin:{PW} GET https://api.example.org", [PW], ["-a admin:"]),
    (f"http --auth=admin:{PW} GET x", [PW], ["--auth=admin:"]),
    (f"https -a 'admin:{PW}' example.org/x", [PW], ["-a 'admin:"]),
    (f"cd api && xh -a admin:{PW} :8080/health", [PW], ["xh -a admin:"]),
    (f"BASIC_AUTH admin:{PW}", [PW], ["BASIC_AUTH admin:"]),
    ('export BASIC_AUTH="admin:S3cret Pass99"', ["S3cret", "Pass99"], ['export BASIC_AUTH="admin:', '"']),
    ("PROXY_AUTH='bob:purple monkey 42'", ["purple", "monkey 42"], ["PROXY_AUTH='bob:"]),
    # regressions (held on the base)
    (f"curl -u admin:{PW} https://x", [PW], ["curl -u admin:"]),
    (f"curl --user admin:{PW} https://x", [PW], ["curl --user admin:"]),
    (f"wget --http-password {PW} https://x", [PW], ["wget --http-password "]),
    (f"git clone https://user:{PW}@host/repo.git", [PW], ["https://user:", "@host/repo.git"]),
    (f"mytool --basic-auth=admin:{PW}", [PW], ["--basic-auth=admin:"]),
    (f"BASIC_AUTH=admin:{PW}", [PW], ["BASIC_AUTH=admin:"]),
]

#: kept as written: no password after the option or the name, a reference, a port, a URL, a word "http" in prose
KEPT = [
    "BASIC_AUTH admin:$BASIC_PASS",
    "PROXY_AUTH proxy.local:3128",
    "KEYCLOAK_AUTH https://auth.example.com/realms/acme",
    "http -a admin: GET https://api.example.org",
    "http --auth-type bearer GET https://api.example.org",
    "see https://example.org -a note: it works",
    "the http client reads -a user:<password> from the docs",
    'export BASIC_AUTH="admin:$PASS"',
    "curl -u admin: https://x",
]


@pytest.mark.parametrize("text,secrets,kept", SECRETS)
def test_basic_auth_spellings_are_redacted(text, secrets, kept):
    assert_redacted(text, text, secrets, kept)


@pytest.mark.parametrize("text", KEPT)
def test_what_holds_no_password_is_kept(text):
    assert redact(text).text == text
