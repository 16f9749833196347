"""test36 T3: a password said with ``pwd is``, ``pass for X is`` or
``passcode N`` followed by more words was stored in the clear, while their
near twins (``root pwd: X``, ``vpn pass = X``, ``passcode is N``) were
redacted.  test36 T12: a URL password holding an unencoded ``@`` was
redacted up to its first ``@`` only."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted

#: (text, secret, kept)
SECRETS = [
    ("the mysql root pwd is Gz7#kq!2", "Gz7#kq!2", "the mysql root pwd is"),
    ("my pwd is Gz7kq2xa, keep it safe", "Gz7kq2xa", "keep it safe"),
    ("the pass for the vpn is Xk29!mLq", "Xk29!mLq", "the pass for the vpn is"),
    ("use passcode 884213 for the door", "884213", "for the door"),
    ("Passcode 55120943 opens the side gate", "55120943", "opens the side gate"),
    ("DATABASE_URL=postgres://u:Qw3@rT5y!@db.internal:5432/app", "rT5y!", "@db.internal:5432/app"),
    ("mongodb+srv://admin:Pa@ss#Word9@cluster0.mongodb.net/test", "ss#Word9", "@cluster0.mongodb.net/test"),
    ("psql 'postgresql://app:Kq9@mZ2w@db/app'", "mZ2w", "@db/app'"),
    # test36b T1: a bare 'pass' before a token with a digit or symbol, 'pass phrase'
    ("the pass is Xk29!mLq", "Xk29!mLq", "the pass is"),
    ("pass is Qw8rTy2u", "Qw8rTy2u", "pass is"),
    ("the pass phrase is Zx9!kLmq", "Zx9!kLmq", "the pass phrase is"),
]
#: kept as written: the shell's working folder, a pass that is no password, digits after other words
KEPT = [
    "the pwd is /home/ana/code",
    "current pwd is ~/src/app",
    "pwd is ./build/out2",
    "pass for now is fine",
    "the boarding pass for flight LH123 is printed",
    "the pass for the concert is VIP",
    "the pin 1234 of the header",
    "passcode 1234abc",
    "http://host:8080#a@b",
    # test36b T13: ordinary coding text after 'pass'
    "the pass for this test is flaky-ci-run",
    "the pass rate is 95%",
    "my pass is fine",
    "mail me at x@y.org about http://host/a?u=x@y.com",
]


@pytest.mark.parametrize("text,secret,kept", SECRETS)
def test_the_wordings_are_redacted(text, secret, kept):
    assert_redacted(text, text, [secret], [kept])


@pytest.mark.parametrize("text", KEPT)
def test_the_look_alikes_are_kept(text):
    assert redact(text).text == text
