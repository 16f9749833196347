"""make_snippet on a passage that is not ASCII (rcl23): the same window as
the word-by-word reading, without one analyzer call per word."""

from __future__ import annotations

import re

import pytest

from objstore.index import analysis
from objstore.index.analysis import QUERY_STOPWORDS, stem_tokens, tokenize, word_tokens
from objstore.index.snippets import make_snippet

WORDS = ["plain", "Mixed-Case", "auth.py", "x" * 63, "y" * 64, "a" * 70 + "-b", "Café", "naïve", "Straße",
         "ﬁle", "½", "日本語", "10→If", "\x1b[31mred\x1b[0m", "“quoted”", "queries", "dying", "", "---"]

# every character of these passages but one is ASCII: the reading a word at a time applies
PASSAGES = [
    "The migration failed twice → we rolled back the database and retried the queries later. " * 40,
    "Nothing here names the question’s words at all, only ordinary prose — " * 60,
    "Straße ﬁle ½ 日本語 caf\u00e9 café resumé " * 5 + "the happy path copied the query " * 30,
    "colour \x1b[31mred\x1b[0m text → with an escape " * 20,
]
QUERIES = ["database migration", "queries", "happiness", "cafe", "strasse", "parebuq fekivik", "copy", "red"]


def _reference(text: str, query: str, width: int) -> int | None:
    """Where the first word holding a query token or stem starts, read one
    word at a time (the definition make_snippet's window follows)."""
    flat = " ".join(analysis.nfc(text).split())
    toks = set(tokenize(query))
    toks = (toks - QUERY_STOPWORDS) or toks
    stems = set(stem_tokens(tuple(toks)))
    for m in re.finditer(r"\S+", flat):
        wt = word_tokens(m.group())
        if any(t in toks for t in wt) or any(s in stems for s in stem_tokens(wt)):
            return m.start()
    return None


@pytest.mark.parametrize("word", WORDS)
def test_word_tokens_of_a_word_are_the_analyzers(word):
    # an ASCII word without ESC is tokenized by a regex (rcl23): the same tokens as the analyzer
    analysis._WORDS.clear()
    assert word_tokens(word) == tuple(tokenize(word))
    assert word_tokens(word) == tuple(tokenize(word))  # memoised


def test_stems_in_one_call_are_the_stems_one_at_a_time():
    toks = ("running", "databases", "queries", "happy", "dying", "x" * 70, "caf", "ab1", "日", "é", "", "a-b")
    analysis._STEMS.clear()
    each = [stem_tokens((t,)) for t in toks]
    analysis._STEMS.clear()
    assert stem_tokens(toks) == tuple(s for (s,) in each)


@pytest.mark.parametrize("text", PASSAGES)
@pytest.mark.parametrize("query", QUERIES)
def test_the_window_is_the_word_by_word_one(text, query):
    for cold in (True, False):
        if cold:
            analysis._WORDS.clear()
            analysis._STEMS.clear()
        snip = make_snippet(text, query, 120)
        flat = " ".join(analysis.nfc(text).split())
        at = _reference(text, query, 120)
        if at is None:
            assert snip == flat[:120].strip() + "…"
        else:
            body = snip.strip("…")
            assert body in flat and flat.index(body) <= at < flat.index(body) + len(body) + 1


def test_a_passage_holding_no_query_word_is_not_read_word_by_word():
    # fails before rcl23: every word of the passage went through the analyzer (and its memo), one call each
    text = "".join(f"step {i} → check the w{i} result and move on; " for i in range(300))
    analysis._WORDS.clear()
    analysis._STEMS.clear()
    assert make_snippet(text, "parebuq fekivik", 160) == " ".join(text.split())[:160].strip() + "…"
    assert len(analysis._WORDS) < 10


def test_a_passage_holding_the_word_late_finds_it():
    text = "".join(f"step {i} → check the w{i} result; " for i in range(300)) + "then the database migrations ran"
    snip = make_snippet(text, "database migration", 60)
    assert "database migrations" in snip and snip.startswith("…")


def test_a_snippet_compiles_no_fixed_pattern_by_re():
    """The word run a snippet's window starts at is a kept program
    (``objstore.core.rxcache``), not a ``re`` compile in each new
    ``recall`` process (lat38); the query's own pattern still is one."""
    import re

    from objstore.index.snippets import make_snippet
    re.purge()
    text = "x " * 200 + "we moved the staging database to port 5433 last week " + "y " * 200
    got = make_snippet(text, "staging port", width=40)   # longer than the window: the token is looked for
    assert got == "…moved the staging database to port 5433…"
    assert r"\S+" not in [k[1] for k in re._cache], list(re._cache)
