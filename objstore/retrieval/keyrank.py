"""The order of facts among search hits: the one rule ``search`` and
``recall`` share (``docs/design.md``, "Ranking facts").

The index holds every version of a key (kind ``fact``: the current one;
``history``: the others), and both commands show a key's *current* value
whichever version matched.  So a key is ranked, not a version:

1. **Older versions count less.**  A key's score is the best of its
   current version's score and ``HISTORY_WEIGHT`` times each older
   version's (:func:`key_score`).  What is shown is the current value; a
   word only an older value held is weaker evidence for it ("auth uses
   session cookies", long replaced by "auth via Keycloak", must not rank
   the auth key first for "which cache do we use").  It is still evidence:
   "is the db still on Postgres 13" finds the db key, showing its current
   value.
2. **A key the question names comes first.**  A key is *named* when every
   term of its name (the key after its scope: ``db`` in
   ``project/acme/db``, ``api port`` in ``project/x/api-port``; stemmed as
   the index stems, stop words left out) is a term of the question
   (:func:`names_key`).  Named keys come before the keys the question does
   not name, and in ``recall`` before turn passages too (a turn that
   discusses the db, or states an old db host, never comes before the db
   fact the question asks about); among themselves, by score.  Since the
   keys' names are words of their documents, a named key is usually
   among the best hits already; the callers also search the facts alone
   (:data:`FACT_KINDS`), so that a named key is found when turns full of
   the same words fill the hits of a search over both.

Pure: no store, no I/O (the callers search); ``index_terms`` needs
tantivy's stemmer, imported when first called.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from objstore.core.record import Frozen, set_fields
from objstore.memory.scope import applies
from objstore.retrieval.querywords import question_terms, stop_stems

#: A match on an older version of a key counts this share of its score (rule 1).
HISTORY_WEIGHT = 0.5

#: The index kinds holding facts: searched alone for the keys a question names (rule 2).
FACT_KINDS = ("fact", "history")


def key_name(key: str) -> str:
    """The words of ``key`` after its scope, space-separated:
    ``project/acme/db-host`` -> ``"db-host"``, ``user/editor`` ->
    ``"editor"``, ``project/acme/deploy/prod`` -> ``"deploy prod"``."""
    parts = key.split("/")
    return " ".join(parts[2:] if parts[0] == "project" else parts[1:])


def name_terms(key: str, cache: dict[str, frozenset[str]] | None = None) -> frozenset[str]:
    """The index terms of :func:`key_name` (stemmed), without the query
    stop words' stems: the terms a question must hold to name ``key``
    (empty: no question names it).  ``cache``: key -> terms, when given."""
    got = cache.get(key) if cache is not None else None
    if got is None:
        from objstore.index.searchindex import index_terms  # deferred: tantivy
        got = frozenset(index_terms(key_name(key))) - stop_stems()
        if cache is not None:
            cache[key] = got
    return got


def names_key(key: str, terms: Collection[str], cache: dict[str, frozenset[str]] | None = None) -> bool:
    """Whether a question whose index terms are ``terms`` names ``key``
    (rule 2): every one of the key's :func:`name_terms` is among them."""
    want = name_terms(key, cache)
    return bool(want) and want <= set(terms)


def key_score(kind: str, score: float) -> float:
    """What a hit of index kind ``kind`` with ``score`` is worth for its
    key (rule 1): ``score`` for the current version (``fact``),
    ``HISTORY_WEIGHT * score`` for an older one (``history``)."""
    return score * HISTORY_WEIGHT if kind == "history" else score


class KeyRank(Frozen):
    """One key among the hits: ``key``; ``score``, its :func:`key_score`
    (the best over its versions' hits); ``hit_id``, the id of the version
    hit that gave it; ``named``: the question names the key."""

    __slots__ = ("key", "score", "hit_id", "named")

    def __init__(self, key: str, score: float, hit_id: str, named: bool) -> None:
        set_fields(self, key, score, hit_id, named)


def rank_keys(hits: Iterable, terms: Collection[str]) -> list[KeyRank]:
    """The keys of the fact hits among ``hits`` (objects with ``kind``,
    ``ref``, ``id`` and ``score``, as ``SearchIndex.search`` returns them;
    hits of other kinds are passed over), best first by the rule: named
    keys first, then by score, then by key.  ``terms``: the question's
    index terms."""
    best: dict[str, tuple[float, str]] = {}
    for h in hits:
        if h.kind not in FACT_KINDS:
            continue
        s = key_score(h.kind, h.score)
        got = best.get(h.ref)
        if got is None or s > got[0]:
            best[h.ref] = (s, h.id)
    ranks = [KeyRank(k, s, oid, names_key(k, terms)) for k, (s, oid) in best.items()]
    ranks.sort(key=lambda r: (not r.named, -r.score, r.key))
    return ranks


def named_alone(store, query: str, terms: Collection[str], limit: int, **filters) -> tuple[list[KeyRank], list]:
    """The keys ``query`` names, found by searching the facts alone (kinds
    :data:`FACT_KINDS`, ``limit`` hits, ``filters`` passed on to
    ``SearchIndex.search``: projects, roles, ...): where turns are searched
    too they may fill the hits above a named key.  Returns (the named keys
    by :func:`rank_keys`' rule, the facts-alone hits).  Raises what
    ``SearchIndex.search`` raises (``IndexCorruptError``)."""
    hits = store.index.search(query, limit=limit, kinds=FACT_KINDS, **filters)
    return [r for r in rank_keys(hits, terms) if r.named], hits


def sealed_named(store, queries: Collection[str], projects: Collection[str] | None) -> list[str]:
    """The sealed keys (``refs/sealed/``) that one of ``queries`` names
    (:func:`names_key`) in the scope ``projects`` (None: every project),
    sorted: recall never shows a sealed value, and says so for these
    (``facts.sealed_message``) rather than answering "nothing recalled"
    as if the store held nothing.  Cheap: no ref of that namespace, no
    work."""
    keys = [n[len("sealed/"):] if n.startswith("sealed/") else n for n, _oid in store.refs.iter("sealed")]
    if not keys:
        return []
    cache: dict[str, frozenset[str]] = {}
    terms = [question_terms([q])[0] for q in queries]
    return sorted(k for k in keys if applies(k, None if projects is None else tuple(projects))
                  and any(names_key(k, t, cache) for t in terms))
