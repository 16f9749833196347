"""test34b T9: a password said in one prompt ("the db password is
Alpha#123q", redacted) and corrected in the next was stored in the clear
unless the correction used a wording the redaction reads: "no wait, it ends
in 456q: Beta#456q", "whoops, it should be Beta#456q", and the bare new
value as the whole next prompt.  Now a take-back line the redaction does
not read has its password-shaped words redacted, and a bare
password-shaped prompt right after a redacted password is one; a bare
"continue", "yes" or "ok" stays (``capture.sealedprompt``).  Real hook
processes."""

from __future__ import annotations

import uuid

from tests.hooks._util import vault_project
from tests.hooks.test_sealed_take_back_seal34 import _check

PM = "[REDACTED:password-phrase]"


def test_a_password_corrected_in_words_the_redaction_does_not_read_is_redacted(tmp_path):
    home, _cwd, prompt = vault_project(tmp_path)
    cases = [("no wait, it ends in 456q: Beta#456q", f"no wait, it ends in 456q: {PM}"),
             ("whoops, it should be Beta#457q", f"whoops, it should be {PM}"),
             ("Beta#458q", PM),
             ("oops, I meant Beta#459q", f"oops, I meant {PM}")]
    for said, stored in cases:
        sid = str(uuid.uuid4())
        prompt("the db password is Alpha#123q", sid)
        prompt(said, sid)
        prompt("continue", sid)   # a bare word that is no password's shape stays
        _check(home, sid, [f"the db password is {PM}", stored, "continue"], said.split()[-1])
    for said in ("no wait, the file is settings.json", "whoops, it should be in config.yaml, v2.3.1, PR#1234",
                 "whoops, it should be in config.yaml on GitHub", "PostgreSQL", "no wait, see the README first"):
        sid = str(uuid.uuid4())   # test35b T6: a file name, a version, a reference are no password
        prompt("the db password is Alpha#123q", sid)
        prompt(said, sid)
        _check(home, sid, [f"the db password is {PM}", said], "zzz-not-there")
    plain = str(uuid.uuid4())     # no password before: a bare value-shaped prompt is kept as typed
    prompt("Beta#460q", plain)
    _check(home, plain, ["Beta#460q"], "zzz-not-there")
