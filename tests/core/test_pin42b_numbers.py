"""Session 42 (lane pin42b): test42 T3, a PIN, passcode, keypad code or password that is a bare JSON number.  A PIN's
token now ends before a closing brace ('{"pin": 4471}', the object's last member: pinlabels.PIN_TOKEN), a keypad's
code reads the same token ('{"access_code": 4471}'), and a password's key of JSON, a dict or XML holding 4-12 digits
is withheld wherever it sits ('{"password": 84471923}').  Both sides through real ``mem remember`` + ``mem get``."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from tests.core.test_pin41_pin_spellings import _mem_get_all   # remember, then get, each line

#: test42 T3's lines, with the value that must not be kept (each fails on batch)
T3 = [('{"pin": 4471}', "4471"), ('{"user": "bob", "pin": 4472}', "4472"), ("{'pin': 4473}", "4473"),
      ('[{"pin": 4474}]', "4474"), ('{"door": {"pin": 4475}}', "4475"), ('{"pin":4476}', "4476"),
      ('{"passcode": 447190}', "447190"), ('{"access_code": 4477}', "4477"),
      ('{"password": 84471923}', "84471923"), ('{"user": "bob", "password": 84471924}', "84471924"),
      ('{"password": 84471925, "x": 1}', "84471925"), ("{'db_password': 84471926}", "84471926"),
      ('{"password": "84471927"}', "84471927"), ('{\\"password\\": 84471928}', "84471928")]

#: kept as written: a board's pin, numbers under other keys, a password's length or a number too short for one
KEPT = ['{"pin": 13}', '{"led_pin": 4471}', '{"password_length": 1234}', '{"password": 12}',
        '{"timeout": 84471923}', '{"max_password_age": 3600}', '{"port": 8080}']


@pytest.mark.parametrize("line,value", T3)
def test_a_json_number_under_a_pin_or_password_key_is_withheld(line, value):
    r = redact(line)
    assert value not in r.text and "[REDACTED:" in r.text, r.text
    assert redact(r.text).text == r.text      # a second pass leaves the marker whole


@pytest.mark.parametrize("line", KEPT)
def test_other_json_numbers_stay_as_written(line):
    assert redact(line).text == line


def test_mem_remember_keeps_none_of_the_values_and_all_kept_lines(tmp_path):
    """All withheld lines as one note and all kept lines as another, each through ``mem remember`` (a real process),
    then ``mem get``: no withheld value comes back nor is in the store's files; the kept lines come back as written."""
    home, (got, kept) = _mem_get_all(tmp_path, ["\n".join(line for line, _v in T3), "\n".join(KEPT)])
    for (line, value), out in zip(T3, got.splitlines()):
        assert value not in out and "[REDACTED:" in out, (line, out)
    assert kept.splitlines() == KEPT
    from objstore import scan_store
    assert scan_store(home, [b'"pin": 4471', b'"password": 84471923', b"84471925, "]) == []


#: test42 T5: ordinary text about a PIN or an access code whose clause names the number as a year, a port or a proxy
#: (pinlabels.named_else); each was withheld on batch.  What a PIN opens still withholds it (test41 T19's lines above
#: and in test_pin42_pins_and_codes)
T5_KEPT = ["PIN 2024 is the year the feature shipped", "pin 8080 for the proxy", "pin 3000 is the port",
           "PIN 2024 for the year", "access code 2024 for the conference"]
T5_WITHHELD = [("PIN 4471 is for the front door. See page 3", "4471"), ("access code 4472 for the door", "4472")]


@pytest.mark.parametrize("line", T5_KEPT)
def test_a_pin_named_as_a_year_or_a_port_stays(line):
    assert redact(line).text == line


@pytest.mark.parametrize("line,value", T5_WITHHELD)
def test_a_noun_in_the_next_clause_does_not_keep_a_pin(line, value):
    r = redact(line)
    assert value not in r.text and "[REDACTED:" in r.text, r.text


def test_mem_remember_keeps_t5s_ordinary_lines(tmp_path):
    """T5's lines through ``mem remember`` (a real process) and ``mem get``: stored and served as written."""
    _home, (got,) = _mem_get_all(tmp_path, ["\n".join(T5_KEPT)])
    assert got.splitlines() == T5_KEPT
