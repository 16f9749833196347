"""Query words for recall (:mod:`objstore.retrieval.recall`): the terms a
text and a question hold, and the rewrites of a question before it is
searched (scope words dropped, agent nouns searched as their verb, the
answer a quantity question expects).  Pure functions over the index's
analysis (``objstore.index.searchindex``: tokens, stems, query stop
words); only :func:`with_base_forms` reads the store (document
frequencies).  Never writes, never prints."""

from __future__ import annotations

from collections.abc import Sequence

from objstore.core.rxcache import IGNORECASE, compile_pattern
from objstore.core.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re


#: Words too common in prompts to be cues (beyond the index's stop words):
#: the prompt hook's cues (``inject.extract_cues``) and recall's content words
#: (``relevance.content_words``) leave them out.
GENERIC_WORDS = frozenset("""
able actually add added also always another anything anyway around ask back bad be best better
big bit call can change changed changes check code could create current currently do does doing
done dont either else every everything example file files find fine first fix fixed following
get gets give go going good got great help here hey hi how instead issue it just keep know last
let lets like line lines look looks lot make makes many maybe mean might more much must need
needs new next nice no not now number ok okay old one only open other please probably put quick
quickly re really right run same say see seems set should show simple since so some something
still sure take tell than thank thanks that thing things think this time try two up update use
used using want way well what whole why will with without work works would write wrong yeah yes
you
""".split())

#: words that open a question typed without its "?" ("which port does the api use"): the prompt hook's
#: gate and the time rules (``restated``) read a question by them
ASKING_WORDS = frozenset("what which where who whose why how is are does can could should would will".split())


def text_terms(text: str, cache: dict[str, frozenset[str]] | None = None) -> frozenset[str]:
    """The distinct index terms (``index_terms``, stemmed) of the first
    4,000 characters of ``text``, through ``cache`` (text -> terms) when
    given: the supersession rule reads the terms of the same texts more
    than once (what ranks and matches a turn: :func:`held_terms`)."""
    got = cache.get(text) if cache is not None else None
    if got is None:
        from objstore.index.searchindex import index_terms  # deferred: tantivy
        got = frozenset(index_terms(text[:4000]))
        if cache is not None:
            cache[text] = got
    return got


def held_terms(text: str) -> frozenset[str]:
    """The distinct index terms (``index_terms``, stemmed) of the whole of
    ``text``: what the index's postings hold of a turn
    (``SearchIndex.held_words``), read from its text where the index cannot
    say (a generation that does not stem or has no ``seq``), so that recall's
    coverage factor and the prompt hook's matched terms count the same words
    of a long turn whatever its generation's format (session 24, snb24)."""
    from objstore.index.searchindex import index_terms  # deferred: tantivy
    return frozenset(index_terms(text))


def without_scope_words(query: str, projects: Sequence[str] | None) -> str:
    """``query`` without the words that only name the project in scope
    (every word whose tokens are all tokens of a project alias): inside
    the scope every document is that project's, so they tell nothing apart
    and only favour the texts that happen to repeat the name.  The query
    is returned whole when nothing else would be left."""
    if not projects:
        return query
    from objstore.index.searchindex import tokenize  # deferred: tantivy
    names = {t for p in projects for t in tokenize(p)}
    kept = [w for w in query.split() if not (toks := tokenize(w)) or not set(toks) <= names]
    return " ".join(kept) if any(tokenize(w) for w in kept) else query


_MEASURES: list[tuple[re.Pattern, re.Pattern]] = []  # (question, answer), compiled on first use
#: a word every match of a question pattern of :data:`_MEASURES` holds (an
#: ASCII query holding none of them asks for no quantity)
_MEASURE_ANCHORS = ("how", "size", "duration", "number")


