"""Which of a phrasing's BM25 turn hits are about the question, for recall
(:func:`objstore.retrieval.recall.rank_query`): the *content gate* and the
*coverage factor*, both read from what each hit holds of the question's
words (the index's postings, ``SearchIndex.held_words``; the turn's text
where the index cannot say).

Content gate.  A question's *content words* are its words less the query
stop words (``QUERY_STOPWORDS``), the words too common in prompts to be
cues (:data:`~objstore.retrieval.querywords.GENERIC_WORDS`: "use", "fix",
"file" …) and the names of the fields an agent's tool calls are stored
with (:data:`FIELD_WORDS`: ``[tool_use Bash] {"command": …}``), compared
as typed and as stemmed by the index.  BM25 sums what each word matches,
so "which port does postgres use" ranks every turn holding "use" (each
tool call's ``tool_use`` marker) when no turn of the project says postgres
or port; recall then answered with ten unrelated turns (test27 V25).  When
the question has a content word, a turn hit holding none of them is
dropped: "nothing recalled", as for a question none of whose words
match.  A question of generic words only ("what do we use") is not gated;
a turn inside a time span the question names ("what did we do on 3 May")
is kept whatever words it holds (the date found it, not its words).

Coverage factor: :func:`with_coverage`.  No store writes, never prints."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from objstore.core.store import Store
from objstore.retrieval.querywords import GENERIC_WORDS, held_terms

#: Names of the fields of agents' tool calls and results as transcripts
#: store them (``[tool_use Bash] {"command": …, "description": …}``, a
#: TodoWrite's ``{"content": …, "status": …, "priority": …}``): held by
#: every tool call, they tell no turn apart, so they are no content word of
#: a question either (they still rank: only the gate leaves them out).
FIELD_WORDS = frozenset("""
tool command description content contents path todos todo status priority activeform string pattern
args arguments input output result type text
""".split())


def content_words(query: str, stopwords: bool = True) -> list[frozenset[str]]:
    """The content words of ``query`` (module docstring) as the sets of
    index terms (``index_terms``, stemmed) a turn must hold all of:
    ``content_words("which port does postgres use")`` ->
    ``[{"port"}, {"postgr"}]``; a word of several tokens is one set
    (``m34.py`` -> ``{"m34", "py"}``), kept when one of its tokens is a
    content word.  One-character tokens are no content word, nor needed
    (``Melanie's`` -> ``{"melani"}``).  ``[]``:
    nothing to gate on, also when every word the search matches is a
    content word (``stopwords``: the search drops the stop words), since
    then every hit holds one (no postings need reading)."""
    from objstore.index.searchindex import QUERY_STOPWORDS, index_terms, tokenize  # deferred: tantivy
    skip = QUERY_STOPWORDS | GENERIC_WORDS | FIELD_WORDS
    out: list[frozenset[str]] = []
    other = False   # a word the search matches that is no content word
    for word in query.split():
        toks = tokenize(word)
        if not any(len(t) > 1 and t not in skip and not set(index_terms(t)) <= skip for t in toks):
            other = other or bool(toks) and not (stopwords and len(toks) == 1 and toks[0] in QUERY_STOPWORDS)
            continue
        terms = frozenset(index_terms(" ".join(t for t in toks if len(t) > 1)))   # not the "s" of "Melanie's"
        if terms and terms not in out:
            out.append(terms)
    return out if other else []


def held_of_hits(store: Store, hits: Sequence, words: Sequence[str],
                 read: Callable[[str], str | None]) -> dict[str, frozenset[str]]:
    """``{turn hit id: the index terms of ``words`` (tokens) it holds}``
    for the turn hits of ``hits`` (``searchindex.Hit``): from the index's
    postings (``SearchIndex.held_words``), else from the turn's whole
    text (``read(id)``: its text, None if unreadable: the hit is left
    out).  A term is ``index_terms`` of its word (stemmed as the
    generation that answered may not be: held_words reads its format).
    Raises ``IndexCorruptError``."""
    from objstore.index.searchindex import index_terms  # deferred: tantivy
    term = {w: t[0] for w in dict.fromkeys(words) if len(t := index_terms(w)) == 1}
    if not term:
        return {}
    want = frozenset(term.values())
    turns = [(h.ref, h.seq, h.id) for h in hits if h.kind == "turn"]
    held = store.index.held_words(turns, list(term)) if turns else {}
    out: dict[str, frozenset[str]] = {}
    for _ref, _seq, oid in turns:
        got = held.get(oid)
        if got is not None:
            out[oid] = frozenset(term[w] for w in got if w in term)
        elif (text := read(oid)) is not None:
            out[oid] = held_terms(text) & want
    return out


def gate_keeps(hit, gate: list[frozenset[str]], held: dict[str, frozenset[str]],
               windows: Sequence[tuple[int, int]] = ()) -> bool:
    """Whether the content gate keeps ``hit`` (module docstring): not a
    turn, no content word to gate on (``gate``: :func:`content_words`),
    a turn inside one of ``windows`` (ms spans, end exclusive), a turn
    whose held terms (``held``: :func:`held_of_hits`) cannot be read, or
    one holding every term of one content word."""
    if hit.kind != "turn" or not gate or any(a <= hit.time < b for a, b in windows):
        return True
    got = held.get(hit.id)
    return got is None or any(w <= got for w in gate)


def with_coverage(hits: Sequence, score: list[float], weight: dict[str, float], exponent: float,
                  held: dict[str, frozenset[str]]) -> None:
    """Multiply ``score[i]`` of each turn hit ``hits[i]`` by ``coverage **
    exponent``: the share of the query's IDF mass (``weight``:
    :func:`coverage_weights`) that the turn holds (``held``:
    :func:`held_of_hits` of those words; a hit absent from it keeps its
    score).  BM25 lets one rare word repeated in a short turn outrank a
    turn holding most of the question's words; the coverage factor is the
    coordination factor of Lucene's classic similarity, weighted by IDF.
    What a turn holds is read from the index's postings
    (docs/benchmarks.md, session 24, lat24), else from its whole text
    (``held_terms``: the same words whatever the generation's format)."""
    total = sum(weight.values())
    if not total or len(weight) < 2:
        return  # one word: every hit holds it
    for i, h in enumerate(hits):
        if h.kind == "turn" and (have := held.get(h.id)) is not None:
            score[i] = score[i] * (sum(weight[x] for x in have if x in weight) / total) ** exponent


def coverage_weights(idf: dict[str, float]) -> dict[str, float]:
    """``{index term: IDF}`` of the single-term words of ``idf`` (query
    word -> IDF: its single-token content words with the IDF the search
    scored them with, in the project scope with ``scope_idf``), a term's
    highest: the weights of :func:`with_coverage` (fewer than two: no
    coverage factor)."""
    from objstore.index.searchindex import index_terms  # deferred: tantivy
    weight: dict[str, float] = {}
    for w, v in idf.items():
        t = index_terms(w)
        if len(t) == 1:
            weight[t[0]] = max(weight.get(t[0], 0.0), v)
    return weight
