"""imp33: ``withhold.may_print_secret`` finds its six words in one pass over a large
transcript (``_word_finder``, with the optional ``ahocorasick_rs``) instead of six passes
of ``bytes.find``.  The cut is exact: the finder answers every ``find(word, start)``
as ``bytes.find`` does (overlapping occurrences of a word, a word inside another's
bytes, the file's ends), so the same offsets are read and the same answer given."""

from __future__ import annotations

import json

import pytest

from objstore.capture import withhold
from objstore.capture.withhold import _HOT_WORDS, _ONE_PASS_MIN, _word_finder, may_print_secret

#: every word, overlapping runs of the pairs ("''''", '\\"\\"\\"'), words inside others'
#: bytes ("--d", "\\\\\\\\-d"), near-misses ("seale", "remot")
_TRICKY = (b"sealed remote '''' \\\"\\\"\\\"\\\" \\\\\\\\\\ --decrypt -d --d sealedsealed remoteremote "
           b"se''aled se\\\"\\\"aled se\\\\aled seale remot -\n-d x\\\\-d '\\\"'\"\" ")


def _filler(n: int) -> bytes:
    """``n``-odd bytes of transcript-like JSON lines holding every word, none a call that prints a secret."""
    rec = json.dumps({"type": "user", "message": {"content": "ls -d /srv && git remote -v; echo 'it''s'"},
                      "uuid": "0d1e-d2f3-dd", "note": "a \\\"quoted\\\" word"}).encode() + b"\n"
    return (rec + _TRICKY) * (n // (len(rec) + len(_TRICKY)) + 1)


@pytest.fixture()
def matcher():
    pytest.importorskip("ahocorasick_rs")
    saved = list(withhold._HOT_MATCHER)
    withhold._HOT_MATCHER.clear()
    yield
    withhold._HOT_MATCHER[:] = saved


def test_finder_answers_as_bytes_find(matcher) -> None:
    data = _TRICKY + _filler(_ONE_PASS_MIN) + _TRICKY
    find = _word_finder(data)
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
    assert _word_finder(small) == small.find
    withhold._HOT_MATCHER.append(False)      # the extra cannot be loaded
    big = _filler(_ONE_PASS_MIN)
    assert _word_finder(big) == big.find


@pytest.mark.parametrize("call", ["mem sealed show user/bank/pin", "m''em se''aled show user/bank/pin",
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
