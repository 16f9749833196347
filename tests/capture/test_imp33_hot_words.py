"""imp33: ``withhold.may_print_secret`` finds its six words in one pass over a large
transcript (``_word_finder``, with the optional ``ahocorasick_rs``) instead of six passes
of ``bytes.find``.  The cut is exact: the finder answers every ``find(word, start)``
as ``bytes.find`` does (overlapping occurrences of a word, a word inside another's
bytes, the file's ends), so the same offsets are read and the same answer given."""

from __future__ import annotations

import json

import pytest

from objstore.capture import withhold
from objstore.capture.withhold import (_HOT_WORDS, _ONE_PASS_MIN, _SEALED_PAIRS, _SEALED_SPELT, _word_finder,
                                      may_print_secret)

#: every word, overlapping runs of the pairs ("''''", '\\"\\"\\"'), words inside others'
#: bytes ("--d", "\\\\\\\\-d"), near-misses ("seale", "remot")
_TRICKY = (b"sealed remote '''' \\\"\\\"\\\"\\\" \\\\\\\\\\ --decrypt -d --d sealedsealed remoteremote "
           b"se''aled se\\\"\\\"aled se\\\\aled seale remot -\n-d x\\\\-d '\\\"'\"\" ")


def _filler(n: int, tricky: bytes = _TRICKY) -> bytes:
    """``n``-odd bytes of transcript-like JSON lines holding every word (and ``tricky``),
    none a call that prints a secret."""
    rec = json.dumps({"type": "user", "message": {"content": "ls -d /srv && git remote -v; echo 'it''s' \\\\"},
                      "uuid": "0d1e-d2f3-dd", "note": 'a ""quoted"" word'}).encode() + b"\n"
    return (rec + tricky) * (n // (len(rec) + len(tricky)) + 1)


@pytest.fixture()
def matcher():
    pytest.importorskip("ahocorasick_rs")
    saved = list(withhold._HOT_MATCHER)
    withhold._HOT_MATCHER.clear()
    yield
    withhold._HOT_MATCHER[:] = saved


def test_finder_answers_as_bytes_find(matcher) -> None:
    data = _TRICKY + _filler(_ONE_PASS_MIN) + _TRICKY
    find, _may_hold = _word_finder(data)
    assert find != data.find   # the one-pass finder (the extra is installed)
    for word in _HOT_WORDS:
        starts = {0, 1, len(data) - 1, len(data), len(data) + 5}
        i = data.find(word)
        while i >= 0:
            starts.update((i - 1, i, i + 1, i + len(word)))
            i = data.find(word, i + 1)
        for s in sorted(x for x in starts if x >= 0):
            assert find(word, s) == data.find(word, s), (word, s)
        assert find(word) == data.find(word)


def test_small_data_and_no_extra_use_bytes_find(matcher) -> None:
    small = _TRICKY * 10
    find, may_hold = _word_finder(small)
    assert find == small.find and may_hold(_SEALED_SPELT[b"''"])
    withhold._HOT_MATCHER.append(False)      # the extra cannot be loaded
    big = _filler(_ONE_PASS_MIN)
    find, may_hold = _word_finder(big)
    assert find == big.find and may_hold(_SEALED_SPELT[b"''"])


def test_spellings_say_where_a_pair_stands_by_sealed(matcher) -> None:
    """The premise of the pair gate: a pair's 6 bytes before and 6 after hold ``sealed``
    exactly where the data holds one of the pair's spellings there (every place of the
    pair in the word, at the data's start and end too); and ``may_hold`` says so."""
    for pair in _SEALED_PAIRS:
        for k in range(7):
            for data in (b"sealed"[:k] + pair + b"sealed"[k:], b"x" * 9 + b"sealed"[:k] + pair + b"sealed"[k:] + b"y"):
                i = data.find(pair, max(0, data.find(b"sealed"[:k]) + k) if k else 0)
                assert b"sealed" in data[max(0, i - 6):i] + data[i + len(pair):i + len(pair) + 6]
                assert any(data[i - j:i - j + len(s)] == s for j, s in enumerate(_SEALED_SPELT[pair]) if i >= j)
        big = _filler(_ONE_PASS_MIN, b"")
        assert big.count(pair) > 1000
        assert not _word_finder(big)[1](_SEALED_SPELT[pair])   # the pairs, without a spelling
        for s in _SEALED_SPELT[pair]:
            assert _word_finder(big + s)[1](_SEALED_SPELT[pair])
    # every place of a pair in the tricky bytes: the condition holds where a spelling stands there
    data = _TRICKY + b"se''aled sealed'' ''sealed se\\\\aled"
    for pair in _SEALED_PAIRS:
        i = data.find(pair)
        while i >= 0:
            near = b"sealed" in data[max(0, i - 6):i] + data[i + len(pair):i + len(pair) + 6]
            assert near == any(i >= j and data[i - j:i - j + len(s)] == s for j, s in enumerate(_SEALED_SPELT[pair]))
            i = data.find(pair, i + 1)


@pytest.mark.parametrize("call", ["mem sealed show user/bank/pin", "m''em se''aled show user/bank/pin",
                                  'mem se""aled show user/bank/pin', "mem se\\aled show user/bank/pin",
                                  "mem remote key export", "age -d -i ~/.mem/vault/identity.age x.age",
                                  "age --decrypt -i id.age x.age"])
def test_large_file_answers_as_before(matcher, call) -> None:
    """A call at a large file's end is seen, as in a small file; the filler alone is not."""
    filler = _filler(_ONE_PASS_MIN)
    assert may_print_secret(filler) is False
    line = json.dumps({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "name": "Bash", "input": {"command": call}}]}}).encode() + b"\n"
    assert may_print_secret(line) is True
    assert may_print_secret(filler + line) is True
    assert may_print_secret(line + filler) is True
