"""Session 42 (lane pin42), test41 T19 and T27 through the prompt hook (real hook processes): a PIN followed by what
it opens ("PIN 4471 for the door lock", test41's own prompt with "PIN do cartão"), a PIN as a JSON key, an access
code and a card's security code are captured withheld; a pin on a header, a year after "pin:" and Spanish "palabra
clave" are captured as written."""

from __future__ import annotations

from tests.hooks.test_pin41_hook_pins import prompts_withheld_and_kept

SECRETS = [("the PIN 4471 for the door lock, and PIN do cart\u00e3o: 5582", ("4471", "5582")),
           ("PIN 6613 works", ("6613",)), ('{"pin": "7714"}', ("7714",)), ("access code 8815", ("8815",)),
           ("the card's security code 739", ("739",))]
KEPT = ["PIN 2207 on the header", "the pin: 2024 edition", "palabra clave 3390"]   # (no value withheld above)


def test_pins_and_codes_are_withheld_and_board_pins_years_keywords_kept(tmp_path):
    prompts_withheld_and_kept(tmp_path, SECRETS, KEPT)
