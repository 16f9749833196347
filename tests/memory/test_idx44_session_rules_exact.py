"""idx44: the turn writer's session rules (``sessionrules.SessionValues.apply``) hashed every word-start
window of every later turn of a session that had withheld a value (imp43's profile: ~2.7 s of the corpus
import's main thread, in turns that never quoted it again).  The values this writer added are known to it
(in memory, as ``named``), so a turn whose normalized form holds none of them is passed by an exact
substring test, without a hash; a rule read from the file (its value unknown) is still matched by hashing."""

from __future__ import annotations

import pytest

import objstore.memory.sealrules as sealrules
from objstore.memory.sessionrules import SessionValues

SID, OTHER = "idx44aaa-1111-4222-8333-444444444444", "idx44bbb-1111-4222-8333-444444444444"
VALUE = "Qz7vK2pLm9Xa"
MARK = "[REDACTED:sealed-value]"


@pytest.fixture
def hashed(monkeypatch) -> list[str]:
    """The texts ``find_matches`` (the hashing of windows) is called on by the session rules."""
    seen: list[str] = []
    real = sealrules.find_matches

    def spy(norm, rules, **kw):
        seen.append(norm)
        return real(norm, rules, **kw)

    monkeypatch.setattr(sealrules, "find_matches", spy)
    return seen


def test_a_later_turn_that_quotes_no_value_is_not_hashed(store, hashed) -> None:
    sv = SessionValues(store)
    assert sv.apply(SID, "printenv DB_PASSWORD", "", (VALUE,), "acme") == ("printenv DB_PASSWORD", 0)
    later = "Connected to the database; the migrations ran and every table is there now. " * 20
    assert sv.apply(SID, later, "", (), "acme") == (later, 0)
    assert sv.apply(OTHER, later, "", (), "acme") == (later, 0)     # the project's other session (red36)
    assert hashed == []                                              # (batch: one hash pass per turn)


@pytest.mark.parametrize("said", [f"Got it: `{VALUE}`. Connecting with psql now.",
                                  f"GOT IT: {VALUE.upper()}, connecting", f"value\n\n {VALUE}\n"])
def test_a_later_turn_quoting_the_value_still_withholds_it(store, hashed, said) -> None:
    sv = SessionValues(store)
    sv.apply(SID, "printenv DB_PASSWORD", "", (VALUE,), "acme")
    for sid in (SID, OTHER):
        text, n = sv.apply(sid, said, "", (), "acme")
        assert n == 1 and MARK in text and VALUE.lower() not in text.lower(), text
    assert len(hashed) == 2


def test_a_short_value_and_a_spaced_one_are_withheld_only_where_quoted(store, hashed) -> None:
    sv = SessionValues(store)
    sv.apply(SID, "pin and phrase", "", ("4471", "maple otter 8841"), "")
    assert sv.apply(SID, "the code 4472 and maple otter", "", (), "") == ("the code 4472 and maple otter", 0)
    assert hashed == []
    text, n = sv.apply(SID, "use 4471 then Maple   Otter 8841", "", (), "")
    assert n == 2 and text == f"use {MARK} then {MARK}", text


def test_a_rule_read_from_the_file_is_still_matched_by_hashing(store, hashed) -> None:
    SessionValues(store).apply(SID, "printenv DB_PASSWORD", "", (VALUE,), "")
    fresh = SessionValues(store)                    # the rules as the next process reads them: no value known
    plain = "nothing of it here at all, just prose about the schema"
    assert fresh.apply(SID, plain, "", (), "") == (plain, 0)
    text, n = fresh.apply(SID, f"it was {VALUE}", "", (), "")
    assert n == 1 and text == f"it was {MARK}"
    assert len(hashed) == 2
