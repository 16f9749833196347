"""v4r23 (tester findings V4, V5): credential shapes stored in the clear on
batch, a flag that redaction took with its value, and the look-alikes that
must stay.  V4: Laravel's ``Application key [base64:…] set successfully.``,
``the rails master key is <hex>``, ``echo <hex> > config/master.key``, a
comment ``# master key <hex>``, ``vercel env add N env <<< X``, an org-mode
description ``- password :: X``, a table row with no header
``|password|X|``.  V5: ``gh secret set N --body "X"`` keeps ``--body``.
Every value is fake."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted, check_remembered_and_imported

HEX = "3f1c9a7b2e4d6f8a0b1c2d3e4f5a6b7c"
PW = "kq8Zp2LmW9vR4tY7Xw"
B64 = "Yk9wZ2h0c2VjcmV0a2V5MTIzNDU2Nzg5MGFiY2Q="

#: case: (text, the secret in it, what must stay, the rule named, JSON-escaped too: not for the Markdown forms,
#: whose label opens its line, as red23's definition list)
CASES = {
    "laravel-key-generate": (f"INFO  Application key [base64:{B64}] set successfully.", B64,
                             "Application key [", "password-phrase", True),
    "rails-master-key-prose": (f"the rails master key is {HEX}", HEX, "the rails master key is ",
                               "password-phrase", True),
    "rails-master-key-comment": (f"bin/rails credentials:edit  # master key {HEX}", HEX, "# master key ",
                                 "password-phrase", True),
    "rails-master-key-echo": (f"echo {HEX} > config/master.key", HEX, " > config/master.key", "cli-password", True),
    "rails-env-key-echo": (f'echo "{HEX}" >> config/credentials/production.key', HEX,
                           "config/credentials/production.key", "cli-password", True),
    "vercel-here-string": (f"vercel env add JWT_SECRET production <<< {PW}", PW,
                           "vercel env add JWT_SECRET production <<< ", "cli-password", True),
    "wrangler-here-string": (f'wrangler secret put API_KEY <<< "{PW}"', PW, "wrangler secret put API_KEY <<< ",
                             "cli-password", True),
    "org-description": (f"- password :: {PW}", PW, "- password :: ", "markdown-secret", False),
    "org-description-capital": (f"Password :: {PW}", PW, "Password :: ", "markdown-secret", False),
    "row-no-header": (f"|password|{PW}|", PW, "|password|", "markdown-secret", False),
    "row-no-header-blanks": (f"| API key | `{PW}` |", PW, "| API key | `", "markdown-secret", False),
    "gh-body-quoted": (f'gh secret set DEPLOY_TOKEN --body "{PW}"', PW, 'gh secret set DEPLOY_TOKEN --body "',
                       "cli-password", True),
    "gh-body-bare": (f"gh secret set DEPLOY_TOKEN --body {PW}", PW, "gh secret set DEPLOY_TOKEN --body ",
                     "cli-password", True),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_shape_is_redacted(case):
    text, secret, kept, rule, escaped = CASES[case]
    assert_redacted(case, text, [secret], [kept], rule, escaped=escaped)


def test_gh_secret_body_keeps_its_flag():
    """V5: only the value goes; the option naming it stays, and fish's rule
    (``set NAME VALUE``) does not read ``--body`` as the value."""
    res = redact(f'gh secret set DEPLOY_TOKEN --body "{PW}"')
    assert res.text == 'gh secret set DEPLOY_TOKEN --body "[REDACTED:cli-password]"'
    assert "fish-variable" not in {h.rule for h in res.hits}


#: what must stay: base64 in prose with no key label, a commit id or md5 after 'the commit is', a table of
#: field rules, a Haskell record's field types, a reference written to the key file, an unlabelled row
KEPT = [
    f"decode base64:{B64} in prose",
    f"the commit is {HEX}",
    f"md5sum: {HEX}  file.tar.gz",
    "|password|required|",
    "| password | string |",
    "| Test | Pass |\n|---|---|\n| login | passed |",
    "  , password :: !ByteString",
    "{ password :: !ByteString",
    "  password :: Text",
    "Password::make($x)",
    "echo $RAILS_MASTER_KEY > config/master.key",
    "echo hello > notes.txt",
    "the master key is stored in config/master.key",
    "Application key set successfully.",
    f"| token | {PW} | extra |",
    "set -x EDITOR vim",
    "gh secret set DEPLOY_TOKEN --body-file token.txt",
]


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_are_kept(text):
    assert redact(text).text == text


def test_fish_set_still_redacted():
    """The fish rule still takes a value that is no option."""
    assert PW not in redact(f"set -x API_KEY {PW}").text


def test_mem_remember_get_and_import(tmp_path, mem):
    """Real mem processes: each shape remembered (``mem get`` shows the
    label, not the value) and each one a Bash result of an imported Claude
    Code transcript (``mem show``); a look-alike comes back as written."""
    cases = ("laravel-key-generate", "rails-master-key-prose", "rails-master-key-echo", "vercel-here-string",
             "org-description", "row-no-header", "gh-body-quoted")
    check_remembered_and_imported(mem, tmp_path, "v4r23", "4b4b4b4b-aaaa-4bbb-8ccc-232323232323", CASES, cases,
                                  "the commit is 9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b")
