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
3. **A key word may be spelled short or long.**  A key name and a
   question match through :data:`KEY_ABBREVIATIONS`, a small static table
   of the abbreviations keys use (``db`` / ``database``, ``cfg`` /
   ``config`` / ``configuration``, ``k8s`` / ``kubernetes``, ...): each
   word of a group stands for the group's first (:func:`key_term`), on
   both sides of rule 2 (``project/acme/db`` is named by "what database do
   we use", ``project/acme/database`` by "which db").  It applies to the
   key-name match alone, never to the BM25 text: the search for the named
   keys also looks for the question's words' other spellings
   (:func:`other_forms`) and keeps only the keys so named.
4. **Many matching facts do not crowd a named key out.**  When the search
   of the facts alone is full (``limit`` hits, so more facts may match),
   the facts are searched alone again, :data:`NAMED_DEPTH` deep, for the
   named keys (``mem search deploy`` over 40 facts saying "deploy" more
   often than ``project/acme/deploy`` does).

5. **One name, the narrower scope first** (``recall`` and the prompt
   hook; test28 Y10, test28b Z10).  When
   facts of one name (:func:`one_name`: :func:`key_name`, a leading
   ``remembered`` aside, test31 U10) in several scopes are among the
   hits (``project/api/style``, ``user/style``, ``global/style``), they
   keep the places they won but take them narrowest first: the project's
   own value (only when recall is scoped to projects: the project is the
   one asked about), then the person's (``user/``), then ``global/``
   (:func:`narrower_first`).  A project value overrides the person's
   default; an agent that takes the first fact follows it.  Trust comes
   first: what the person stated goes before an agent's value of the name
   in any scope.  The prompt hook keeps the same order (test28b Z10,
   ``injectscope.one_name_order``): a fact of the name that goes before an
   injected one is injected with it, first, or the later one is not.

The rules are pure but :func:`named_alone`, which searches the index; ``index_terms`` needs tantivy's stemmer, imported when
first called.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from objstore.core.objects import Fact
from objstore.core.record import Frozen, set_fields
from objstore.core.text import KEY_ABBREVIATIONS
from objstore.memory.scope import applies, namespace_rank
from objstore.retrieval.querywords import question_terms, stop_stems

#: A match on an older version of a key counts this share of its score (rule 1).
HISTORY_WEIGHT = 0.5

#: The index kinds holding facts: searched alone for the keys a question names (rule 2).
FACT_KINDS = ("fact", "history")

#: Fact hits searched for the named keys when the first search of the facts
#: alone is full (rule 4): ~4 ms on 100,000 keys; listing the keys would
#: cost seconds there (docs/design.md, "Ranking facts").
NAMED_DEPTH = 200

_CANON: list[tuple[dict[str, str], dict[str, tuple[str, ...]]]] = []  # built on first use (stems need tantivy)


def _abbreviations() -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """(stem -> its group's first stem, first stem -> the group's words) of
    :data:`KEY_ABBREVIATIONS`, computed once."""
    if not _CANON:
        from objstore.index.searchindex import index_terms  # deferred: tantivy
        canon: dict[str, str] = {}
        words: dict[str, tuple[str, ...]] = {}
        for group in KEY_ABBREVIATIONS:
            first = index_terms(group[0])[0]
            words[first] = group
            for w in group:
                canon[index_terms(w)[0]] = first
        _CANON.append((canon, words))
    return _CANON[0]


def key_term(term: str) -> str:
    """The one form of an index term (stemmed) for the key-name match
    (rule 3): the first spelling of its :data:`KEY_ABBREVIATIONS` group
    (``databas`` -> ``db``, ``kubernet`` -> ``k8s``), else ``term``."""
    return _abbreviations()[0].get(term, term)


def other_forms(terms: Collection[str]) -> list[str]:
    """The words the question with index terms ``terms`` may name a key by
    besides its own (rule 3): every spelling of the
    :data:`KEY_ABBREVIATIONS` groups of ``terms`` whose stem is not among
    them, in the table's order (``{"databas", "use"}`` -> ``["db",
    "dbs"]``); [] when no term is in the table."""
    canon, words = _abbreviations()
    from objstore.index.searchindex import index_terms  # deferred: tantivy
    have = set(terms)
    out: list[str] = []
    for first in dict.fromkeys(canon[t] for t in terms if t in canon):
        out += [w for w in words[first] if index_terms(w)[0] not in have and w not in out]
    return out


def key_name(key: str) -> str:
    """The words of ``key`` after its scope, space-separated:
    ``project/acme/db-host`` -> ``"db-host"``, ``user/editor`` ->
    ``"editor"``, ``project/acme/deploy/prod`` -> ``"deploy prod"``."""
    parts = key.split("/")
    return " ".join(parts[2:] if parts[0] == "project" else parts[1:])


def one_name(key: str) -> str:
    """The name rule 5 groups ``key`` by: its :func:`key_name`, casefolded,
    with a leading ``remembered`` dropped, so the key the prompt hook writes
    for "remember that the db host is …" (``project/shop/remembered/db-host``)
    is the name ``db-host`` of ``user/db-host`` and ``global/db-host``
    (test31 U10)."""
    name = key_name(key).casefold()
    return name[11:] if name.startswith("remembered ") else name


_SCOPE_RANK = {"project": 0, "user": 1, "global": 2}


def same_name_keys(key: str, projects: Sequence[str]) -> list[str]:
    """The keys of ``key``'s :func:`key_name` in every scope a reader in
    ``projects`` (project names) sees, narrowest first, ``key`` among them:
    ``user/style`` with ``("api",)`` -> ``["project/api/style",
    "user/style", "global/style"]`` and, in the project and ``user/``, the
    name as the prompt hook writes it (``project/api/remembered/style``,
    :func:`one_name`).  [] for a key of no fact scope.  The
    group rule 5 orders; the prompt hook looks these keys up (a fact of
    the name the prompt's words did not find still goes first)."""
    scope, _, rest = key.partition("/")
    if scope == "project":
        rest = rest.partition("/")[2]
    elif scope not in _SCOPE_RANK:
        return []
    rest = rest[11:] if rest.startswith("remembered/") else rest
    if not rest:
        return []
    mine = [f"project/{p}/{r}" for p in projects for r in (rest, f"remembered/{rest}")]
    return [*mine, f"user/{rest}", f"user/remembered/{rest}", f"global/{rest}"]


class FactView:
    """A fact as :func:`narrower_first` reads it: ``key`` and ``trust`` (None:
    ``user_stated``), kind ``fact`` (the prompt hook's candidates and the
    session block's facts, which are not search hits)."""

    __slots__ = ("kind", "key", "trust")

    def __init__(self, key: str, trust: str | None) -> None:
        self.kind, self.key, self.trust = "fact", key, trust or "user_stated"


def narrower_first(hits: list, scoped: bool) -> list:
    """Rule 5: ``hits`` (objects with ``kind`` and ``key``) with the facts of
    one name (:func:`one_name`) reordered among the places they hold, narrowest
    scope first (``project`` when ``scoped``, then ``user``, then
    ``global``; unscoped, a project's fact keeps its place and rank among
    them by score order); the person's (``trust`` ``user_stated``) before an
    agent's whatever their scopes (test28b Z2: an agent's guess in the
    project does not override what the person stated for themselves).
    Every other hit keeps its place.  Returns a new list; O(len(hits))."""
    groups: dict[str, list[int]] = {}
    for i, h in enumerate(hits):
        if getattr(h, "kind", None) == "fact" and h.key:
            scope = h.key.split("/", 1)[0]
            if scope in _SCOPE_RANK and (scoped or scope != "project"):
                groups.setdefault(one_name(h.key), []).append(i)
    out = list(hits)
    for places in groups.values():
        if len(places) > 1:
            ordered = sorted(places, key=lambda i: (getattr(hits[i], "trust", "user_stated") != "user_stated",
                                                    _SCOPE_RANK[hits[i].key.split("/", 1)[0]], i))
            for at, i in zip(places, ordered):
                out[at] = hits[i]
    return out


def name_terms(key: str, cache: dict[str, frozenset[str]] | None = None) -> frozenset[str]:
    """The index terms of :func:`key_name` (stemmed), without the query
    stop words' stems: the terms a question must hold to name ``key``
    (empty: no question names it), each in its :func:`key_term` form
    (``project/acme/database`` -> ``{"db"}``).  ``cache``: key -> terms,
    when given."""
    got = cache.get(key) if cache is not None else None
    if got is None:
        from objstore.index.searchindex import index_terms  # deferred: tantivy
        got = frozenset(key_term(t) for t in index_terms(key_name(key)) if t not in stop_stems())
        if cache is not None:
            cache[key] = got
    return got


def names_key(key: str, terms: Collection[str], cache: dict[str, frozenset[str]] | None = None) -> bool:
    """Whether a question whose index terms are ``terms`` names ``key``
    (rules 2 and 3): every one of the key's :func:`name_terms` is among
    them, either spelling of an abbreviation counting as one."""
    want = name_terms(key, cache)
    if not want:
        return False
    have = terms if isinstance(terms, (set, frozenset)) else set(terms)
    return want <= have or want <= {key_term(t) for t in have}


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


def older_match(chain: Sequence, shown: str, matched: str | None, as_of: int | None = None,
                reader: str | None = None) -> str | None:
    """``matched`` (the version id the search hit) when it is an older
    version of ``chain`` (``facts.Version``, newest first) than ``shown``
    (the id of the current version shown) that may be named, else None:
    the hit ``search`` and ``recall`` mark "matched an older version"
    (``resolved_from``; rule 1): with ``as_of`` (ms),
    a version recorded after that time must not be named, nor one the
    ``reader`` namespace cannot read (a sibling sub-agent's), nor one that
    is not older than the one shown."""
    if not matched or matched == shown:
        return None
    v = next((v for v in chain if v.id == matched), None)
    if v is None or (as_of is not None and v.fact.recorded_at > as_of):
        return None
    if namespace_rank(reader, v.fact.namespace) is None:
        return None
    cur = next((c for c in chain if c.id == shown), None)
    if cur is not None and (v.fact.valid_from, v.fact.version) >= (cur.fact.valid_from, cur.fact.version):
        return None
    return matched


def named_alone(store, query: str, terms: Collection[str], limit: int, *, hits: list | None = None,
                **filters) -> tuple[list[KeyRank], list]:
    """The keys ``query`` names, found by searching the facts alone (kinds
    :data:`FACT_KINDS`, ``limit`` hits, ``filters`` passed on to
    ``SearchIndex.search``: projects, roles, ...): where turns are searched
    too they may fill the hits above a named key.  The search holds the
    question's words and their :func:`other_forms` (rule 3: "database"
    finds ``project/acme/db``).  ``hits``: the caller's own search of
    ``query`` over the facts alone (at most ``limit`` hits), used instead
    when the question has no other forms.  When the hits are full
    (``limit`` of them), the facts are searched alone again for
    :data:`NAMED_DEPTH` hits (rule 4).  ``terms``: the question's index
    terms.

    Returns (the named keys by :func:`rank_keys`' rule, the facts-alone
    hits).  Raises
    what ``SearchIndex.search`` raises (``IndexCorruptError``)."""
    extra = other_forms(terms)
    if hits is None or extra:
        hits = store.index.search(" ".join([query, *extra]), limit=limit, kinds=FACT_KINDS, **filters)
    if len(hits) >= limit < NAMED_DEPTH:  # full: more facts match, a named key may be below them
        hits = store.index.search(" ".join([query, *extra]), limit=NAMED_DEPTH, kinds=FACT_KINDS, **filters)
    # only a key with a word starting as a term or a spelling does is stemmed (~20 us a key)
    starts = {t[:4] for t in terms} | {w[:4] for w in extra}
    maybe = [h for h in hits if any(x in key_name(h.ref).lower() for x in starts)]
    return [r for r in rank_keys(maybe, terms) if r.named], hits


def sealed_named(store, queries: Collection[str], projects: Collection[str] | None) -> list[str]:
    """The sealed keys (``refs/sealed/``) that one of ``queries`` names
    (:func:`names_key`) in the scope ``projects`` (None: every project),
    sorted: recall never shows a sealed value, and says so for these
    (``served.sealed_message``) rather than answering "nothing recalled"
    as if the store held nothing.  Cheap: no ref of that namespace, no
    work."""
    keys = sealed_in_scope(store, projects)   # (the one listing of the sealed keys in scope)
    if not keys:
        return []
    cache: dict[str, frozenset[str]] = {}
    terms = [question_terms([q])[0] for q in queries]
    return [k for k in keys if any(names_key(k, t, cache) for t in terms)]


def sealed_over(keys: Collection[str], sealed: Collection[str]) -> dict[str, str]:
    """``{key: sealed key}`` for each of ``keys`` (fact keys a recall
    shows) that a narrower sealed key of the same :func:`key_name` among
    ``sealed`` (:func:`sealed_named`) overrides by rule 5: a sealed
    ``project/api/db-host`` over ``user/db-host`` and ``global/db-host``, a
    sealed ``user/x`` over ``global/x``.  Recall marks such a hit: the value
    it shows is not the one in force where the sealed key applies
    (test29b Q6).  O(len(keys) + len(sealed))."""
    by_name: dict[str, list[str]] = {}
    for k in sealed:
        if k.split("/", 1)[0] in _SCOPE_RANK:
            by_name.setdefault(one_name(k), []).append(k)
    out: dict[str, str] = {}
    for key in keys:
        scope = key.split("/", 1)[0]
        if scope not in _SCOPE_RANK:
            continue
        narrower = [k for k in by_name.get(one_name(key), ())
                    if _SCOPE_RANK[k.split("/", 1)[0]] < _SCOPE_RANK[scope]]
        if narrower:
            out[key] = min(narrower, key=lambda k: (_SCOPE_RANK[k.split("/", 1)[0]], k))
    return out


def sealed_in_scope(store, projects: Collection[str] | None) -> list[str]:
    """Every sealed key (``refs/sealed/``) that applies in ``projects``
    (None: every project), sorted: the keys whose newer value recall may
    not show, whatever words a question uses (test30b S3, S4).  Cheap: no
    ref of that namespace, no work."""
    keys = [n[len("sealed/"):] if n.startswith("sealed/") else n for n, _oid in store.refs.iter("sealed")]
    return sorted(k for k in keys if applies(k, None if projects is None else tuple(projects)))


def block_name_order(tiers: list[list[tuple[str, Fact]]], scoped: bool) -> None:
    """Put the session block's facts of one name (:func:`one_name`) in recall's
    order (``keyrank`` rule 5, ``narrower_first``: the person's before an
    agent's, then the project's, the person's ``user/``, ``global/``), in
    place: ``tiers`` are the block's sections, each a list of ``(id,
    Fact)``; a fact that would come before one its name's order puts
    ahead of it moves to just after that one, into its section (test29
    P18: an agent's ``user/style`` under "User:" above the person's
    ``project/api/style``).  Every other fact keeps its place.  ``scoped``:
    the block is a project's (unscoped, a project's fact is no one's
    narrower value)."""
    groups: dict[str, list[Fact]] = {}
    where: dict[str, tuple[int, int]] = {}   # key -> (section, place): the block's order
    for ti, items in enumerate(tiers):
        for i, (_oid, f) in enumerate(items):
            groups.setdefault(one_name(f.key), []).append(f)
            where[f.key] = (ti, i)
    for group in groups.values():
        if len(group) < 2:
            continue
        ordered = [v.key for v in narrower_first([FactView(f.key, f.trust) for f in group], scoped=scoped)]
        for prev, key in zip(ordered, ordered[1:]):
            if where[key] > where[prev]:
                continue
            ti, i = where[key]
            item = tiers[ti].pop(i)
            pt, pi = where[prev] if ti != where[prev][0] else (where[prev][0], where[prev][1] - 1)
            tiers[pt].insert(pi + 1, item)
            where = {f.key: (t, j) for t, items in enumerate(tiers) for j, (_o, f) in enumerate(items)}
