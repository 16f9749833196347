"""red37: a value sealed with ``--sensitivity secret`` of a word and a 4-digit PIN ("rowan 8841"), of two plain
words ("maple otter": the person said it is a secret), and a sealed statement whose predicate is two words ("the
gate code is 7710-2231 birch", test36b T14) got no seal rule for what later turns quote: the value, the predicate
and its value-shaped word were stored in the clear (test36b T3, T14).  Now each gets one
(``sealsources.quoted_forms``), a two-word rule needing both words in order; ordinary values still get none."""

from __future__ import annotations

import pytest

from objstore import scan_store
from objstore.memory.sealsources import quoted_forms
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_seal_two_word_values import sealed_session

VALUES = ["rowan 8841", "maple otter", "the gate code is 7710-2231 birch"]


def test_later_turns_quoting_a_sealed_pin_pair_two_words_or_a_predicate_are_stored_withheld(tmp_path):
    s, env = sealed_session(tmp_path, VALUES, "r37s")
    s.prompt("lock rowan 8841; phrase maple otter; gate: 7710-2231 birch and 7710-2231 alone")
    s.stop("Noted: rowan 8841, maple otter, 7710-2231 birch.")
    _mem(env, "gc", "--prune=now")
    found = scan_store(s.store, [b"rowan 8841", b"maple otter", b"7710-2231"])
    assert found == [], found
    out = _mem(env, "show", s.sid[:8]).stdout
    assert out.count("[REDACTED:sealed-value]") >= 6 and "lock [REDACTED" in out and " alone" in out, out


def test_the_forms():
    # (seal38: a two-word form said the other way round is a form too, test37b T15)
    assert quoted_forms("rowan 8841") == ["rowan 8841", "8841 rowan"]
    assert quoted_forms("maple otter") == [] and \
        quoted_forms("maple otter", said_secret=True) == ["maple otter", "otter maple"]
    assert quoted_forms("the vendor code is 4410-7788 maple") == [
        "the vendor code is 4410-7788 maple", "4410-7788 maple", "maple 4410-7788", "4410-7788"]
    assert quoted_forms("the code is 8841 rowan") == ["the code is 8841 rowan", "8841 rowan", "rowan 8841"]


@pytest.mark.parametrize("value", ["main", "postgres 16", "node 20", "Tuesday afternoon", "the db runs postgres 16"])
def test_ordinary_values_get_no_two_word_rule_unless_said_secret(value):
    assert all(len(f.split()) != 2 for f in quoted_forms(value)), quoted_forms(value)