def measure_pattern(query: str) -> re.Pattern | None:
    """What a question asking for a quantity expects in its answer, as a
    pattern over a passage: "how large / how big / … size …" -> a number
    with a size unit (``25 MB``, ``2GiB``, ``512 bytes``); "how long / how
    often / … duration …" -> a number with a time unit (``600 seconds``,
    ``3 days``, ``45s``); "how many / number of" -> a number.  None for
    any other question.  (The expected answer type of question answering;
    the units are the common ones, English.)"""
    if query.isascii() and not any(w in query.lower() for w in _MEASURE_ANCHORS):
        return None   # no question word of a quantity: the six patterns need not be compiled (~0.5 ms)
    if not _MEASURES:
        n = r"\d+(?:[.,]\d+)?\s*"
        _MEASURES.extend([
            (compile_pattern(r"\bhow (?:large|big|much (?:space|disk|memory|storage))\b|\bsizes?\b", IGNORECASE),
             compile_pattern(n + r"(?:[kmgtp]i?b|bytes?|b)\b", IGNORECASE)),
            (compile_pattern(r"\bhow (?:long|often)\b|\bdurations?\b", IGNORECASE),
             compile_pattern(n + r"(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|"
                            r"months?|years?)\b", IGNORECASE)),
            (compile_pattern(r"\bhow many\b|\bnumber of\b", IGNORECASE), compile_pattern(r"(?<![\w.])\d+(?![\w.]\d)")),
        ])
    for asks, answer in _MEASURES:
        if asks.search(query):
            return answer
    return None


def agent_noun_base(word: str) -> str | None:
    """The verb an agent noun is made from, as a token: ``runner`` ->
    ``run``, ``linter`` -> ``lint``, ``formatter`` -> ``format``,
    ``bundler`` -> ``bundl`` (the stem of ``bundle``); None for a word
    that does not end in -er/-or (plural -s allowed) after at least 3
    letters."""
    w = word[:-1] if word.endswith(("ers", "ors")) else word
    if len(w) < 5 or not w.endswith(("er", "or")) or not w.isalpha():
        return None
    base = w[:-2]
    if len(base) >= 3 and base[-1] == base[-2] and base[-1] not in "aeiouls":
        base = base[:-1]  # runn -> run, formatt -> format
    return base


def with_base_forms(store: Store, query: str, *, kinds: tuple[str, ...], projects: Sequence[str] | None,
                    scope: bool = True) -> str:
    """``query`` with each agent noun that no document of the scope holds
    replaced by the verb it is made from, when some document holds that
    (:func:`agent_noun_base`: "which test runner do we use" -> "… test run
    …" where the turns say "the unit tests run with Jest"; "which linter"
    -> "lint").  A word the scope uses is left alone, so "runner" stays
    where people say "test runner".  Costs one document-frequency lookup
    per such word (the counts are cached for the search)."""
    from objstore.index.searchindex import QUERY_STOPWORDS, tokenize  # deferred: tantivy
    swaps: dict[str, str] = {}
    for w in query.split():
        toks = tokenize(w)
        if len(toks) == 1 and toks[0] not in QUERY_STOPWORDS:
            base = agent_noun_base(toks[0])
            if base is not None:
                swaps[w] = base
    if not swaps:
        return query
    scoped = None if projects is None or not scope else [*projects, ""]
    _n, df = store.index.term_stats([t for w in swaps for t in (tokenize(w)[0], swaps[w])], kinds=kinds,
                                    projects=scoped)
    out = []
    for w in query.split():
        b = swaps.get(w)
        out.append(b if b is not None and not df[tokenize(w)[0]] and df[b] else w)
    return " ".join(out)


def question_terms(queries: Sequence[str]) -> tuple[set[str], set[str]]:
    """``(stems, words)`` of the content words of the phrasings: stemmed
    terms as the index holds them, and the normalized words themselves
    (stop words dropped, unless nothing else is left)."""
    from objstore.index.searchindex import QUERY_STOPWORDS, index_terms, tokenize  # deferred: tantivy
    words: list[str] = []
    for q in queries:
        words += tokenize(q)
    content = [w for w in words if w not in QUERY_STOPWORDS] or words
    stems = set(index_terms(" ".join(content))) if content else set()
    return stems, set(content)


_STOP: list = []


def stop_stems() -> frozenset[str]:
    """The stems of the query stop words (computed once)."""
    if not _STOP:
        from objstore.index.searchindex import QUERY_STOPWORDS, index_terms  # deferred: tantivy
        _STOP.append(frozenset(index_terms(" ".join(sorted(QUERY_STOPWORDS)))) | QUERY_STOPWORDS)
    return _STOP[0]
