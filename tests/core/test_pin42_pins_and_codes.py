"""Session 42 (lane pin42): test41 T19, T27 and T4.  T19: a PIN followed by what it opens or a word about it ("PIN
4471 for the door lock", "PIN 4471 works": pinlabels.PIN_THEN) and a PIN's word as a JSON or XML key ('{"pin":
"4471"}', '<pin>4471</pin>': pinlabels.PIN_KEYED) are withheld, while a pin "on the header" (a holder of pins) and
"for the Arduino" (a board's word) stay.  T27: an access code, a keypad's code as a key ('DOOR_CODE=4471'), a card's
"security code" and German keypad codes are withheld; Spanish "palabra clave" ('keyword', pinlabels.PIN_WORD_NOT) is
kept.  T4: a year or an edition after a pin's number ('the pin: 2024 edition', pinlabels.PIN_NOT_AFTER) is kept;
English "the pin on 4471 of the header" (Finnish 'on' read as a copula) stays with its holder."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from tests.core.test_pin41_pin_spellings import _mem_get_all   # remember, then get, each line

#: test41 T19's lines and T27's, with the value that must not be kept
T19 = [("PIN 4471 for the door lock", "4471"), ("PIN 4472 for the laptop", "4472"), ("PIN 4473 on the router", "4473"),
       ("enter PIN 4474 on the keypad", "4474"), ("PIN 4475 for the alarm panel", "4475"),
       ("Use PIN 4476 on the device", "4476"), ("PIN 4477 for the SIM in my phone", "4477"),
       ("PIN code 4478 on my phone", "4478"), ("the PIN code 1234 for my phone", "1234"),
       ("PIN 4479 for the board meeting room", "4479"), ("PIN 5471 works", "5471"), ("PIN 5472 please", "5472"),
       ("card PIN 5473 works", "5473"), ("PIN 5474 is for the front door", "5474"),
       ('{"pin": "5475"}', "5475"), ('"pin":5476', "5476"), ("<pin>5477</pin>", "5477"), ('"pin": 5478', "5478"),
       ("<pincode>5479</pincode>", "5479"), ("'pin' => '6471'", "6471")]
T27 = [("access code 6472", "6472"), ("the access code is 6473", "6473"), ("ACCESS_CODE=6474", "6474"),
       ('{"access_code": "6475"}', "6475"), ("DOOR_CODE=6476", "6476"), ("door-code: 6477", "6477"),
       ("door code 6478 for the back entrance", "6478"), ("the card's security code 739", "739"),
       ("security code: 738", "738"), ("SECURITY_CODE=737", "737"), ('{"cvv": "736"}', "736"), ('"cvv":735', "735"),
       ("<cvv>734</cvv>", "734"), ("Zugangscode 6479", "6479"), ("der T\u00fcrcode ist 6480", "6480"),
       ("<access_code>6481</access_code>", "6481"), ("<door_code>6482</door_code>", "6482")]

#: kept as written: board pins, holders of pins, years and editions, the other senses of 'clave', ordinary numbers
KEPT = ["pin 13 on the Arduino", "GPIO pin 4471", "4471 mm", "PIN 4471 on the header", "PIN 4471 of the connector",
        "PIN 4471 for the Arduino", "pin 4471 on the FPGA", "PIN 4471 for the relay", "the pin on 4471 of the header",
        "the pin: 2024 edition", "\u041f\u0418\u041d 2024 \u0433\u043e\u0434\u0430 \u0432\u044b\u043f\u0443\u0441\u043a\u0430",
        "PIN 2024 release notes", "my PIN is 2024 edition", "palabra clave 4471", "palabras clave: 2024",
        "clave de b\u00fasqueda 4471", "la clave del \u00e9xito es 2024", "clave primaria 4471", "error code 4471",
        "exit code 4471", "zip code 4471", "Fehlercode 4471", "security code review 2024", "access code length 4471",
        "issue 4471", "version 4471", "port 4471", "pins 4471 for the header", "pin = 448812", "LED_PIN=13",
        '{"pin": 13}', "<pin>13</pin>", '{"led_pin": "4471"}', "the pin is 4471 mm long"]


@pytest.mark.parametrize("line,value", T19 + T27)
def test_a_pin_or_code_is_withheld(line, value):
    r = redact(line)
    assert value not in r.text and "[REDACTED:" in r.text, r.text
    assert redact(r.text).text == r.text      # a second pass leaves the marker whole


@pytest.mark.parametrize("line", KEPT)
def test_a_board_pin_a_year_or_a_keyword_stays_as_written(line):
    assert redact(line).text == line


def test_mem_remember_keeps_none_of_the_values_and_all_kept_lines(tmp_path):
    """All withheld lines as one note and all kept lines as another, each through ``mem remember`` (a real process)
    into an empty store, then ``mem get``: no withheld value is in what comes back nor in any of the store's files;
    the kept lines come back as written."""
    withheld = T19 + T27
    home, (got, kept) = _mem_get_all(tmp_path, ["\n".join(line for line, _v in withheld), "\n".join(KEPT)])
    for (line, value), out in zip(withheld, got.splitlines()):
        assert value not in out and "[REDACTED:" in out, (line, out)
    assert kept.splitlines() == KEPT
    from objstore import scan_store
    assert scan_store(home, [b"PIN 4471 for the door", b'"5475"', b"CODE=6474", b"Zugangscode 6479", b"code 739"]) == []
