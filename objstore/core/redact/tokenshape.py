"""The shape of a token's characters, for :mod:`.checks` (split from it by red34 for the module size limit):
their Shannon entropy, and whether a placeholder word inside a long token is only glued into a random run
(test33 T19: ``xk_live_8Fh2SAMPLEp9Qz3Lm7Rt`` is a key, ``your_token_here_…`` a placeholder)."""

from __future__ import annotations

import math
from collections import Counter

_DIGITS = frozenset("0123456789")


def entropy(s: str) -> float:
    """Shannon entropy of ``s`` (not empty) in bits per character."""
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


#: AWS's documented fake keys end so (``AKIAIOSFODNN7EXAMPLE``, ``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY``:
#: "Managing access keys for IAM users" https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html )
_DOC_FAKE_ENDS = ("EXAMPLE", "EXAMPLEKEY")
_TOKEN_SEPS = frozenset("-_. /:+=")


def glued_in_random(v: str, hits: list) -> bool:
    """red34 (test33 T19): each placeholder word of ``v`` (``hits``, matches of
    :func:`~.checks.not_placeholder`'s words) is a word of letters glued inside a run of 20+
    token characters, random ones before it (``xk_live_8Fh2SAMPLEp9Qz3Lm7Rt``,
    ``…QD6example``), not the start of one of its ``-``/``_``/``.`` parts
    (``sk_test_example_key``, ``exampleTokenValue123…``) nor a marker
    (``xxx``, ``<…>``), ``v`` ends in no documented fake's ``EXAMPLE``
    (:data:`_DOC_FAKE_ENDS`), and what is left of ``v`` without them reads
    as random: 16+ characters, 3.5+ bits a character, letters and digits
    mixed (4+ turns between them: not ``MyToken1234567890``)."""
    if len(v) < 20 or v.endswith(_DOC_FAKE_ENDS):
        return False
    rest, pos = [], 0
    for m in hits:
        a, b = m.span()
        if not m.group().isalpha() or m.group().lower() == "xxx" or a == 0 or v[a - 1] in _TOKEN_SEPS:
            return False
        rest.append(v[pos:a])
        pos = b
    left = "".join(rest) + v[pos:]
    turns = sum((x in _DIGITS) != (y in _DIGITS) for x, y in zip(left, left[1:]) if x.isalnum() and y.isalnum())
    return len(left) >= 16 and turns >= 4 and entropy(left) >= 3.5
