"""The glued-word check of a search (``docs/format.md``, "Search index
(derived)"): :func:`check_glued` scores again, without the words they do not
hold glued, the hits of generations that answer a multi-token word with the
bare conjunction of its terms; :data:`GLUED_FETCH` is how many times
``limit`` hits such a search fetches first.

Split from :mod:`objstore.index.reading` (which calls it from
``SearchIndexReads.search`` and re-exports ``GLUED_FETCH``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import tantivy

from objstore.index.analysis import glued_in, holds_term
from objstore.index.errors import IndexCorruptError
from objstore.index.query import build_query
from objstore.index.schema import Hit, id_query

#: With ``texts``, a search over a generation without ``pairs`` fetches this
#: many times ``limit`` hits before checking them (a hit below that rank is
#: not reached even if glued words of better-ranked ones fail the check).
GLUED_FETCH = 3


def check_glued(hits: list[Hit], found: list, opened: list, rescore: dict, forms: list, joins: list,
                 pairs: list, texts: Callable[[list[str]], Mapping[str, str]], limit: int) -> list[Hit]:
    """``hits`` (best first; ``found[k]`` = (score, generation, doc address)
    of ``hits[k]``) with the hits of the generations in ``rescore`` (those
    answering a multi-token word with the bare conjunction of its terms)
    checked: for each multi-token word whose ``pairs`` its text (from
    ``texts``) does not hold (:func:`glued_in`), the hit is scored again by
    tantivy with those words left out, restricted to the hits that fail
    alike; one that then matches nothing is dropped.  The scores are those
    a generation with ``pairs`` gives the same documents.  Hits are checked
    best first, ``limit`` at a time, until ``limit`` settled ones score
    more than the next one's unchecked score (a check only lowers a score): the
    rest are left out, and only the texts of the checked ones are read."""
    final: dict[int, float] = {}
    pos = 0
    while pos < len(hits):
        nxt = hits[pos].score
        if sum(1 for v in final.values() if v > nxt) >= limit:  # (a tie may still win on time)
            break
        batch = list(range(pos, min(len(hits), pos + limit)))
        pos = batch[-1] + 1
        cand = []
        for k in batch:
            i = found[k][1]
            if i in rescore and any(pairs[w] for w in rescore[i][3]):
                cand.append(k)
            else:
                final[k] = hits[k].score
        if not cand:
            continue
        body = texts([hits[k].id for k in cand])
        groups: dict[tuple[int, frozenset], list[int]] = {}
        for k in cand:
            i = found[k][1]
            t = body.get(hits[k].id)
            stem = opened[i].fmt.analyzer == "stem"
            failing = frozenset() if t is None else frozenset(  # neither glued nor its joined term
                w for w in rescore[i][3]
                if pairs[w] and not glued_in(t, pairs[w]) and not holds_term(t, joins[i][w], stem))
            if failing:
                groups.setdefault((i, failing), []).append(k)
            else:
                final[k] = hits[k].score
        for (i, failing), ks in groups.items():
            schema, filters, made, keep, bw, bj = rescore[i]
            o = opened[i]
            idx = [n for n, w in enumerate(keep) if w not in failing]
            new: dict[tuple[int, int], float] = {}
            if idx:
                def boost(k: int, joined: bool, idx: list[int] = idx, bw: list = bw, bj: list = bj) -> float:
                    """The factor of the ``k``-th word left."""
                    return bj[idx[k]] if joined else bw[idx[k]]
                ids_q = tantivy.Query.boolean_query([
                    (tantivy.Occur.Should, id_query(schema, o.fmt, hits[k].id))
                    for k in ks])
                q = build_query(schema, [forms[i][keep[n]] for n in idx], [joins[i][keep[n]] for n in idx],
                                boost, made=made, pairs=[() for _ in idx],
                                required=[*filters, (tantivy.Occur.Must,
                                                     tantivy.Query.const_score_query(ids_q, 0.0))])
                try:
                    new = {(a.segment_ord, a.doc): sc for sc, a in o.searcher.search(q, len(ks), count=False).hits}
                except ValueError as e:
                    raise IndexCorruptError(f"search in {o.sub.dir / o.name} failed: {e}") from e
            for k in ks:
                a = found[k][2]
                final[k] = new.get((a.segment_ord, a.doc), 0.0)
    return [h if final[k] == h.score else h.replace(score=final[k])
            for k, h in enumerate(hits) if final.get(k, 0.0) > 0.0]
