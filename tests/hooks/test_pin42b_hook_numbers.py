"""Session 42 (lane pin42b), test42 T3 through the prompt hook (real hook processes): the tester's own prompt
(``config: {"user": "bob", "pin": 4471}``) and a JSON password that is a number are captured withheld; a board's
``{"pin": 13}`` and a port are captured as written."""

from __future__ import annotations

import uuid

from tests.hooks._util import vault_project
from tests.hooks.test_pin41_hook_pins import _users     # the user turns of one session, in order

SECRETS = [('config: {"user": "bob", "pin": 4471}', ("4471",)), ('{"password": 84471923}', ("84471923",))]
KEPT = ['{"pin": 13, "port": 8080}', "PIN 2024 is the year the feature shipped"]   # (T5)


def test_json_pins_and_passwords_withheld_board_pins_kept(tmp_path):
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
