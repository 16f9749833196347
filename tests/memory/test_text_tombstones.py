"""The matching rule of tombstones for a new fact value
(``tombstones.forgotten_in``; docs/format.md "Tombstone")."""

from __future__ import annotations

from objstore.core.objects import Tombstone, normalize_value, value_digest
from objstore.memory.tombstones import forgotten_in, text_tombstone


def _text(t: str) -> Tombstone:
    n = normalize_value(t)
    return text_tombstone(value_digest(n), len(n), 1)


def test_a_forgotten_text_is_found_from_a_word_start_whatever_case_and_spacing():
    ts = [_text("ZebraFrog  unique"), _text("-pS3cretXY")]
    assert forgotten_in(ts, "project/a/b", "note: zebrafrog unique-771") == "text"
    assert forgotten_in(ts, "project/a/b", "mysql -u root -ps3cretxy db") == "text"
    assert forgotten_in(ts, "project/a/b", "xzebrafrog unique") is None      # inside a word: another word
    assert forgotten_in(ts, "project/a/b", "zebrafrog") is None               # shorter than the text


def test_whole_values_key_rules_and_rejections():
    other = Tombstone(key="user/editor", value_sha256=value_digest("vim"), time=1)
    rejected = Tombstone(key="user/shell", value_sha256=value_digest("zsh"), time=1, reason="rejected")
    match_rule = Tombstone(key="match:sess-1", value_sha256=value_digest("quokka"), time=1, reason="match:6")
    ts = [other, rejected, match_rule]
    assert forgotten_in(ts, "user/editor", "VIM") == "key"
    assert forgotten_in(ts, "project/x/editor", "vim") == "value"       # a forgotten value under another key
    assert forgotten_in(ts, "project/x/use", "use vim keys") is None    # short: only as a whole value
    assert forgotten_in(ts, "user/shell", "zsh") == "key"               # rejected for its own key
    assert forgotten_in(ts, "project/x/shell", "zsh") is None           # a rejection is about its key only
    assert forgotten_in(ts, "project/x/n", "the quokka ate") == "text"  # a --match rule of any session
