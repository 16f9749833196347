"""han40 (test39b B1/B5/B11): ``textwindows.find_matches``' runs of joined words read a character of a script
written without spaces as a word of its own and 、・· as separators, against a rule whose joined form weighs 8
(``match_weight``): never a shorter one."""

from __future__ import annotations

from hashlib import sha256

import pytest

from objstore.core.objects import normalize_value
from objstore.core.textwindows import find_matches, fold_worth

KEY = bytes(range(32))


def _rules(*values):
    return [(sha256(normalize_value(v).encode()).digest(), len(normalize_value(v))) for v in values]


@pytest.mark.parametrize("text", ["我家的密码是红色 大象 九号。", "密码：红色-大象-九号", "密码：红色、大象、九号",
                                  "密码 红 色 大 象 九 号", "门禁是红色・大象・九号吧", "红色大象 九号"])
def test_a_han_value_split_by_separators_is_found(text):
    found = find_matches(normalize_value(text), _rules("红色大象九号"), word_starts=True)
    assert len(found) == 1
    s, e = found[0]
    assert normalize_value(text)[s:e].replace(" ", "").replace("-", "").replace("、", "").replace("・", "") == "红色大象九号"


@pytest.mark.parametrize("text", ["我喜欢红色的大象，九号线很方便。", "红色 大象 很大", "九号 红色 大象", "红色大象是动物"])
def test_ordinary_text_beside_the_value_s_characters_is_not(text):
    assert find_matches(normalize_value(text), _rules("红色大象九号"), word_starts=True) == []


def test_a_joined_form_weighing_under_8_is_never_tried():
    assert find_matches("ab 12 红 色", _rules("ab12", "红色"), word_starts=True) == []
    assert find_matches(normalize_value("红色 大象"), _rules("红色大象"), word_starts=True) == [(0, 5)]


def test_latin_parts_joined_by_an_ideographic_comma_or_middle_dot():
    rules = _rules("okapiquetzal5521")
    for text in ("see okapi、quetzal、5521 there", "okapi・quetzal・5521", "okapi·quetzal·5521", "密码是okapi quetzal 5521吧"):
        assert find_matches(normalize_value(text), rules, word_starts=True), text
    assert fold_worth("okapi、quetzal、5521") == "okapiquetzal5521"
    assert fold_worth("红色 大象 九号") == "红色大象九号" and fold_worth("红色 大象") == "红色大象"
    assert fold_worth("红 色") is None


def test_the_keyed_check_finds_them_too():
    from objstore.memory.sealrulefile import SealRules, rule_digest
    from objstore.memory.sealrules import withhold_sealed_values
    rules = SealRules(KEY, [("user/door", rule_digest(KEY, "红色大象九号"), 6)])
    out, n = withhold_sealed_values("门禁：红色 大象 九号，别忘了", rules)
    assert (out, n) == ("门禁：[REDACTED:sealed-value]，别忘了", 1)
