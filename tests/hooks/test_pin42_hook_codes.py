"""Session 42 (lane pin42), test41 T19 and T27 through the prompt hook (real hook processes): a PIN followed by what
it opens ("PIN 4471 for the door lock", test41's own prompt with "PIN do cartão"), a PIN as a JSON key, an access
code and a card's security code are captured withheld; a pin on a header, a year after "pin:" and Spanish "palabra
clave" are captured as written."""

from __future__ import annotations

import uuid

from tests.hooks._util import vault_project
from tests.hooks.test_pin41_hook_pins import _users     # the user turns of one session, in order

SECRETS = [("the PIN 4471 for the door lock, and PIN do cart\u00e3o: 5582", ("4471", "5582")),
           ("PIN 6613 works", ("6613",)), ('{"pin": "7714"}', ("7714",)), ("access code 8815", ("8815",)),
           ("the card's security code 739", ("739",))]
KEPT = ["PIN 2207 on the header", "the pin: 2024 edition", "palabra clave 3390"]   # (no value withheld above)


def test_pins_and_codes_are_withheld_and_board_pins_years_keywords_kept(tmp_path):
    home, _cwd, prompt = vault_project(tmp_path)
    sid = str(uuid.uuid4())
    for line, _v in SECRETS:
        prompt(line, sid)
    for line in KEPT:
        prompt(line, sid)
    got = _users(home, sid)
    assert len(got) == len(SECRETS) + len(KEPT), got
    for (line, values), t in zip(SECRETS, got):
        assert "[REDACTED:" in t and not any(v in t for v in values), (line, t)
    assert got[len(SECRETS):] == KEPT
