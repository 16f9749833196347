"""Session 41 (seal41): the seal check's windows across a comma or semicolon (han41's ``_prose_hits``) cost
what they did before the separators were added, with the same windows.  The cost is counted as the calls
(Python functions and builtins, ``sys.setprofile``) ``folded_runs`` makes on a turn: deterministic, unlike
time on a shared machine.  On batch fee4e21c: 2,279 calls (English) and 4,158 (Chinese); here 1,365 and
3,428 (before han41: 1,150 and 1,799)."""

from __future__ import annotations

import sys
from hashlib import sha256

from objstore.core.text import normalized_form
from objstore.core.textwindows import find_matches, folded_form, folded_runs

EN = ("we moved the staging database to the new cluster last week; can you check whether deploy.yml still points "
      "at pg-old-7, and fix the retry loop in worker/queue.py so it backs off after three failures? ") * 4
ZH = "我们上周把测试数据库迁到了新的集群，迁移脚本需要新的连接字符串；请检查deploy.yml是否还指向pg-old-7，并修复重试循环。" * 4


def _calls(text: str, lens: list[int]) -> int:
    norm = normalized_form(text)
    by_len = {n: {b"x"} for n in lens}
    calls = [0]

    def prof(_frame, event, _arg):
        if event in ("call", "c_call"):
            calls[0] += 1
    sys.setprofile(prof)
    try:
        folded_runs(norm, by_len, lambda b: sha256(b).digest())
    finally:
        sys.setprofile(None)
    return calls[0]


def test_an_english_turn_with_a_semicolon_and_a_comma_costs_about_what_it_did_before_han41():
    assert _calls(EN, [9, 10, 12, 14, 16, 18]) <= 1500


def test_a_chinese_turn_with_commas_costs_no_more_than_its_windows_need():
    # 3,428 calls on seal41's branch; 4,188 once han41b's rule also tries windows across 。 (test41 T1: a
    # value split by 。 was stored in the clear), which need their hashes; han41 alone made 4,158 with fewer windows
    assert _calls(ZH, [6, 9, 12, 14, 16, 18]) <= 4400


def _rule(value: str) -> tuple[bytes, int]:
    form = folded_form(normalized_form(value))
    return sha256(form.encode("utf-8")).digest(), len(form)


def test_values_split_by_commas_are_still_found_at_their_spans():
    for text, value, said in [
        ("ssh to kestrel,harbor,204 now", "kestrel harbor 204", "kestrel,harbor,204"),
        (EN + " then okapi; quetzal, 5521 and more, later", "okapi-quetzal-5521", "okapi; quetzal, 5521"),
        (ZH + "门：青龙，白虎，七号门。", "青龙 白虎 七号门", "青龙，白虎，七号门"),
        ("密码是青龙，白虎，七号门", "青龙 白虎 七号门", "青龙，白虎，七号门"),
    ]:
        norm = normalized_form(text)
        found = [norm[a:b] for a, b in find_matches(norm, [_rule(value)], word_starts=True)]
        assert said in found, (text[-40:], found)


def test_prose_lists_stay_unmatched():
    for text, value in [("we saw maple, otter and deer", "maple otter"), ("我去过北京，上海和广州", "北京 上海")]:
        norm = normalized_form(text)
        assert find_matches(norm, [_rule(value)], word_starts=True) == []
