"""Query building for the search index.

User text is never parsed as tantivy query syntax: :func:`query_words` cuts
it into words, :func:`build_query` makes one SHOULD clause per word (term,
phrase or pairs-conjunction, or joined-term query, boosted to collection-wide IDF by the caller),
:func:`filter_clauses` adds the constant-score filters.
:func:`substring_conditions` and :func:`substring_query` are the substring
prefilter of ``mem forget --match``.  Specified in ``docs/format.md``
("Search index", "Queries" and "Substring prefilter").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import tantivy

from objstore.core.rxcache import compile_pattern
from objstore.core.text import normalize_value
from objstore.index.analysis import (
    MAX_TOKEN_BYTES,
    PLAIN_MAX_TOKEN_BYTES,
    QUERY_STOPWORDS,
    plain_stop_words,
    plain_tokens,
    stem_tokens,
    tokenize,
)
from objstore.index.schema import FLAG_LONG, GenFormat

__all__ = [
    "MAX_QUERY_WORDS",
    "build_query",
    "filter_clauses",
    "idf",
    "query_words",
    "SubstringQueries",
    "substring_conditions",
    "substring_query",
]

#: Distinct query words used; the rest of a longer query is ignored.
MAX_QUERY_WORDS = 64
#: a run of letters, marks and digits (what the analyzers make a token of, give or take CJK)
_RUN = compile_pattern(r"[^\W_]+")


def _lost_a_token(word: str) -> bool:
    """Whether the analyzer drops a token of ``word`` as too long
    (MAX_TOKEN_BYTES or more): the word's other tokens alone would find
    text that does not hold it (``<70 q>.py`` is not ``py``)."""
    return len(word.encode("utf-8", "surrogatepass")) >= MAX_TOKEN_BYTES and any(
        len(m.group().encode("utf-8", "surrogatepass")) >= MAX_TOKEN_BYTES for m in _RUN.finditer(word))



def query_words(query: str, stopwords: bool = True, raw: list[str] | None = None) -> list[tuple[str, ...]]:
    """Distinct token tuples (:func:`tokenize`) of the whitespace-separated
    query words (at most MAX_QUERY_WORDS), in query order; words without
    tokens dropped, and with ``stopwords`` single-token stop words too unless
    nothing else is left.  ``query_words("what is re-index")`` ->
    ``[("re", "index")]``.  ``raw``: filled with the query word each tuple
    came from (the first, of words with the same tokens), in the same order.
    A word with a token of MAX_TOKEN_BYTES or more (which no index holds) is
    dropped whole, not searched as its other tokens."""
    out: list[tuple[tuple[str, ...], str]] = []
    seen: set[tuple[str, ...]] = set()
    for word in query.split():
        toks = tuple(tokenize(word))
        if not toks or toks in seen or _lost_a_token(word):  # a word with an unindexable token finds nothing
            continue
        seen.add(toks)
        out.append((toks, word))
        if len(out) >= 4 * MAX_QUERY_WORDS:
            break
    if stopwords:
        content = [t for t in out if not (len(t[0]) == 1 and t[0][0] in QUERY_STOPWORDS)]
        out = content or out
    out = out[:MAX_QUERY_WORDS]
    if raw is not None:
        raw[:] = [w for _, w in out]
    return [t for t, _ in out]


def idf(doc_freq: int, num_docs: int) -> float:
    """BM25 inverse document frequency as tantivy computes it (Lucene's
    BM25Similarity): ``ln(1 + (N - n + 0.5) / (n + 0.5))`` with ``N =
    num_docs`` and ``n = min(doc_freq, N)``."""
    n = min(doc_freq, num_docs)
    return math.log(1.0 + (num_docs - n + 0.5) / (n + 0.5))


def build_query(
    schema: "tantivy.Schema",
    forms: list[tuple[str, ...]],
    joins: list[str | None],
    boost: Callable[[int, bool], float],
    required: Sequence[tuple["tantivy.Occur", "tantivy.Query"]] = (),
    made: dict | None = None,
    pairs: list[tuple[str, ...]] | None = None,
) -> "tantivy.Query | None":
    """SHOULD-combination of one sub-query per query word; None if no word.

    ``forms[i]`` are word i's terms in the generation's form, ``joins[i]``
    its alternative term (or None: ``GenFormat.joined``; a one-term word
    matches either term, a word of several terms as below).  A word of several terms is a
    phrase query on ``text`` when ``pairs`` is None (a generation with
    positions); otherwise (a generation with the ``pairs`` field) the
    conjunction of its terms on ``text`` (scored, BM25) and of its pair
    terms ``pairs[i]`` (:func:`~objstore.index.analysis.word_pairs`) on
    ``pairs`` (constant score 0: they only select).  ``boost(i, joined)`` gives the
    factor applied to word i's term/phrase query (or to its joined term),
    used to put every sub-index on collection-wide IDF.

    ``required``: constant-score-0 filter clauses (:func:`filter_clauses`)
    put beside the word clauses in the same boolean query, so tantivy
    walks the documents the filters select and scores only those, instead
    of scoring every document holding a word and then filtering.  Such a
    query also matches the filtered documents holding no word, with score
    0: the caller drops hits of score 0 (a word's BM25 score is > 0).

    ``made``: a cache of the term and phrase queries (term or token tuple
    -> query), shared by the generations of one schema within a search
    (the same words are asked of every shard)."""
    made = {} if made is None else made

    def term(t: str) -> "tantivy.Query":
        """The term query of ``t`` in ``text`` (through ``made``)."""
        q = made.get(t)
        if q is None:
            q = made[t] = tantivy.Query.term_query(schema, "text", t)
        return q

    def boosted(q: "tantivy.Query", i: int, joined: bool) -> "tantivy.Query":
        """``q`` boosted by ``boost(i, joined)`` (unchanged for 1.0)."""
        b = boost(i, joined)
        return q if b == 1.0 else tantivy.Query.boost_query(q, b)

    clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
    for i, toks in enumerate(forms):
        if len(toks) == 1:
            sub = boosted(term(toks[0]), i, False)
            if joins[i] is not None:   # a one-token word's other spelling (GenFormat.joined): either term
                sub = tantivy.Query.boolean_query(
                    [(tantivy.Occur.Should, sub), (tantivy.Occur.Should, boosted(term(joins[i]), i, True))])
        elif pairs is None:
            phrase = made.get(toks)
            if phrase is None:
                phrase = made[toks] = tantivy.Query.phrase_query(schema, "text", list(toks))
            sub = boosted(phrase, i, False)
        else:
            key = ("pairs", toks, pairs[i])
            conj = made.get(key)
            if conj is None:
                must = [(tantivy.Occur.Must, term(t)) for t in toks]
                must += [(tantivy.Occur.Must, tantivy.Query.const_score_query(
                    tantivy.Query.term_query(schema, "pairs", p), 0.0)) for p in pairs[i]]
                conj = made[key] = tantivy.Query.boolean_query(must)
            sub = boosted(conj, i, False)
            if joins[i] is not None:
                alt = boosted(term(joins[i]), i, True)
                sub = tantivy.Query.boolean_query(
                    [(tantivy.Occur.Should, sub), (tantivy.Occur.Should, alt)]
                )
        clauses.append((tantivy.Occur.Should, sub))
    if not clauses:
        return None
    return tantivy.Query.boolean_query([*clauses, *required])


def filter_clauses(
    schema: "tantivy.Schema",
    projects: Iterable[str] | None,
    exclude_refs: Iterable[str],
    roles: Iterable[str] | None,
) -> list:
    """Constant-score (0) MUST / MUST_NOT clauses for the search filters:
    ``[(tantivy.Occur, tantivy.Query)]``, ``[]`` when nothing is filtered.
    ``projects`` / ``roles`` None: no filter; an empty one matches nothing."""

    def any_of(field: str, values: Iterable[str]) -> "tantivy.Query":
        """Constant-score 0 query: ``field`` is one of ``values`` (none: matches nothing)."""
        qs = [(tantivy.Occur.Should, tantivy.Query.term_query(schema, field, v))
              for v in dict.fromkeys(values)]
        if not qs:
            return tantivy.Query.empty_query()
        return tantivy.Query.const_score_query(tantivy.Query.boolean_query(qs), 0.0)

    out = []
    if projects is not None:
        out.append((tantivy.Occur.Must, any_of("project", projects)))
    if roles is not None:
        out.append((tantivy.Occur.Must, any_of("role", roles)))
    for r in dict.fromkeys(exclude_refs):
        out.append((tantivy.Occur.MustNot, tantivy.Query.term_query(schema, "ref", r)))
    return out


def _rx_escape(token: str) -> str:
    """``token`` as a literal of tantivy's regex syntax (Rust regex)."""
    return "".join(c if ("a" <= c <= "z" or "0" <= c <= "9") else "\\x{%X}" % ord(c) for c in token)


def substring_conditions(text: str) -> tuple[list[str], list[tuple[str, bool, bool]]] | None:
    """(plain terms every candidate must hold, edge tokens ``(token,
    left_open, right_open)``: every candidate not flagged ``long`` must hold
    a plain term ending with (left-open), starting with (right-open) or
    holding (both) each) for a
    substring search of ``text``; None when the plain field cannot answer
    (no token, a token of PLAIN_MAX_TOKEN_BYTES or more, unencodable text).
    Algorithm and proof: ``docs/format.md``, "Substring prefilter".
    Raises ``ValueError`` for a non-str."""
    if not isinstance(text, str):
        raise ValueError("text must be str")
    norm = normalize_value(text)
    if not norm:
        return None
    try:
        toks, left_open, right_open = plain_tokens(norm)
        if not toks:
            return None
        if any(len(t.encode("utf-8")) >= PLAIN_MAX_TOKEN_BYTES for t in toks):
            return None
    except (UnicodeError, ValueError):  # e.g. a lone surrogate
        return None
    exact: list[str] = []
    edges: list[tuple[str, bool, bool]] = []
    last = len(toks) - 1
    for i, t in enumerate(toks):
        lo = i == 0 and left_open
        ro = i == last and right_open
        if lo or ro:
            edges.append((t, lo, ro))
        else:
            exact.append(t)
    return list(dict.fromkeys(exact)), list(dict.fromkeys(edges))


def _edge_words(t: str, lo: bool, ro: bool) -> list[str]:
    """The words of :func:`plain_stop_words` that an edge token's regex
    matches: ending with ``t`` (``lo``), starting with it (``ro``), or
    holding it (both); ~0.5 ms a token over the ~10,000 words."""
    stop = plain_stop_words()
    if lo and ro:
        return [w for w in stop if t in w]
    return [w for w in stop if w.endswith(t)] if lo else [w for w in stop if w.startswith(t)]


def _either(qs: list) -> "tantivy.Query":
    """OR of the queries ``qs`` (one or more)."""
    return qs[0] if len(qs) == 1 else tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in qs])


