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




# ---- test36 T3's rest: a Mailchimp key, a PKCS#8 body without its BEGIN line, terraform output -json ----
MAILCHIMP = "8589eaff309cad68386d070c415ed7e7-us21"
#: a PKCS#8 RSA body's first lines (fake bytes after the DER head), wrapped at 64 as PEM is, and one line
PKCS8_LINES = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
               "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu",
               "NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ"]
EC_PKCS8 = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgVcB/UNPxalR9zDYAjQIfjojUDiQuGnSJrFEEzZPT/92h"
ED25519_PKCS8 = "MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF"
TF_JSON = '{"db_password": {"sensitive": true, "type": "string", "value": "Ed3rFv5tGb7y"}}'
TF_PRETTY = '{\n  "db_password": {\n    "sensitive": true,\n    "type": "string",\n    "value": "Ed3rFv5tGb7y"\n  }\n}'
TOKENS = [  # (text, secrets, kept, rule)
    (f"the mailchimp key is {MAILCHIMP} for the newsletter", [MAILCHIMP[:32]], ["for the newsletter"], "mailchimp-key"),
    (f"MAILCHIMP_API_KEY={MAILCHIMP}", [MAILCHIMP[:32]], ["MAILCHIMP_API_KEY="], None),
    ("key:\n" + "\n".join(PKCS8_LINES) + "\nThen run it", [ln[8:40] for ln in PKCS8_LINES], ["key:\n", "\nThen run it"],
     "private-key"),
    ("".join(PKCS8_LINES) + " is the key", [PKCS8_LINES[1][:40]], [" is the key"], "private-key"),
    (f"ec key {EC_PKCS8} done", [EC_PKCS8[40:]], ["ec key ", " done"], "private-key"),
    (f"ed key {ED25519_PKCS8} done", [ED25519_PKCS8[22:]], ["ed key ", " done"], "private-key"),
    (f"$ terraform output -json\n{TF_JSON}", ["Ed3rFv5tGb7y"], ['"sensitive": true', '"value": "'], "terraform-output"),
    (TF_PRETTY, ["Ed3rFv5tGb7y"], ['"type": "string"'], "terraform-output"),
]
TOKENS_KEPT = [
    "git checkout feature-us21",
    "deadbeefdeadbeefdeadbeefdeadbeef-use-this",
    "see the us-east-1 region, not deadbeef-us1",
    # a certificate's body (public) starts MII too
    "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTESMBAGA1UEChMJQmFsdGltb3Jl",
    '{"vpc_id": {"sensitive": false, "type": "string", "value": "vpc-0a1b2c3d"}}',
    '"sensitive": true',
]


@pytest.mark.parametrize("text,secrets,kept,rule", [(t, [s], [k], None) for t, s, k in SECRETS] + TOKENS)
def test_the_wordings_and_tokens_are_redacted(text, secrets, kept, rule):
    assert_redacted(text, text, secrets, kept, rule)


@pytest.mark.parametrize("text", KEPT + TOKENS_KEPT)
def test_their_look_alikes_are_kept(text):
    assert redact(text).text == text
