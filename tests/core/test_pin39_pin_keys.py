"""pin39 (fresh38 F6/F15): a fact key named for a PIN (``user/pin``, ``bank-pin``, ``door-code``, ``sim-puk``)
withheld a code only in its plainest spelling: ``#4471``, ``PIN: 4471``, ``{"pin": "4471"}``, ``it's 4471 now``
were stored in the clear by ``mem remember`` and the MCP/proxy writes (``facts.remember``).  The PIN-name rule
is now a kind of the one credential-name rule (``credential_name`` says ``"pin"``), not a special case beside it."""

from __future__ import annotations

import json
import os
import re
import zlib
from pathlib import Path

import pytest

from objstore.core.redact import credential_name, redact
from objstore.core.redact.names import redact_named

#: (value, what is left of it): each spelling fresh38 found kept in the clear
SPELLINGS = [
    ("#4471", "#[REDACTED:named-secret]"),
    ("4471#", "[REDACTED:named-secret]#"),
    ("*4471*", "*[REDACTED:named-secret]*"),
    ("pin=4471", "pin=[REDACTED:password-phrase]"),   # pin40: the text rule reads it first (test39b B9)
    ('{"pin": "4471"}', '{"pin": "[REDACTED:password-phrase]"}'),   # pin42: the text rule reads it first (test41 T19)
    ("it's 4471 now", "it's [REDACTED:named-secret] now"),
    ("4471 (new)", "[REDACTED:named-secret] (new)"),
    ("four four seven one", "[REDACTED:named-secret]"),
    ("Nine-oh-one-one", "[REDACTED:named-secret]"),
    ("new code 5520 1199, old one gone", "new code [REDACTED:named-secret], old one gone"),
]
KEYS = ["user/pin", "user/bank-pin", "project/office/door-code", "user/sim-puk", "user/alarm_code"]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("value,left", SPELLINGS)
def test_a_code_in_any_spelling_under_a_pin_key_is_withheld(key, value, left):
    assert redact_named(value, key).text == left


@pytest.mark.parametrize("key", KEYS)
def test_a_labelled_pin_keeps_no_digit(key):
    out = redact_named("PIN: 4471", key).text
    assert "4471" not in out and "[REDACTED:" in out


@pytest.mark.parametrize("value", ["ask the office", "13", "the one on the sticky note", "changed on 2024-05-01",
                                   "4821-kw", "a okapiquetzal-5521", "v1.4471"])
def test_words_and_short_numbers_under_a_pin_key_are_kept(value):
    assert redact_named(value, "user/pin").text == value


@pytest.mark.parametrize("key", ["project/x/zip-code", "project/x/error-code", "project/x/pin-version", "user/editor"])
def test_a_key_not_named_for_a_pin_keeps_a_code_in_a_sentence(key):
    assert redact_named("it's 4471 now", key).text == "it's 4471 now"


def test_one_name_rule_says_pin():
    """F15: ``credential_name`` is the one rule for a key's name; a PIN's name is one of its kinds."""
    assert [credential_name(k) for k in ("user/pin", "bank-pin", "door-code", "sim-puk", "cvv", "bank-pin-2")] \
        == ["pin"] * 6
    assert [credential_name(k) for k in ("zip-code", "error-code", "pin-version", "db-password")] \
        == [None, None, None, "password"]
    import objstore.core.redact.names as names
    assert not hasattr(names, "pin_name")


def test_a_transcripts_mem_remember_of_a_pin_key_withholds_the_code():
    """The same rule reads a ``mem remember`` command in a transcript (memcommand.py asks ``credential_name``)."""
    out = redact('mem remember user/pin "#4471"').text
    assert "4471" not in out


def _raw_store_bytes(home: Path) -> bytes:
    """Every file under the store, zlib-decompressed where it is a zlib stream."""
    out = []
    for d, _dirs, names in os.walk(home):
        for n in names:
            b = (Path(d) / n).read_bytes()
            out.append(b)
            try:
                out.append(zlib.decompress(b))
            except zlib.error:
                pass
    return b"\n".join(out)


@pytest.mark.parametrize("value", ["#4471", "PIN: 4471", '{"pin": "4471"}', "it's 4471 now"])
def test_mem_remember_stores_no_pin_in_the_clear(invoke, value):
    from tests.conftest import wait_remember_done
    invoke("remember", "user/bank-pin", value)
    home = Path(os.environ["MEM_HOME"])
    wait_remember_done(home)
    shown = invoke("get", "user/bank-pin").stdout
    assert "4471" not in shown and "[REDACTED:" in shown
    # (not inside a hex id or a binary run: "4471" is four hex digits, and an object id holds them by chance)
    assert not re.search(rb"(?<![0-9a-f\x80-\xff])4471(?![0-9a-f\x80-\xff])", _raw_store_bytes(home))


def test_the_mcp_and_proxy_write_path_withholds_it(store):
    """``facts.remember`` is the write the MCP server's remember tool and the proxy's "remember that" reach."""
    from objstore.memory import facts
    r = facts.remember(store, "user/pin", json.dumps({"pin": "4471"}))
    assert r.redacted >= 1
    assert "4471" not in facts.current(store, "user/pin").fact.body
