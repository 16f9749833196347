"""Recall's time order: the supersession rule of ``timeline`` applied to the
hits recall materialised, each hit that something superseded marked
``updated_later``.  Split from ``objstore.retrieval.recall`` (session 37),
with the bound a turn's stored time puts on its stamp
(``objstore.retrieval.storedat``, test36 T18): a turn that supersedes a
fact only by a stamp later than the time the store held it, which is
before the fact's version, is read as of that stored time, and the order
is decided again.
"""

from __future__ import annotations

from collections.abc import Sequence

from objstore.core.store import Store, now_ms
from objstore.retrieval.recalltypes import RecallHit, RecallOptions
from objstore.retrieval.timeitems import FUTURE_SLACK_MS, Said, time_items
from objstore.retrieval.timeline import order_by_time


def order_hits_by_time(store: Store, hits: list[RecallHit], extra: Sequence, queries: Sequence[str],
                       opts: RecallOptions, terms_cache: dict[str, frozenset[str]] | None = None,
                       lower: set[str] | None = None) -> list[RecallHit]:
    """``hits`` in the time rule's order (``timeline.order_by_time``), each
    superseded one with ``updated_later`` (the superseding item: ``kind``,
    ``id``, ``time``, ``date``, ``text``, and ``key`` or ``session`` and
    ``seq``).  ``extra``: one per hit, with ``full`` (its whole text),
    ``old_bodies``, ``rel`` (its relevance) and ``anchor`` (for a probe,
    the index of the hit it was found from: kept only where it supersedes
    that hit).  ``lower``: ``timeline.lower_words_of`` the texts (None:
    read here).  Never raises for a damaged store (an unreadable reflog
    bounds nothing)."""
    times = [h.time or 0 for h in hits]
    # a turn stamped past the slack (its stamp says nothing): read as of when the store held it, not as of an
    # unknown time every fact outdates (test37b T19.3: a fact recorded before it shown as updating it)
    ahead = [j for j, h in enumerate(hits) if h.kind == "turn" and times[j] > now_ms() + FUTURE_SLACK_MS]
    if ahead:
        from objstore.retrieval.storedat import stored_by   # deferred: for a turn stamped ahead only
        at = stored_by(store, [(hits[j].id, hits[j].session or "") for j in ahead])
        times = [at.get(h.id, t) if j in ahead else t for j, (h, t) in enumerate(zip(hits, times))]

    def order():
        items = time_items([Said(e.full, t, h.project or "", h.kind, e.rel, e.old_bodies, h.seq or 0,
                                 (h.role or "") if h.kind == "turn" else h.trust or "", h.session)
                            for h, e, t in zip(hits, extra, times)],
                           queries, terms_cache=terms_cache, lower=lower)
        return order_by_time(items, share=opts.share, similar=opts.similar)

    order_, sup = order()
    # a turn that supersedes a fact by a stamp later than the version: when did the store hold it (test36 T18)?
    late = {j: i for i, by in enumerate(sup) if hits[i].kind == "fact" for j in by
            if hits[j].kind == "turn" and times[j] > times[i]}
    if late:
        from objstore.retrieval.storedat import stored_by   # deferred: for a turn stamped after the fact only
        at = stored_by(store, [(hits[j].id, hits[j].session or "") for j in late])
        moved = [j for j, i in late.items() if hits[j].id in at and at[hits[j].id] < times[i]]
        for j in moved:
            times[j] = at[hits[j].id]
        if moved:
            order_, sup = order()
    out = []
    for i in order_:
        if extra[i].anchor >= 0 and i not in sup[extra[i].anchor]:
            continue  # a probe that does not update the hit it was found from answers nothing
        h = hits[i]
        if sup[i]:
            b = hits[sup[i][0]]
            later = {"kind": b.kind, "id": b.id, "time": b.time, "date": b.date,
                     "text": b.text if b.kind == "turn" or len(b.text) <= 200 else b.text[:199] + "…"}
            if b.kind == "fact":
                later["key"] = b.key
            else:
                later.update(session=b.session, seq=b.seq)
            h = h.replace(updated_later=later)
        out.append(h)
    return out