def _stems_of_carried(words: Iterable[str]) -> list[str]:
    """The stems (``text``'s terms) of the words of ``words`` that a
    :attr:`GenFormat.plain_vocab` generation may hold in ``plain`` only in
    a session's first document holding them (ASCII letters and digits,
    shorter than MAX_TOKEN_BYTES, changed by the stemmer), distinct."""
    ws = tuple(w for w in words if w.isascii() and w.isalnum() and len(w) < MAX_TOKEN_BYTES)
    return list(dict.fromkeys(s for w, s in zip(ws, stem_tokens(ws)) if s != w)) if ws else []


def _edge_match(words: Iterable[str], t: str, lo: bool, ro: bool) -> list[str]:
    """The words of ``words`` an edge token's regex matches: ending with
    ``t`` (``lo``), starting with it (``ro``), or holding it (both)."""
    if lo and ro:
        return [w for w in words if t in w]
    return [w for w in words if w.endswith(t)] if lo else [w for w in words if w.startswith(t)]


def substring_query(schema: "tantivy.Schema", fmt: GenFormat, exact: list[str],
                    edges: list[tuple[str, bool, bool]],
                    plain_terms: "Callable[[str], Iterable[str]] | None" = None,
                    made: dict | None = None) -> "tantivy.Query":
    """AND(term plain:t for t in exact) AND (AND(regex plain:r for each
    edge token) OR flags:long), constant score 1, for the conditions of
    :func:`substring_conditions` in a generation of format ``fmt`` with
    schema ``schema`` (an edge ``(t, lo, ro)`` is the regex ``.*t`` /
    ``t.*`` / ``.*t.*``).  With ``fmt.plain_stop`` each ``plain:`` test is
    that test on ``plain`` OR on ``plainall`` OR on ``text``, where ``text``
    is asked only for the words of :func:`plain_stop_words` (the only terms
    ``plain`` leaves to it): a term test of a listed word, and for an edge
    the listed words its regex matches (:func:`_edge_words`, one term-set
    query; a regex over ``text``'s whole term dictionary cost as much as
    the rest of the query).  With ``fmt.plain_diff`` (``plain`` holds only
    the words ``text`` does not hold as themselves) each test is that test
    on ``plain`` OR ``plainall`` OR ``text`` for every token, the regexes
    over ``text``'s whole term dictionary.  With ``fmt.plain_vocab``
    (``plain`` holds a word the stemmer changes only in a session's first
    documents holding it, every holder has its stem in ``text``) the test
    of an inner token also asks ``text`` for its stem, and an edge's test
    also asks ``text`` for the stems of the ``plain`` terms its regex
    matches (``plain_terms(prefix)``: the generation's ``plain`` terms
    starting with ``prefix``, all of them for ``""``; required for such a
    generation, which so has a query of its own).  ``ValueError`` from tantivy for a regex it
    cannot compile (e.g. an automaton too large), or without ``plain_terms``
    for a ``plain_vocab`` format.  ``made``: a memo of the regex queries
    (``{(field, regex): query}``) kept by the caller for generations of
    one schema, each compiled once (a regex query costs ~1.3 ms to build,
    three of them a generation: ~60 ms of a forget at 16 shards)."""
    regexes = [(".*" if lo else "") + _rx_escape(t) + (".*" if ro else "") for t, lo, ro in edges]
    made = {} if made is None else made

    def regex_query(field: str, r: str) -> "tantivy.Query":
        """``tantivy.Query.regex_query`` of ``field`` and ``r``, from ``made`` when built already."""
        q = made.get((field, r))
        if q is None:
            q = made[(field, r)] = tantivy.Query.regex_query(schema, field, r)
        return q

    if fmt.plain_vocab:
        if plain_terms is None:
            raise ValueError("a plain_vocab generation's substring query needs its plain terms")
        fields = ("plain", "plainall", "text")
        must = [_either([tantivy.Query.term_query(schema, f, t) for f in fields]
                        + [tantivy.Query.term_query(schema, "text", s) for s in _stems_of_carried((t,))])
                for t in exact]
        rx = []
        for r, (t, lo, ro) in zip(regexes, edges):
            qs = [regex_query(f, r) for f in fields]
            stems = _stems_of_carried(_edge_match(plain_terms(t if ro and not lo else ""), t, lo, ro))
            if stems:
                qs.append(tantivy.Query.term_set_query(schema, "text", stems))
            rx.append(_either(qs))
    elif fmt.plain_diff:
        fields = ("plain", "plainall", "text")
        must = [_either([tantivy.Query.term_query(schema, f, t) for f in fields]) for t in exact]
        rx = [_either([regex_query(f, r) for f in fields]) for r in regexes]
    elif fmt.plain_stop:
        stop = plain_stop_words()
        must = [_either([tantivy.Query.term_query(schema, f, t)
                        for f in (("plain", "plainall", "text") if t in stop else ("plain", "plainall"))])
                for t in exact]
        rx = []
        for r, edge in zip(regexes, edges):
            qs = [regex_query(f, r) for f in ("plain", "plainall")]
            words = _edge_words(*edge)
            if words:
                qs.append(tantivy.Query.term_set_query(schema, "text", words))
            rx.append(_either(qs))
    else:
        must = [tantivy.Query.term_query(schema, "plain", t) for t in exact]
        rx = [regex_query("plain", r) for r in regexes]
    if edges:
        e = rx[0] if len(rx) == 1 else tantivy.Query.boolean_query([(tantivy.Occur.Must, q) for q in rx])
        must.append(tantivy.Query.boolean_query([
            (tantivy.Occur.Should, e),
            (tantivy.Occur.Should, tantivy.Query.term_query(schema, "flags", FLAG_LONG)),
        ]))
    q = must[0] if len(must) == 1 else tantivy.Query.boolean_query([(tantivy.Occur.Must, m) for m in must])
    return tantivy.Query.const_score_query(q, 1.0)


