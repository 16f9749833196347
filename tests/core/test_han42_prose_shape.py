"""han42 (test41 T36, T22, han41b's limit): the folded matcher's rule across a prose mark.

- T36: a window across a comma, semicolon or sentence end is taken only when it is shaped as a value (it holds
  a digit, a mark or a character of a script written without spaces: "okapi, quetzal, 5521", "青龙，白虎，七号门"),
  not when it is words of prose ("we saw a kestrel, harbor seals too" with "kestrel harbor" sealed).
- T22: a full stop a space follows ends a sentence as ``!``, ``?`` and ``。`` do (one rule); a window holding a
  digit that is the whole text ("blue otter; 42") is no prose list and is taken under the weight floor.
- A format character (a zero-width space or joiner) is a separator, not the end of a run.

Each row: (sealed value, text, matched?).  Rows marked NEW answer otherwise on batch."""

from __future__ import annotations

from hashlib import sha256

import pytest

from objstore.core.text import normalize_value
from objstore.core.textwindows import find_matches, fold_worth, is_separator

NEW = [
    # T36: prose across a comma or semicolon, words only: not a value
    ("kestrel harbor", "we saw a kestrel, harbor seals too", False),
    ("kestrel harbor", "Birds: a kestrel, harbor seals, an otter", False),
    ("kestrel harbor", "the boat is Kestrel, Harbor Road is closed", False),
    ("kestrel harbor", "we saw a kestrel; harbor seals too", False),
    ("maple syrup seven", "near the maple, syrup seven dollars", False),
    # T22: sentence ends, one rule
    ("maple syrup seven", "I like maple syrup. Seven pancakes please", False),
    ("maple syrup seven", "Bring maple syrup! Seven of them", False),
    ("maple syrup seven", "Do you like maple syrup? Seven people do", False),
    ("maple syrup seven", "Our maple syrup.\nSeven jars left", False),
    # T22: the whole text is the value split by a prose mark: no list
    ("blue otter 42", "blue otter; 42", True),
    ("blue otter 42", "blue, otter, 42", True),
    ("blue otter 42", "Blue otter, 42.", True),
    # a format character inside a value's spelling is a separator
    ("blue otter 42", "code blue\u200botter 42 ok", True),
    ("blue otter 42", "code blue o\u200dtter 42 ok", True),
    ("maple otter", "pass map\u00adle otter", True),
    ("hunter2xyz", "pw hunt\u2060er2xyz", True),
]
KEPT = [
    # han41/han41b's catches stay
    ("okapi-quetzal-5521", "wifi okapi, quetzal, 5521", True),
    ("okapi-quetzal-5521", "wifi okapi;quetzal;5521 now", True),
    ("okapi-quetzal-5521", "okapi.quetzal.5521", True),
    ("okapi-quetzal-5521", "okapi:quetzal:5521", True),
    ("okapi-quetzal-5521", "We use okapi. Quetzal 5521 is the room", True),   # digits: one rule with ! and ?
    ("okapi-quetzal-5521", "We use okapi! Quetzal 5521 is the room", True),
    ("okapi-quetzal-5521", "ok\u200bapi-quetzal-5521", True),
    ("kestrel harbor 204", "ssh to kestrel,harbor,204 now", True),
    ("青龙白虎七号门", "青龙，白虎，七号门", True),
    ("青龙白虎七号门", "门：青龙。白虎。七号门", True),
    ("青龙白虎七号门", "密码是青龙，白虎，七号门", True),
    ("maple syrup seven", "maple-syrup-seven", True),
    ("maple syrup seven", "the maple syrup seven code", True),
    # cma43 (test42 T7) undid han41's decision for these two: the whole text is the value split by one comma
    ("北京上海", "北京，上海", True),
    ("北京上海七", "北京，上海七", True),
    # ordinary prose stays unmatched
    ("青龙白虎七号门", "我们用青龙山的服务器，白虎队负责七号门的维护。", False),
    ("北京上海", "我去过北京，上海和广州", False),
    ("北京上海", "我去过北京、上海和广州", False),
    ("blue otter 42", "blue otter; 42 of them", False),   # not the whole text, and weighs 11
    ("maple otter", "we saw maple, otter and deer", False),
    ("blue otter 42", "a blue otter; 42 of them, and more", False),   # weighs 11: a list in a sentence
    ("hunter2xyz", "hunt\ue000er2xyz", False),   # a private-use character still ends a run
]


def _rules(value: str) -> list[tuple[bytes, int]]:
    norm = normalize_value(value)
    out = [(sha256(norm.encode()).digest(), len(norm))]
    folded = fold_worth(norm)
    if folded:
        out.append((sha256(folded.encode()).digest(), len(folded)))
    return out


@pytest.mark.parametrize(("value", "text", "matched"), NEW + KEPT)
def test_a_window_across_a_prose_mark_is_taken_only_when_shaped_as_a_value(value, text, matched):
    got = find_matches(normalize_value(text), _rules(value), word_starts=True)
    assert bool(got) is matched, got


def test_format_characters_are_separators():
    assert all(is_separator(c) for c in "\u200b\u200c\u200d\u2060\u00ad\ufeff")
    assert not any(is_separator(c) for c in "a7\u0e49\n\x85\ue000")
