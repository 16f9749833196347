"""test39b B3: under a PIN's key, a code in other digits (full-width,
Arabic-Indic) or typed digit by digit was stored in the clear, and a PIN's
key glued to its owner ('bankpin', 'doorcode'), plural, 'pin-number', or
written in full-width or accented letters was not read as one."""

from __future__ import annotations

import pytest

from objstore.core.redact.names import redact_named


@pytest.mark.parametrize("key", ["user/bank-pin", "user/bankpin", "user/doorcode", "user/pin-number", "user/pins",
                                 "user/\uff50\uff49\uff4e", "user/pi\u0301n", "user/p\u00edn"])
@pytest.mark.parametrize("value", ["4471", "\uff14\uff14\uff17\uff11", "\u0664\u0664\u0667\u0661", "4 4 7 1",
                                   "4.4.7.1", "it is 4 4 7 1 now"])
def test_a_pin_in_any_digits_under_any_pin_key_is_withheld(key, value):
    r = redact_named(value, key)
    assert r.hits, (key, value, r.text)
    assert not any(c.isdigit() for c in r.text), r.text


@pytest.mark.parametrize("key", ["user/zip-code", "user/pin-version", "user/error-code", "user/spin", "user/shopping",
                                 "project/api/pinned"])
def test_other_keys_keep_their_numbers(key):
    assert redact_named("4471", key).text == "4471"
