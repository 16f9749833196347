"""[tail deletes] A forget's deletes of a rewritten session's tail in one
query, not one per turn.

Forgetting an early turn of a long session rewrites every later turn (each
names the one before it: ``docs/forget.md``, step 2), so the purge of the
turns index deletes the old documents of the whole tail.  In a ``col_id``
generation a document is found by its id through two column range queries
(:func:`~objstore.index.docids.id_query`), each a scan of the columns: one
per turn of a 60,000-turn tail made the purge's commit and its segment
look-ups quadratic (test26 V17).  The tail of session ``S`` from ``seq`` k
on is one query instead, ``ref:S AND seq >= k`` (both indexed), used only
when every live document it finds is one the forget deletes, so it never
deletes a document the forget keeps; the ids it does not cover are deleted
one by one as before.
"""

from __future__ import annotations

import tantivy

from objstore.index.docids import ids_at


def tail_query(schema: "tantivy.Schema", sid: str, first_seq: int) -> "tantivy.Query":
    """The documents of session ``sid`` (``ref``) whose ``seq`` is at least ``first_seq``."""
    return tantivy.Query.boolean_query([
        (tantivy.Occur.Must, tantivy.Query.term_query(schema, "ref", sid)),
        (tantivy.Occur.Must, tantivy.Query.range_query(schema, "seq", tantivy.FieldType.Integer, first_seq, None,
                                                        use_inverted_index=True))])


def tail_deletes(sr: "tantivy.Searcher", schema: "tantivy.Schema", fmt, tails: dict[str, int],
                 present: "set[str]", resolve=None) -> "tuple[list[tuple[str, int]], dict[str, int]]":
    """For each ``session -> first seq`` of ``tails`` (a forget's rewritten
    or forgotten sessions), the :func:`tail_query` of a generation read by
    ``sr`` (schema ``schema``, format ``fmt``) when every live document it
    finds holds an id of ``present`` (the doomed ids the generation holds),
    and it finds one at least.  Returns ``(those tails, as (session, first
    seq), {id: segment_ord} of the documents their queries find})`` (a
    writer deletes by :func:`tail_query` of its own index's schema);
    ``([], {})`` for a generation without
    an indexed ``seq``.  ``resolve``: the index's id resolver
    (:func:`~objstore.index.docids.ids_at`).  Reads only."""
    queries: list = []
    where: dict[str, int] = {}
    if not tails or not fmt.has_seq or not int(sr.num_docs):
        return queries, where
    n = int(sr.num_docs)
    for sid, first in tails.items():
        q = tail_query(schema, sid, first)
        addrs = [a for _s, a in sr.search(q, n).hits]
        if not addrs:
            continue
        ids = ids_at(sr, fmt, addrs, resolve, present)
        if all(i in present for i in ids):
            queries.append((sid, first))
            where.update((i, a.segment_ord) for i, a in zip(ids, addrs))
    return queries, where
