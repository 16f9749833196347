"""Session 42 (lane pin42b), test42 T3 through the prompt hook (real hook processes): the tester's own prompt
(``config: {"user": "bob", "pin": 4471}``) and a JSON password that is a number are captured withheld; a board's
``{"pin": 13}`` and a port are captured as written."""

from __future__ import annotations

from tests.hooks.test_pin41_hook_pins import prompts_withheld_and_kept

SECRETS = [('config: {"user": "bob", "pin": 4471}', ("4471",)), ('{"password": 84471923}', ("84471923",))]
KEPT = ['{"pin": 13, "port": 8080}', "PIN 2024 is the year the feature shipped"]   # (T5)


def test_json_pins_and_passwords_withheld_board_pins_kept(tmp_path):
    prompts_withheld_and_kept(tmp_path, SECRETS, KEPT)
