"""Session 33 (lane cue33), test32b Y7 (rest): a corrected password or PIN
leaves neither value in the clear — "Actually, it's X", a take-back opening
the next line, a PIN's "Correction: 4712." (base: the new value kept)."""

from __future__ import annotations

from objstore.core.redact import redact

CORRECTED = [  # (text, the values it holds)
    ("remember that the wifi password is Hx7kk2Lp. Actually, it's Qm4rr8Tz.", ("Hx7kk2Lp", "Qm4rr8Tz")),
    ("remember that the wifi password is Hx7kk2Lp.\nActually, it's Qm4rr8Tz.", ("Hx7kk2Lp", "Qm4rr8Tz")),
    ("remember that the vpn password is Jw5tt9Rb.\nCorrection: Zp3vv6Nc", ("Jw5tt9Rb", "Zp3vv6Nc")),
    ("remember that my pin is 4711. Correction: 4712.", ("4711", "4712")),
    ("remember that my pin is 4711.\nCorrection: 4712.", ("4711", "4712")),
    ("my pin became 4711. Correction: 4712", ("4711", "4712")),
]

NOT_A_VALUE = [  # what follows is no second value: only the first is taken
    ("my pin is 4711. Actually, the door is red", "the door is red"),
    ("the password is Hx7kk2Lp. Actually, it works now.", "it works now"),
]


def test_a_corrected_secret_keeps_neither_value():
    for text, values in CORRECTED:
        got = redact(text).text
        assert not any(v in got for v in values), got
        assert got.count("[REDACTED:password-phrase]") == 2, got
    for text, kept in NOT_A_VALUE:
        got = redact(text).text
        assert kept in got and got.count("[REDACTED:") == 1, got
