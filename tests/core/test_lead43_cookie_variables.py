"""fresh42 F19: a session cookie in a setting or variable (``COOKIE=sessionid=…``, ``SESSION_COOKIE=…``,
``export COOKIES="sid=…"``, YAML/JSON ``session_cookie:``) was stored as typed while the ``Cookie:`` header was
redacted.  Now its random value is withheld (``http-cookie``), the cookie's name kept; settings of cookies that are
no credential (a domain, a flag, a name) are kept.  Real ``mem remember``/``get`` and ``mem import``; every secret
is fake."""

from __future__ import annotations

import pytest

from tests.core._redaction_util import assert_kept, assert_redacted, check_remembered_and_imported

SID = "8f14e45fceea167a5a36dedd4bea2543"       # the finding's value: 32 random hex
#: case -> (what stays before the secret, the secret, what stays after it)
CASES = {
    "cookie-pair": ("COOKIE=sessionid=", SID, ""),
    "session-cookie": ("SESSION_COOKIE=", SID, ""),
    "export-cookies": ('export COOKIES="sid=', SID, '"'),
    "yaml": ("session_cookie: ", SID, ""),
    "json": ('{"auth-cookie": "sid=', SID, '"}'),
    # test43 T2: after another pair, camelCase, a _COOKIE_VALUE name, blanks around the signs
    "second-pair": ('COOKIE="theme=dark; sessionid=', SID, '"'),
    "camel-case": ('{"sessionCookie": "', SID, '"}'),
    "cookie-value": ("AUTH_COOKIE_VALUE=", SID, ""),
    "spaced": ("COOKIE = sessionid : ", SID, ""),
}
KEPT = ['COOKIE="theme=dark; lang=en"', "CSRF_COOKIE_NAME=csrftoken", "COOKIE_JAR=/tmp/cookies.txt",
        "fortunecookie: tasty and sweet today", "COOKIE_DOMAIN=example.com", "COOKIE_SECURE=true", "SESSION_COOKIE_NAME=sessionid", "COOKIE_MAX_AGE=86400",
        "the cookie = chocolatechipcookies", "cookie_name=sessionid_abcdefghijklmnop"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_cookie_in_a_variable_is_withheld(case):
    head, secret, tail = CASES[case]
    assert_redacted(case, head + secret + tail, [secret], kept=[head, tail], rule="http-cookie")


@pytest.mark.parametrize("text", KEPT)
def test_cookie_settings_that_are_no_credential_are_kept(text):
    assert_kept(text)


def test_no_cookie_reaches_a_store_by_remember_or_import(tmp_path, mem, store_path):
    one = {c: (h + s + t, s, h) for c, (h, s, t) in CASES.items()}   # name -> (text, secret, kept part)
    check_remembered_and_imported(mem, tmp_path, "lead43", "43434343-aaaa-4aaa-8aaa-434343434343", one,
                                  sorted(one), "COOKIE_DOMAIN=example.com", store=store_path)
