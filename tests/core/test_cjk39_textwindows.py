"""cjk39: the one matching of forgotten and sealed values (``core.textwindows``, ``core.wordwindows``) read a
letter of Chinese, Japanese, Korean or Thai beside a value as a letter of the value's word, so "密码是maple-
otter-77请记住" held no window starting at "maple" (test38 T5/T6); a sealed Han value inside a Chinese sentence
none at all; and ``casefold`` made "İstanbul42" into "i" + U+0307 + "stanbul42", which "istanbul42" never
matched (test38 T9.11).  Real texts through the real functions; the big-integer windows checked against the
regex they stand for over generated mixed-script texts."""

from __future__ import annotations

import hashlib
import random

import pytest

from objstore.core.text import normalized_form
import objstore.core.textwindows as tw
import objstore.core.wordwindows as ww
from objstore.memory.sealrulefile import SealRules, rule_digest
from objstore.memory.sealrules import withhold_sealed_values
from objstore.memory.sealsources import quoted_forms
from objstore.memory.sessions import withhold_value
from objstore.memory.tombstones import forgotten_in, text_tombstone

LATIN = "maple-otter-77"
HAN = "红色大象九号"
KEY = bytes(range(32))
HELD = [f"密码是{LATIN}请记住", f"パスワードは{LATIN}です", f"비밀번호는{LATIN}입니다", f"รหัสผ่านคือ{LATIN}ครับ",
        f"我家的密码是{HAN}。", f"{HAN}就是密码", f"也可以写成{LATIN}吗"]
NOT_HELD = [f"x{LATIN}", f"{LATIN}x", f"{LATIN}5", f"密码是x{LATIN}请"]


def _rules(*values):
    return SealRules(KEY, [("user/k", rule_digest(KEY, v), len(v)) for v in values])


@pytest.mark.parametrize("text", HELD)
def test_a_value_inside_unspaced_text_is_withheld_and_the_rest_kept(text):
    out, n = withhold_sealed_values(text, _rules(LATIN, HAN))
    assert n == 1 and out == text.replace(LATIN, "[REDACTED:sealed-value]").replace(HAN, "[REDACTED:sealed-value]")
    assert withhold_value(text, LATIN if LATIN in text else HAN, whole=True)[1] == 1


@pytest.mark.parametrize("text", NOT_HELD)
def test_a_value_inside_a_longer_latin_word_is_still_not_a_match(text):
    assert withhold_sealed_values(text, _rules(LATIN)) == (text, 0)
    assert withhold_value(text, LATIN, whole=True)[1] == 0


def test_a_forgotten_text_inside_unspaced_text_refuses_a_lower_trust_write():
    tombs = [text_tombstone(hashlib.sha256(v.encode()).digest(), len(v), 1) for v in (LATIN, HAN)]
    for text in HELD:
        assert forgotten_in(tombs, "user/note", text) == "text", text
    assert forgotten_in(tombs, "user/note", f"密码是x{LATIN}请") is None


def test_a_han_value_weighs_as_words_and_gets_a_rule():
    assert tw.match_weight(HAN) == 12 and tw.match_weight("maple otter") == 11 and tw.match_weight("北京大学") == 8
    assert quoted_forms(HAN) == [HAN] and quoted_forms(HAN, said_secret=True) == [HAN]
    assert quoted_forms("北京") == [] and quoted_forms("Tuesday") == []


def test_turkish_dotted_and_dotless_i_match_the_plain_i_unshifted():
    assert tw.dotless(normalized_form("İstanbul42")) == "istanbul42" == tw.dotless("ıstanbul42")
    w = "[REDACTED:sealed-value]"
    for sealed, said, want in [("istanbul42", "the code is İSTANBUL42 ok", f"the code is {w} ok"),
                               ("i̇stanbul42", "the code is istanbul42 ok", f"the code is {w} ok"),
                               ("istanbul42", "kod: ıstanbul42, İstanbul42; İstanbul", f"kod: {w}, {w}; İstanbul")]:
        rules = SealRules(KEY, [("user/k", rule_digest(KEY, f), len(f)) for f in {sealed, tw.dotless(sealed)}])
        assert withhold_sealed_values(said, rules)[0] == want


def _reference(norm: str, n: int) -> list[int]:
    marks = ww.word_marks(norm) + b"\0"
    starts = [s for s, c in enumerate(norm) if c != " " and not (ww.joins(c) and s and ww.joins(norm[s - 1]))]
    assert ww.word_starts(norm) == starts
    return [s for s in starts if s + n <= len(norm) and not (marks[s + n - 1] and marks[s + n])]


def test_the_big_integer_windows_are_the_regex_windows_over_mixed_scripts():
    rng = random.Random(39)
    alphabet = list("ab9 -_.") + list("密码是红色") + list("パスは") + list("비밀") + list("รหัส\u0e31") + ["i\u0307", "é", "ж"]
    for _ in range(300):
        norm = normalized_form("".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 40))))
        if not norm:
            continue
        lengths = sorted({rng.randrange(1, len(norm) + 1) for _ in range(3)})
        assert ww.word_windows(norm, lengths) == {n: _reference(norm, n) for n in lengths}, norm


def test_find_matches_without_a_key_finds_a_value_after_han_characters():
    rules = [(hashlib.sha256(v.encode()).digest(), len(v)) for v in (LATIN, HAN)]
    assert tw.find_matches(normalized_form(HELD[0]), rules, word_starts=True) == [(3, 17)]
    assert tw.find_matches(normalized_form(HELD[4]), rules, word_starts=True) == [(6, 12)]
