"""Search and reindex: BM25 over current fact versions and turns.

The Tantivy index is derived data: ``reindex`` rebuilds it from the refs and
objects alone.  A hit is re-checked against the objects before it is shown:
a fact hit that is no longer its key's current version resolves to the
current one (never the old value), and a hit whose object is gone is dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from objstore.core.errors import CorruptObject, InvalidInput, NotFound
from objstore.core.refsfolders import RefFolderDamaged
from objstore.core.objects import HELD_OUT_KINDS, Fact, Turn
from objstore.core.record import Frozen, set_fields
from objstore.core.store import Store
from objstore.index.analysis import tokenize
from objstore.memory.served import hider

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path
if TYPE_CHECKING:
    from objstore.memory.tombstones import Hider
from objstore.retrieval.keyrank import FACT_KINDS, named_alone, older_match, rank_keys
from objstore.retrieval.querywords import question_terms


def searchable(query: str) -> bool:
    """Whether ``query`` holds a word the index could match (a letter or a
    digit, as the index's tokenizer, ``index.analysis.tokenize``, sees it):
    ``'"'``, ``'!!!'`` or ``'...'`` hold none."""
    return bool(tokenize(query))


def check_searchable(queries: Sequence[str]) -> None:
    """Raise InvalidInput (exit 2) unless one of ``queries`` is
    :func:`searchable`: the one rule of ``search`` and ``recall`` (a query of
    punctuation alone is a mistake to report, not a search with no hits)."""
    if not any(searchable(q) for q in queries):
        raise InvalidInput("no searchable word in the query" if len(queries) == 1  # (never echoed: it
                           else "no searchable word in any query",             # may be long, or a secret)
                           hint="a query needs at least one letter or digit, in a word of at most 64 bytes "
                                "(emoji and punctuation are not indexed: search a word beside them)")


def _unjoined(query: str) -> str:
    """``query`` with ``:`` and ``=`` (and their fullwidth forms) read as spaces: a pasted config
    fragment (``port:5432``, ``DB=postgres``) that no text holds joined as
    written is searched again as its words (fresh39 F11)."""
    return query.translate(_JOINS)


_JOINS = str.maketrans(":=：＝", "    ")   # (the fullwidth forms an IME types: test40 T13)


class SearchResult(Frozen):
    """One hit of :func:`search`.

    Attributes:
        kind: ``fact`` or ``turn``.  id: object id.  ref: key or session id.
        time: ms since epoch.  role: turn role or fact kind.  project: project or "".
        score: BM25 score (higher is better; comparable within one query);
            a fact's is its key's (``keyrank.key_score``), and the facts the
            query names come first whatever their score.
        snippet: a window of the text around the first match.
        resolved_from: for a fact, the id of the older version that matched
            (``keyrank.older_match``, as recall marks it), when the hit was
            resolved to the current version; ``id`` and ``snippet`` are the
            current version's.
        matched_namespace: for a fact, the namespace of the version that
            matched when it is not the one shown but the key's value in
            another namespace (a sub-agent's, current for it only: test33
            T18), else None.
    """

    __slots__ = ("kind", "id", "ref", "time", "role", "project", "score", "snippet", "resolved_from",
                 "matched_namespace")

    def __init__(self, kind: str, id: str, ref: str, time: int, role: str, project: str, score: float, snippet: str,
                 resolved_from: str | None = None, matched_namespace: str | None = None) -> None:
        set_fields(self, kind, id, ref, time, role, project, score, snippet, resolved_from, matched_namespace)


def search(store: Store, query: str, *, limit: int = 10, kinds: tuple[str, ...] = ("fact", "turn"),
           include_directives: bool = False) -> list[SearchResult]:
    """BM25 search of ``query`` (plain words, never query syntax) over the
    ``kinds`` ("fact", "turn"); at most ``limit`` results, best first.
    Facts of a kind in ``HELD_OUT_KINDS`` (``directive``) are left out
    unless ``include_directives``.

    A fact hit shows its key's current version: searching facts also
    searches the versions that are not current (index kind ``history``), and
    a hit on one of those resolves to the current value (``resolved_from``
    names the version that matched), as ``recall`` does.  Facts are
    ordered by the rule ``recall`` shares (:mod:`objstore.retrieval.keyrank`):
    one result per key, a match on an older version counts
    ``HISTORY_WEIGHT`` of its score, and the keys the query names
    (``db`` for "what is the db host") come first; the rest, facts and
    turns, by score.  Raises
    InvalidInput (exit 2) for a query with no searchable word
    (:func:`check_searchable`), ``IndexCorruptError`` (exit 13) for an
    unreadable index; a missing one gives no hits (see :func:`index_missing`).
    A fact hit on the key's value in another namespace (a sub-agent's,
    current for it only) shows the current value and names that namespace
    (``matched_namespace``; test33 T18).
    A turn's snippet shows a forgotten ``--match`` text as ``[forgotten]``
    (``tombstones.hider``: a session imported after the forget holds it)."""
    from objstore.index.searchindex import make_snippet  # deferred: imports tantivy
    check_searchable([query])
    store.try_recover()  # a crashed writer left the index behind: catch up if we can
    out: list[SearchResult] = []
    seen: set[str] = set()
    search_kinds = (*kinds, "history") if "fact" in kinds and "history" not in kinds else kinds
    turns: dict[str, Turn] = {}
    hide: Hider | None | bool = False   # read at the first turn hit served

    def texts(oids: list[str]) -> dict[str, str]:
        """The turn bodies the search checks glued multi-token words against (read once)."""
        got = {}
        for o in oids:
            try:
                t = turns[o] = turns.get(o) or store.get(o, Turn)
            except (NotFound, CorruptObject):
                continue
            got[o] = t.text
        return got

    hits = store.index.search(query, limit=limit * 2 + 5, kinds=search_kinds, texts=texts)
    if not hits and (loose := _unjoined(query)) != query:   # port:5432, DB=postgres held apart (fresh39 F11)
        query = loose
        hits = store.index.search(query, limit=limit * 2 + 5, kinds=search_kinds, texts=texts)
    for h in _fact_order(store, query, hits, limit * 2 + 5, "fact" in kinds, "turn" in kinds):
        if len(out) >= limit:
            break
        try:
            if h.kind in FACT_KINDS:
                from objstore.memory.facts import current_noting_lost, listed_chain  # deferred: a fact hit's only
                head = store.refs.read("facts/" + h.ref)
                if head is None:
                    continue
                chain = listed_chain(store, "facts/" + h.ref, head)
                if chain is None:
                    continue   # a damaged ref: noted, warned about (fsck --repair mends it)
                cur = current_noting_lost(store, h.ref, chain)   # a lost current value: warned, skipped
                if cur is None or cur.id in seen or (cur.fact.kind in HELD_OUT_KINDS and not include_directives):
                    continue
                seen.add(cur.id)
                f: Fact = cur.fact
                older = older_match(chain, cur.id, h.id)
                out.append(SearchResult("fact", cur.id, f.key, f.valid_from, f.kind, h.project, h.score,
                                        make_snippet(f.body, query), older,
                                        None if older else _other_namespace(chain, cur, h.id)))
            else:
                t = turns.get(h.id) or store.get(h.id, Turn)
                if h.id in seen:
                    continue
                seen.add(h.id)
                if hide is False:
                    hide = hider(store)
                out.append(SearchResult("turn", h.id, t.session, t.timestamp, t.role, t.project, h.score,
                                        make_snippet(t.text, query, hide=hide)))
        except RefFolderDamaged:   # a file in place of refs/facts/<scope>: every key under it unreadable (T9)
            raise
        except (NotFound, CorruptObject):
            continue  # index ahead of the objects (e.g. after a crash): reindex repairs it
    return out


def _other_namespace(chain: Sequence, shown, matched: str) -> str | None:
    """The namespace of version ``matched`` of ``chain`` (``facts.Version``,
    newest first) when it is not ``shown`` (the version served) and lies
    in another namespace than it, else None."""
    if matched == shown.id:
        return None
    v = next((v for v in chain if v.id == matched), None)
    ns = v.fact.namespace if v is not None else ""
    return ns if ns and ns != shown.fact.namespace else None


def _fact_order(store: Store, query: str, hits: list, depth: int, facts: bool, turns: bool) -> list:
    """``hits`` (best first) in the order of the fact ranking rule
    (:mod:`objstore.retrieval.keyrank`): one hit per key, the version hit
    that gave its ``key_score``, with that score; the keys the query names
    first, then the rest by score (facts and turns together; equal scores
    keep the index's order).  ``facts``: facts were searched, so the keys
    the query names are taken from ``keyrank.named_alone`` (``depth``
    hits; a search of the facts alone when ``turns`` were searched too, as
    they may keep a named key out of ``hits``)."""
    terms = question_terms([query])[0]
    by_id = {h.id: h for h in hits}
    ranks = rank_keys(hits, terms)
    if facts:
        named, alone = named_alone(store, query, terms, depth, hits=None if turns else hits)
        by_id.update((h.id, h) for h in alone if h.id not in by_id)
        got = {r.key for r in named}
        ranks = named + [r for r in ranks if r.key not in got]
    keyed = [by_id[r.hit_id].replace(score=r.score) for r in ranks]
    first = [h for h, r in zip(keyed, ranks) if r.named]
    rest = [h for h, r in zip(keyed, ranks) if not r.named] + [h for h in hits if h.kind not in FACT_KINDS]
    return first + sorted(rest, key=lambda h: -h.score)


def index_missing(store: Store) -> bool:
    """Whether the search index is missing or partial while the store has
    something to index: no sub-index of ``<store>/index`` exists (e.g. after
    ``rm -rf <store>/index``) but a fact or session ref does, or a write
    created the index anew since then and it holds only that write
    (``SearchIndex.is_partial``).  Costs a few ``stat`` calls when the index
    exists."""
    if store.index.exists():
        return store.index.is_partial()
    return any(True for _ in store.refs.iter("facts")) or any(True for _ in store.refs.iter("sessions"))


def ensure_index(store: Store, progress: Callable[[int], None] | None = None) -> int | None:
    """Rebuild the index when :func:`index_missing`: returns the number of
    documents indexed, or None when the index was there (nothing done).
    ``progress(done)`` as for :func:`reindex`.  Raises what :func:`reindex`
    raises (``StoreLocked`` when another writer holds the store)."""
    if not index_missing(store):
        return None
    return reindex(store, progress=progress)


def verify_index(store: Store) -> list[str]:
    """Problems of the search index on disk, one line each ([] when sound):
    an unreadable ``CURRENT``, a live generation that does not open, or a
    segment file whose tantivy checksum does not match (e.g. damaged stored
    documents, which make every search exit 13).  See
    ``SearchIndex.verify`` for the cost.  A missing or partial index is not
    reported here (:func:`index_missing`); :func:`reindex` fixes both."""
    return store.index.verify()


def reindex(store: Store, progress: Callable[[int], None] | None = None) -> int:
    """Rebuild the search index from scratch; return the number of documents."""
    from objstore.memory.documents import iter_docs  # deferred: it imports the sessions module, which readers need not
    with store.lock("reindex"):
        n = store.index.rebuild(iter_docs(store), progress=progress)
        store.journal.clear()
        return n
