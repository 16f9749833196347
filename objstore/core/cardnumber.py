"""A payment card's number (ISO/IEC 7812-1): 13 to 19 digits passing the Luhn check.  What the redaction's
``payment-card`` rule checks (``objstore.core.redact.cards``, red33b) and what makes a number of a value sealed
as secret a form of its own (``memory.sealsources``, val44): one test, in a module that loads nothing else."""

from __future__ import annotations

__all__ = ["card_number_ok"]


def card_number_ok(v: str) -> bool:
    """13 to 19 digits (blanks and ``-`` aside) that pass the Luhn check, not one digit repeated."""
    digits = [int(c) for c in v if c.isdigit()]
    if not 13 <= len(digits) <= 19 or len(set(digits)) < 2:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        total += (d * 2 - 9 if d > 4 else d * 2) if i % 2 else d
    return total % 10 == 0
