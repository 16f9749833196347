"""Session 41 (lane pin41b): test41 T3 and T4.  T3: PINs still stored in the clear after pin41: an owner after the
PIN's word ("PIN do cartão: 4471", pinlabels.PIN_OF), brackets ("PIN (4471)", "PIN[4471]"), a quoted value after
'=' between blanks ('PIN = "4 4 7 1"'), PUK as a PIN's word ("SIM PUK 12345678"), the Nordic spellings ("PIN-kode",
"PIN-koodi on", "pinkoden är": PIN_SUFFIX, PIN_COPULAS) and Russian "код карты" (PIN_WORDS_ABROAD).  T4: a pin's
length ("the pin is 4471 mm long") is a measure, not a PIN (pinlabels.measured)."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact
from tests.core.test_pin41_pin_spellings import _mem_get_all   # remember, then get, each line

#: test41 T3's lines, each with the value that must not be kept
T3 = [("PIN do cart\u00e3o: 4471", "4471"), ("PIN (4471)", "4471"), ("PIN[4471]", "4471"),
      ('PIN = "4 4 7 1"', "4 4 7 1"), ("SIM PUK 12345678", "12345678"), ("PUK: 12345678", "12345678"),
      ("PIN-kode: 4471", "4471"), ("PIN-koodi on 4471", "4471"), ("pinkoden \u00e4r 4471", "4471"),
      ("\u043a\u043e\u0434 \u043a\u0430\u0440\u0442\u044b 4471", "4471")]

#: the same forms from the tables, in the other languages and shapes
MORE = [("PIN de la carte est 4471", "4471"), ("PIN der Karte: 4471", "4471"), ("o PIN do meu cart\u00e3o \u00e9 4471", "4471"),
        ("PIN della carta: 4471", "4471"), ("PIN van de kaart is 4471", "4471"), ("PIN de acceso 4471", "4471"),
        ("clave de la tarjeta: 4471", "4471"), ("PIN-\u043a\u043e\u0434 \u043a\u0430\u0440\u0442\u044b 4471", "4471"),
        ("\u043a\u043e\u0434 \u0434\u043e\u043c\u043e\u0444\u043e\u043d\u0430 4471", "4471"), ("PIN ( 4471 )", "4471"),
        ("my PUK is 12345678", "12345678"), ("PUK2: 12345678", "12345678"), ("PIN-kode er 4471", "4471"),
        ("pinkod: 4471", "4471"), ("PIN-numero: 4471", "4471"), ("PIN: '4471'", "4471"), ("pin = '4471'", "4471"),
        ("PIN [4 4 7 1]", "4 4 7 1"),
        # a measure's look-alike that is none: still a PIN
        ("the pin is 4471 in the app", "4471"), ("pin: 4471 mmm", "4471")]

#: test41 T4's line and the other measures; and the kept look-alikes of the new forms
KEPT = ["the pin is 4471 mm long", "the pin is 4471mm long", "pin is 2540 um wide", "pin: 3300 mV", "PIN: 4471 V",
        "the pin is 1250 \u00b0C hot", "pin lengths of 4471 mm", "pin diameter 2540 um",
        "PIN (optional)", "pin (13)", "pin = 13", "pin = 448812", "set_pin(4471)", "pin de 4471",
        "Pin 12 des Steckers", "PIN der Karte ist erforderlich", "\u043a\u043e\u0434 \u043e\u0448\u0438\u0431\u043a\u0438 4471",
        "pucker 4471", "spuk 12345678", "pin [13] of the header", "GPIO PIN (4471) drives the relay"]


@pytest.mark.parametrize("line,value", T3 + MORE)
def test_a_pin_in_t3s_spellings_is_withheld(line, value):
    r = redact(line)
    assert value not in r.text and "[REDACTED:" in r.text, r.text
    assert redact(r.text).text == r.text      # a second pass leaves the marker whole


@pytest.mark.parametrize("line", KEPT)
def test_a_measure_or_no_pin_stays_as_written(line):
    assert redact(line).text == line


def test_mem_remember_keeps_none_of_t3s_values(tmp_path):
    """Each T3 line through ``mem remember`` (a real process) into an empty store, then ``mem get``; nor is any
    value anywhere in the store's files."""
    home, got = _mem_get_all(tmp_path, [line for line, _v in T3])
    for (line, value), out in zip(T3, got):
        assert value not in out and "[REDACTED:" in out, (line, out)
    from objstore import scan_store
    assert scan_store(home, [b"4471", b"12345678"]) == []


def test_mem_remember_keeps_t4s_pin_length(tmp_path):
    """T4's line through ``mem remember`` and ``mem get``: stored and served as written."""
    _home, got = _mem_get_all(tmp_path, ["the pin is 4471 mm long", "pin: 3300 mV"])
    for line, out in zip(["the pin is 4471 mm long", "pin: 3300 mV"], got):
        assert line in out and "[REDACTED:" not in out, (line, out)
