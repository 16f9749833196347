"""han41b (test41 T1/T10/T2): the separators of the folded form are a rule (Unicode general category P*, S*
or Z*: ``textwindows.is_separator``), not a list; a letter, digit or combining mark is kept; 、。：！？ are
prose marks as ，is (a joined form across one weighs 12, textwindows.FOLD_MIN_PROSE)."""

from __future__ import annotations

import hashlib

import pytest

from objstore.core.text import normalize_value
from objstore.core.textwindows import find_matches, fold_worth, folded_form, is_separator


def _rules(*values):
    forms = {f for v in values for f in (normalize_value(v), fold_worth(normalize_value(v))) if f}
    return [(hashlib.sha256(f.encode()).digest(), len(f)) for f in forms]


RULES = _rules("青龙白虎七号门", "okapi-quetzal-5521", "北京上海", "kestrel-harbor-204.internal")


@pytest.mark.parametrize("text", ["wifi okapi:quetzal:5521", "okapi*quetzal*5521", "(okapi)(quetzal)(5521)",
                                  "okapi&quetzal&5521", "okapi$quetzal€5521", "okapi🔑quetzal🔑5521", "okapi<quetzal>5521",
                                  "okapi\u00a0quetzal\u20095521", "门：【青龙】【白虎】【七号门】", "门：《青龙》《白虎》《七号门》",
                                  '门："青龙""白虎""七号门"', "门：青龙。白虎。七号门", "门：〈青龙〉〈白虎〉〈七号门〉",
                                  "kestrel:harbor:204.internal", "北京/上海", "【北京】【上海】",
                                  "北京？上海！"])   # (the value alone, split by prose marks: cma43, test42 T7)
def test_a_value_split_by_any_punctuation_symbol_or_space_is_found(text):
    assert find_matches(normalize_value(text), RULES), text


@pytest.mark.parametrize("text", ["Note: the okapi (a forest giraffe) & the quetzal are \"rare\"; see page 5521.",
                                  "我读了《三体》和【新闻】。青龙山很高，白虎队赢了。七号门在左边。", "我去过北京、上海和广州",
                                  "我去过北京，上海和广州", "我去过北京。上海也很好！", "北京：上海的同事明天到。"])
def test_ordinary_prose_with_punctuation_is_not_found(text):
    assert find_matches(normalize_value(text), RULES) == [], text


def test_the_rule_is_the_unicode_category():
    assert all(map(is_separator, ":*()&【】《》\"。、 \u00a0\u3000€$🔑→★"))
    assert not any(map(is_separator, "a9青\u0e49\u0301\n\t\ue000"))   # han42: a format character (\u200b) is one
    assert folded_form("门：【青龙】【白虎】【七号门】") == "门青龙白虎七号门"
    assert fold_worth("admin:hunter2") == "adminhunter2" and fold_worth("p@ss!") is None
