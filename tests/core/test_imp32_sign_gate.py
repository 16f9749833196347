"""imp32: ``core.text._hides`` runs the ``_SIGNED`` search (a Unicode space or fullwidth sign by a
label, test28 Y11) only in a text that holds one of ``_SIGN_RANGES``' characters: every match of
``_SIGNED`` holds one.  A cut tool output's ``…`` fails the NFKC check that gated the search, so the
import searched every cut text for nothing."""

import pytest

from objstore.core import text as T
from objstore.core.redact import redact

CUT = "…[cut 1234 chars]"
PW = "Zq7mmXk2pRt"


def test_every_match_of_the_sign_pattern_holds_a_gate_character():
    # the gate's premise, over every BMP character in either place of either alternative
    seconds = ":=\uff1a\uff1d"
    for cp in range(0x10000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        for t in (f"x{c}:", f"x{c}=", f"{c}\uff1a", f"{c}\uff1d", *(f"{s}{c}" for s in " a)\uff09\u00a0\u3000")):
            if T._SIGNED.search(t) is not None:
                assert any(g in t for g in T._SIGN_CHARS), repr(t)


@pytest.mark.parametrize("sign", list(T._SIGN_CHARS))
def test_a_cut_text_with_a_sign_still_reads_as_ascii(sign):
    label = f"Password{sign}:" if sign not in "\uff1a\uff1d" else f"Password{sign}"
    text = f"{label} {PW}\n{CUT}"
    assert T._hides(text)
    assert T.ascii_reading(text) is not None
    assert PW not in redact(text).text


def test_a_cut_text_without_a_sign_reads_as_itself():
    text = f"Password: see the vault, nothing here\n{CUT}"
    assert not T._hides(text)
    assert T.ascii_reading(text) is None
    assert redact(text).text == text