class SubstringQueries:
    """The substring prefilter's query (:func:`substring_query`) of one
    needle's conditions (``exact``, ``edges``: :func:`substring_conditions`)
    in each generation of a search: generations whose schemas are equal
    (so are their formats) share one query, and a
    :attr:`GenFormat.plain_vocab` generation, whose query names stems of
    its own ``plain`` terms, has its own query built from the regex
    queries of its schema compiled once (``made`` of :func:`substring_query`)."""

    __slots__ = ("exact", "edges", "_schemas")

    def __init__(self, exact: list[str], edges: list[tuple[str, bool, bool]]) -> None:
        self.exact, self.edges = exact, edges
        self._schemas: list[tuple["tantivy.Schema", dict]] = []   # (schema, its memo)

    def query(self, schema: "tantivy.Schema", fmt: GenFormat,
              plain_terms: "Callable[[str], Iterable[str]]") -> "tantivy.Query":
        """The query of a generation of format ``fmt`` and schema ``schema``
        (``plain_terms``: as for :func:`substring_query`, called only for a
        ``plain_vocab`` format).  ``ValueError`` as :func:`substring_query`."""
        memo = next((m for sc, m in self._schemas if sc == schema), None)
        if memo is None:
            memo = {}
            self._schemas.append((schema, memo))
        q = None if fmt.plain_vocab else memo.get("query")
        if q is None:
            q = substring_query(schema, fmt, self.exact, self.edges, plain_terms, memo)
            if not fmt.plain_vocab:
                memo["query"] = q
        return q
