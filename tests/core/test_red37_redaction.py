"""red37: secrets stored in the clear (test36b T10, T12; test36 T3's rest).

test36b T10: a verb of change before a password's label with a quoted value of words ('we set the db password to
"blue whale 42"'), before a named account's 'pass' or 'pwd' ('we changed the admin pass to X', 'we reset the pwd to
X'), and before 'passcode' ('we set the passcode to 4471'); T12: 'the pwd is "two words here"'.  Each was kept.
The look-alikes (test36b T13's ordinary coding text, the shell's working folder) are kept."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted

#: (text, secret, kept)
SECRETS = [
    ('we set the db password to "blue whale 42"', "blue whale 42", "we set the db password to"),
    ("we set the db password to 'blue whale 43'", "blue whale 43", "we set the db password to"),
    ("we changed the admin pass to Wq8-admin-5", "Wq8-admin-5", "we changed the admin pass to"),
    ("we set the wifi pass to Wq8-admin-6", "Wq8-admin-6", "we set the wifi pass to"),
    ("we reset the pwd to Wq8-admin-7", "Wq8-admin-7", "we reset the pwd to"),
    ("we set the passcode to 4471", "4471", "we set the passcode to"),
    ("I changed my card pin to 4471 yesterday", "4471", "yesterday"),
    ('we rotated the root password from Old-horse-1 to "new horse 2"', "new horse 2", "we rotated the root"),
    ("we changed the vpn pass from Wq8-old-1 to Wq8-new-2", "Wq8-new-2", "we changed the vpn pass from"),
    ('the pwd is "two words here"', "two words here", "the pwd is"),
    ("Remember that we set the db password to \"blue whale 42\".", "blue whale 42", "Remember that"),
]
#: kept as written: a compiler's or a test's pass, the shell's working folder, prose, a board's pin
KEPT = [
    "I changed the pwd to /tmp/build2",
    "then we set the pwd to ~/src/app",
    'I set the pwd to "$HOME/src"',
    'the pwd is "/home/ana"',
    "set the pass to -O2",
    "we changed the pass to lint-and-typecheck",
    "we changed the pass to 'inline'",
    "changed the pass to phase-2",
    "we updated the pass to v2.1.0",
    'set the pass to "dead code elimination"',
    "we set the pass to the compiler",
    "reset the password to the default",
    "we changed the password to something stronger",
    'set the password to "required"',
    'we set the password to "${DB_PASS}"',
    "set the pin to 13",
    "set the led pin to 17",
    "set the pin to GPIO17",
    "set the passcode to <your code>",
    # test36b T13: ordinary coding text after 'pass'
    "the pass for this test is flaky-ci-run",
    "the pass for the second stage is lint-and-typecheck",
    "the pass for the compiler is -O2",
    "the pass for bob is valid until friday",
    "the bus pass for March is 45 dollars",
    "my pass is expired",
    "the pwd is the current directory",
]


@pytest.mark.parametrize("text,secret,kept", SECRETS)
def test_the_wordings_are_redacted(text, secret, kept):
    assert_redacted(text, text, [secret], [kept])


@pytest.mark.parametrize("text", KEPT)
def test_the_look_alikes_are_kept(text):
    assert redact(text).text == text
