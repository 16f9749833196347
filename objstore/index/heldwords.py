"""Which query words indexed turns hold, read from the index instead of
from the turns' texts (issue 12, "Start-up": a new ``mem recall`` read every
turn hit's object only to learn which of the question's words it holds, for
the coverage factor; the prompt hook every turn candidate's, for its matched
terms; ``docs/benchmarks.md``, "Session 24 (branch `lat24`)").

The answer is the ``text`` field's postings: a turn holds a word when its
document holds the word's term(s) in that field (:meth:`GenFormat.token_terms`;
a token a ``simple`` format cuts into several terms: all of them), which
covers the whole indexed body (the stored turn text, escapes removed,
NFC), stemmed as the index stems it.  Per generation holding a turn asked
about: one query selecting those turns by ``ref`` and ``seq`` (their
addresses and ids, :func:`~objstore.index.docids.ids_at`), then one per
word, that selection AND the word's terms (addresses compared).  Queries and
fields: ``docs/format.md``, "Search index (derived)".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import tantivy

from objstore.index.genmanifest import OpenGeneration
from objstore.index.docids import ids_at

__all__ = ["WORDS_PER_QUERY", "held_words"]

#: words asked about in one query (bit k of a document's score: the query's k-th word)
WORDS_PER_QUERY = 16


def held_words(opened: Sequence[OpenGeneration], turns: Iterable[tuple[str, int, str]],
               words: Sequence[str]) -> dict[str, frozenset[str]]:
    """``{turn id: the words of ``words`` its indexed text holds}`` for the
    turns ``turns`` (``(session id, seq, object id)``, the id 64 lowercase
    hex), read from the open turn generations ``opened``
    (``SearchIndexLookups._open_searchers(("turn",))``).

    ``words`` are :func:`~objstore.index.analysis.tokenize` tokens; a word
    is held when the turn's document holds every term of it in the
    generation's form (stemmed in a ``stem`` generation).  A turn missing
    from the answer is not known here (the caller reads its text): not
    found live in any generation, or in a generation whose analyzer does
    not stem or that records no ``seq`` (before session 7).  Raises
    ``ValueError`` (tantivy) for a damaged generation.
    """
    want: dict[tuple[str, int], str] = {(s, int(q)): oid for s, q, oid in turns}
    out: dict[str, frozenset[str]] = {}
    words = list(dict.fromkeys(words))
    if not want:
        return out
    asked = set(want.values())
    for o in opened:
        fmt = o.fmt
        if fmt.analyzer != "stem" or not fmt.has_seq:
            continue
        searcher = o.searcher
        mine = [(s, q) for s, q in want if searcher.doc_freq("ref", s)]
        if not mine:
            continue
        schema = o.index.schema
        term, const = tantivy.Query.term_query, tantivy.Query.const_score_query
        must, should = tantivy.Occur.Must, tantivy.Occur.Should
        chosen = const(tantivy.Query.boolean_query([
            (should, tantivy.Query.boolean_query([(must, term(schema, "ref", s)), (must, term(schema, "seq", q))]))
            for s, q in mine]), 0.0)
        # word j held adds 2 ** j to the score: one query answers for every word (f32 sums of
        # distinct powers of two below 2 ** 24 are exact)
        present = [(j, fmt.token_terms(w)) for j, w in enumerate(words)]
        present = [(j, ts) for j, ts in present if ts and all(searcher.doc_freq("text", t) for t in ts)]
        held: dict[str, list[str]] = {}
        for at in range(0, max(len(present), 1), WORDS_PER_QUERY):
            part = present[at:at + WORDS_PER_QUERY]
            q = tantivy.Query.boolean_query([(must, chosen), *(
                (should, const(term(schema, "text", ts[0]) if len(ts) == 1 else tantivy.Query.boolean_query(
                    [(must, term(schema, "text", t)) for t in ts]), float(1 << k))) for k, (_j, ts) in enumerate(part))])
            found = searcher.search(q, 2 * len(mine) + 2, count=False).hits  # room for a damaged index's twins
            # (a prefix-id generation's ids: the asked turns' own, whose first 16 bytes it holds)
            for (score, _a), oid in zip(found, ids_at(searcher, fmt, [a for _score, a in found], known=asked)):
                if oid in asked:
                    mask = int(score)
                    held.setdefault(oid, []).extend(words[j] for k, (j, _ts) in enumerate(part) if mask >> k & 1)
        for oid, got in held.items():
            out[oid] = frozenset(got)
    return out
