"""han41 (test40 T1/T2/T21/T22): the one separator-folded matcher (``core.textwindows``) reads a run of words
joined by a comma, semicolon, bar, tilde or plus (ASCII or fullwidth) or corner brackets, and a Thai word with
its vowel and tone marks; a joined form across a comma or semicolon weighs 12 (prose lists words so); a sealed
value of 4+ characters of a script written without spaces gets a rule when said as a secret; ``forget --match``
folds only a text holding a digit, symbol or such a character."""

from __future__ import annotations

from hashlib import sha256

import pytest

from objstore.core.text import normalize_value
from objstore.core import textwindows
from objstore.core.textwindows import find_matches, folded_form
from objstore.memory.sealsources import quoted_forms
from objstore.memory.tombstones import match_forms


def holds(value: str, text: str) -> bool:
    norm = normalize_value(value)
    rules = [(sha256(f.encode()).digest(), len(f)) for f in {norm, folded_form(norm)}]
    return bool(find_matches(normalize_value(text), rules, word_starts=True))


@pytest.mark.parametrize("value,text", [
    ("青龙白虎七号门", "门：青龙，白虎，七号门"), ("青龙白虎七号门", "门：青龙；白虎；七号门"), ("青龙白虎七号门", "门：青龙｜白虎｜七号门"),
    ("青龙白虎七号门", "门：青龙|白虎|七号门"), ("青龙白虎七号门", "门：青龙,白虎,七号门"), ("青龙白虎七号门", "门：青龙~白虎~七号门"),
    ("青龙白虎七号门", "门：青龙 + 白虎 + 七号门"), ("青龙白虎七号门", "门：「青龙」「白虎」「七号门」"), ("青龙白虎七号门", "『青龙』『白虎』七号门"),
    ("ช้างแดงเก้าหมายเลข", "รหัสคือ ช้าง แดง เก้า หมายเลข"), ("ช้างแดงเก้าหมายเลข", "รหัสคือ ช้าง-แดง-เก้า-หมายเลข"),
    ("ຊ້າງແດງເກົ້າເບີ", "ລະຫັດ ຊ້າງ ແດງ ເກົ້າ ເບີ"), ("ដំរីក្រហមប្រាំបួន", "លេខ ដំរី-ក្រហម-ប្រាំបួន"),
    ("ဆင်နီကိုးနံပါတ်", "ဆင် နီ ကိုး နံပါတ်"), ("हाथीलालनौ९", "कोड हाथी-लाल-नौ-९"),
    ("okapi-quetzal-5521", "wifi okapi,quetzal,5521"), ("okapi-quetzal-5521", "okapi，quetzal，5521"),
    ("okapi-quetzal-5521", "okapi|quetzal|5521"), ("okapi-quetzal-5521", "okapi ~ quetzal ~ 5521"),
    ("青龙白虎七号门", "密码是青龙，白虎，七号门"), ("青龙白虎七号门", "青龙，白虎，七号门请记住"), ("okapi-quetzal-5521", "是okapi，quetzal，5521"),
    ("青龙山数据中心", "机房：青龙山，数据中心"), ("北京上海", "密码 北京 上海"), ("maple otter", "maple+otter"),
])
def test_a_value_split_by_common_punctuation_is_held(value, text):
    assert holds(value, text)


@pytest.mark.parametrize("value,text", [
    ("北京上海", "我去过北京，上海和广州"), ("北京上海", "城市：北京；上海；广州"), ("maple otter", "we saw maple, otter and deer"),
    ("青龙白虎七号门", "我们用青龙山的服务器，白虎队负责七号门的维护。"), ("青龙白虎七号门", "青龙 白虎 很好看，七号门在左边"),
    ("okapi-quetzal-5521", "okapi, quetzal, 55210"), ("okapi-quetzal-5521", "xokapi,quetzal,5521"), ("ช้างแดงเก้าหมายเลข", "ช้างตัวนี้สีแดง"),
])
def test_ordinary_text_beside_the_value_is_not_held(value, text):
    assert not holds(value, text)


def test_a_comma_needs_the_weight_of_twelve():
    assert textwindows.FOLD_MIN_PROSE == 12
    assert holds("北京上海七", "北京 上海七") and not holds("北京上海七", "我去过北京，上海七个城市")   # weighs 10
    assert holds("北京上海七号", "我去过北京，上海七号")   # weighs 12
    # cma43 (test42 T7): whole parts across one comma alone, or the whole text, weigh 8 (han41 held neither)
    assert holds("北京上海七", "北京，上海七") and holds("北京上海七", "门：北京，上海七") and holds("北京上海", "北京；上海")
    assert not holds("北京上海七", "门：北京；上海七") and not holds("北京上海七", "城市：北京！上海七？")


@pytest.mark.parametrize("value", ["北京上海", "青龙白虎七", "코끼리구번", "東京大阪"])
def test_a_short_unspaced_value_said_as_a_secret_gets_a_rule(value):
    assert quoted_forms(value, said_secret=True) == [value]
    assert quoted_forms(value) == []


@pytest.mark.parametrize("value", ["北京", "北京上", "maple", "Tuesday"])
def test_a_shorter_or_latin_word_said_as_a_secret_gets_none(value):
    assert quoted_forms(value, said_secret=True) == []


def test_forget_match_folds_two_ordinary_words_too():
    """test41 T35 undid test40 T22's narrower rule: a forgotten name comes back joined."""
    # (val44, test43 T17: two words also the other way round and across one comma, "Rossi, Marco")
    assert match_forms("marco rossi") == ["marco rossi", "marcorossi", "rossi marco", "rossimarco", "marco,rossi",
                                          "rossi,marco"]
    assert match_forms("over night")[:2] == ["over night", "overnight"]
    assert match_forms("kestrel-harbor-204") == ["kestrel-harbor-204", "kestrelharbor204"]
    assert match_forms("青龙山 数据中心")[:2] == ["青龙山 数据中心", "青龙山数据中心"]
