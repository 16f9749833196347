"""fresh42 F6: without the confusables extra, mem reads a character's script
from its Unicode name, and "KATAKANA-HIRAGANA PROLONGED SOUND MARK" (ー, U+30FC,
Common in Scripts.txt) read as a script of its own: every katakana loanword key
(サーバー, データ, キー) was refused as a look-alike.  Both ways of reading the
script now agree on it; a real look-alike is still named."""

from __future__ import annotations

import pytest

from objstore.core import lookalike


@pytest.fixture(params=["package", "by-name"])
def reader(request, monkeypatch):
    if request.param == "by-name":   # as installed without memvcs[confusables]
        monkeypatch.setattr(lookalike, "_SCRIPTS", ([], [], []))
    return request.param


@pytest.mark.parametrize("segment", ["サーバー", "データ", "キー", "日本語キー", "すーぱー", "ﾃﾞｰﾀ", "api-サーバー"])
def test_kana_words_with_the_prolonged_mark_are_one_script(reader, segment):
    assert lookalike.lookalike_mix(segment) is None


def test_the_mark_is_common_either_way(reader):
    assert lookalike.script_of("ー") == "COMMON"


@pytest.mark.parametrize("segment", ["d\u0435ploy", "サーバーd\u0435ploy"])
def test_a_real_lookalike_is_still_named(reader, segment):
    assert "Cyrillic" in (lookalike.lookalike_mix(segment) or "")


def test_remember_takes_a_katakana_key(mem):
    mem("init")
    mem("remember", "project/api/サーバー", "db.internal")
    assert mem("get", "project/api/サーバー").stdout.strip() == "db.internal"
