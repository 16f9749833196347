"""The shortcuts recall takes for speed give the answers of the plain
computations they replace."""

import itertools
import random

from objstore.index.analysis import index_terms, stem_tokens, tokenize
from objstore.retrieval.querywords import text_terms
from objstore.retrieval.timeline import _SENTENCE_START_RE, _sentence_start, lower_words_of, normalize


def test_sentence_start_reads_backwards_as_the_regex_matches():
    alpha = ["a", "B", " ", "\n", "\t", ".", "!", "?", '"', "'", "(", "[", ")", "\u00a0", "\u2028", ",", "\r"]
    rnd = random.Random(7)
    texts = ["".join(p) for n in range(4) for p in itertools.product(alpha[:9], repeat=n)]
    texts += ["".join(rnd.choice(alpha) for _ in range(rnd.randint(0, 10))) for _ in range(3000)]
    for t in texts:
        for pos in range(len(t) + 1):
            assert _sentence_start(t, pos) == bool(_SENTENCE_START_RE.search(t[:pos])), (t, pos)


def test_normalize_and_lower_words_unchanged():
    import unicodedata
    for s in ["Postgres", "ÉCOLE", "straße", "Ｆｕｌｌ", "e\u0301", "port 8080", "ǅ"]:
        assert normalize(s) == unicodedata.normalize("NFC", s).casefold()
    assert lower_words_of(["we moved to Fly.io", "use fly.io now", "Jest"]) == {"we", "moved", "to", "use",
                                                                                 "fly.io", "now"}


def test_memoised_stems_and_text_terms():
    words = tokenize("Running databases runner formatting généralement the tests")
    assert stem_tokens(tuple(words)) == stem_tokens(tuple(words))  # second call from the memo
    assert list(stem_tokens(tuple(words))) == index_terms(" ".join(words))
    cache: dict = {}
    text = "The unit tests run with Jest; we moved the API to port 8443. " * 100
    assert text_terms(text, cache) == frozenset(index_terms(text[:4000]))
    assert text in cache and text_terms(text, cache) is cache[text]
