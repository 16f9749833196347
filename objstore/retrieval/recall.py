"""Recall: several phrasings of a question -> current facts and turn
passages with provenance, ranked by BM25, neighbouring turns and reciprocal
rank fusion.

Pipeline (:func:`recall`), per query phrasing:

1. **BM25** over the search index (``objstore.index.searchindex``: stemmed
   terms, query stop words dropped), current facts, the other versions of
   facts (the ``history`` sub-index) and turns together, filtered to
   the project scope (the project's aliases, plus ``""``: user and global
   facts, turns of no known project) unless ``all_projects``.  The
   ``depth`` best hits are kept.
   Words that only name the project in scope are dropped from the query
   first (:func:`without_scope_words`), an agent noun the scope never
   uses is searched as its verb (:func:`with_base_forms`: "which test
   runner" finds "the unit tests run with Jest"), and the IDF is counted over the
   documents of the scope (``scope_idf``: "backend" in every turn of the
   atlas backend, a speaker's name in every turn of a chat, tell nothing
   apart there).  A date the question names ("on 14 June 2025", "in June
   2025"; ``objstore.retrieval.dates``) searches that span's turns too and
   doubles their score.  A turn hit's score is multiplied by the
   **coverage factor** (the share of the query words' IDF mass its text
   holds; Lucene's classic coordination factor, IDF-weighted) and by the
   **measure bonus** (a question asking "how large", "how long", "how
   many" ranks up the turns stating a size, a duration, a number:
   :func:`measure_pattern`) and by the
   **recency factor** ``1 + recency * 0.5 ** (age / half_life)``
   (age from the query's newest turn hit; memware ranks BM25 × recency ×
   use the same way).  Before these, the **content gate** drops a turn hit
   holding none of the question's content words ("use" alone does not
   answer "which port does postgres use": :mod:`objstore.retrieval.relevance`).
2. **Neighbouring turns.**  Scores are divided by the best score of the
   query (so they lie in 0..1).  Each turn hit gives ``neighbours`` times
   its score to the turns just before and after it in its session (the
   question before an answer, the answer after a question), and
   ``neighbours2`` times it to the turns two away.
3. **Session evidence.**  Each turn gains ``session_boost`` times the sum
   of the normalised scores of the hits in its session (answers cluster in
   the session where the subject was discussed).

The phrasings' rankings are then fused by reciprocal rank (Cormack, Clarke
and Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and individual
rank learning methods", SIGIR 2009): ``score = sum(1 / (rrf_k + rank))``
with ``rrf_k = 60``; with one phrasing the order is that phrasing's.

Facts are ranked as keys by the rule ``search`` shares
(:mod:`objstore.retrieval.keyrank`): a match on an older version counts
``HISTORY_WEIGHT`` of its score, and a fact whose key a phrasing names
(``db`` for "what is the db host") comes first, before other facts and
turns (each phrasing also searches the facts alone for such keys, when
turns are searched too).

Then each candidate is resolved against the objects, best first:

* a fact candidate is its **key**: the key's current version is read from
  its ref by the supersession rule (``facts.current_of``), whatever version
  the index matched.  A hit on an older version resolves to the current one
  and says so (``resolved_from``); the old value is never returned.  Keys
  whose value is secret, forgotten or gone are skipped.
* a turn candidate loads the turn object (provenance: session, seq, time,
  role, project, harness, cwd, trust); forgotten turns are skipped.
* **byte-identical** texts collapse into the first one (``duplicates``
  counts the others).
* a fact with a ``derived_from`` edge to another fact among the hits is a
  **restatement** and is dropped (:func:`restatements_dropped`), and the
  next candidate takes its place (``limit`` hits whenever there are that
  many); facts of kind ``directive`` are left out unless asked for
  (:func:`visible`).

A turn that only asks about the question comes after the facts found
(:func:`asking_last`, test29 P19).

**Time** (``objstore.retrieval.timeline``): for a question about the
present (:func:`objstore.retrieval.timeline.wants_current`), the first
``pool`` resolved hits are ordered so that a passage whose value a later
statement changed (or a current fact replaced) comes right after what
changed it, and carries ``updated_later``; the superseding item takes the
best place of the items it supersedes.  Before that, the first turn hit is
**followed forward in time** (:func:`_follow_forward`): the later turns of
its project that restate its words are searched, and one that supersedes
it joins the results (a terse "CI runs on Buildkite now" shares one word
with the question but several with the statement it replaces).  Every hit
carries its date.
``as_of`` reads the store as it stood at a time.

Measured on LoCoMo (``docs/benchmarks.md``, ``mem eval locomo``): stemming,
query stop words, neighbours and session evidence take R@10 from 0.50 to
0.71, scoped IDF, dates and coverage to 0.77, with no model call; on
``eval/knowledge_update.json`` the time order takes newest-first from 0.14
to 0.955 and Stale@1 from 0.59 to 0.00.

``recall`` never writes, never prints, and reads no process settings.
Its options and answer (:class:`RecallOptions`, :class:`RecallHit`,
:class:`RecallResult`) are in :mod:`objstore.retrieval.recalltypes`,
re-exported here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from blake3 import blake3

from objstore.core.errors import CorruptObject, IntegrityError, InvalidInput, NotFound
from objstore.core.refsfolders import RefFolderDamaged
from objstore.core.objects import HELD_OUT_KINDS, Fact, Turn
from objstore.core.record import Record, set_fields
from objstore.core.store import Store
from objstore.memory.provenance import turn_author, turn_trust
from objstore.memory.scope import key_project, namespace_rank, namespace_weight, visibility, within_namespace
from objstore.memory.served import hider

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path
if TYPE_CHECKING:
    from objstore.memory.tombstones import Hider
from objstore.retrieval.dates import time_windows
from objstore.retrieval.filestale import files_first
from objstore.retrieval.keyrank import FACT_KINDS, key_score, named_alone, names_key, narrower_first, older_match, other_forms
from objstore.retrieval.recalltypes import RecallHit, RecallOptions, RecallResult, iso_time  # noqa: F401  (re-exported)
from objstore.retrieval.recalltime import order_hits_by_time
from objstore.retrieval.timeitems import fact_text
from objstore.retrieval.timeline import lower_words_of, only_asks, values_of, wants_current
from objstore.retrieval.querywords import (measure_pattern, question_terms, with_base_forms,
                                           without_scope_words)
from objstore.retrieval.relevance import content_words, coverage_weights, gate_keeps, held_of_hits, with_coverage
from objstore.retrieval.search import check_searchable

#: ``what`` -> index sub-indexes searched (``history``: fact versions that are not current)
WHAT = {"all": ("fact", "history", "turn"), "facts": ("fact", "history"), "turns": ("turn",)}

#: What a turn's text is worth as evidence, by role (shown as ``trust``).
TURN_TRUST = {"user": "user_stated", "assistant": "agent_observed", "tool": "tool_output",
              "system": "system"}

MAX_QUERIES = 16


class _Cand(Record):
    """A candidate of one phrasing.  ``ref``: fact key, or session id;
    ``hit_id``: id of the indexed doc that matched (None: a neighbour);
    ``rel``: best normalised score over the phrasings (for the supersession
    rule); ``own``: its own BM25 score / the phrasing's best, before the
    factors (0: a neighbour); the rule's relevance is the larger of this and
    the final score's share; ``named``: a fact whose key a phrasing names
    (``keyrank.names_key``: it comes first)."""

    __slots__ = ("kind", "ref", "seq", "hit_id", "score", "session", "queries", "rel", "own", "named")

    def __init__(self, kind: str, ref: str, seq: int = 0, hit_id: str | None = None, score: float = 0.0,
                 session: str = "", queries: set | None = None, rel: float = 0.0, own: float = 0.0,
                 named: bool = False) -> None:
        # (a mutable record: attribute stores, ~15x cheaper than set_fields' slot setters; ~280 a broad recall)
        self.kind, self.ref, self.seq, self.hit_id, self.score = kind, ref, seq, hit_id, score
        self.session, self.queries = session, set() if queries is None else queries
        self.rel, self.own, self.named = rel, own, named


def _cand_order(c: _Cand) -> tuple:
    """The sort key of candidates, best first: the facts the question names
    (``keyrank`` rule 2), then by score."""
    return (not c.named, -c.score, c.kind, c.ref, c.seq)


DAY_MS = 86_400_000


def rank_query(store: Store, query: str, *, kinds: tuple[str, ...], projects: Sequence[str] | None,
               exclude_sessions: Iterable[str] = (), roles: Sequence[str] | None = None,
               opts: RecallOptions = RecallOptions(), as_of: int | None = None,
               turns: dict[str, Turn] | None = None,
               terms: dict[str, frozenset[str]] | None = None) -> list[_Cand]:
    """One phrasing: BM25 (turn hits times the date bonus, the coverage
    factor and the recency factor), then neighbours and session evidence;
    candidates best first (keys: fact key, or (session, seq)).  With
    ``as_of`` (ms), turns recorded after it are left out (a fact hit stands
    for its key, resolved later).  ``turns``: a cache of the turn objects
    read (id -> Turn), shared with the caller; ``terms``: a cache of
    :func:`text_terms` (text -> terms), likewise."""
    weights: dict[str, float] = {}
    texts = _texts_reader(store, turns)
    hits = store.index.search(query, limit=opts.depth * (2 if as_of is not None else 1), kinds=kinds,
                              projects=None if projects is None else [*projects, ""],
                              exclude_refs=exclude_sessions, roles=roles, stopwords=opts.stopwords,
                              scope_idf=opts.scope_idf, idf_out=weights, texts=texts)
    windows = time_windows(query) if opts.dates and "turn" in kinds else []
    if windows:  # the turns of the days the question names, searched on their own too
        seen = {h.id for h in hits}
        hits += [h for h in store.index.search(query, limit=opts.depth, kinds=("turn",),
                                               projects=None if projects is None else [*projects, ""],
                                               exclude_refs=exclude_sessions, roles=roles,
                                               stopwords=opts.stopwords, scope_idf=opts.scope_idf,
                                               times=windows, texts=texts) if h.id not in seen]
        hits = [h.replace(score=h.score * (1.0 + opts.dates))
                if h.kind == "turn" and any(a <= h.time < b for a, b in windows) else h for h in hits]
        hits.sort(key=lambda h: -h.score)
    if as_of is not None:
        hits = [h for h in hits if h.kind != "turn" or h.time <= as_of][:opts.depth]
    qterms = question_terms([query])[0]
    alone = []  # the facts the question names, searched alone: turns may fill the hits above
    if "fact" in kinds:
        alone, _ = named_alone(store, query, qterms, opts.depth, hits=None if "turn" in kinds else hits,
                               projects=None if projects is None else [*projects, ""],
                               roles=roles, stopwords=opts.stopwords, scope_idf=opts.scope_idf)
    gate = content_words(query, opts.stopwords) if opts.gate else []
    cover = coverage_weights(weights) if opts.coverage else {}
    held: dict[str, frozenset[str]] = {}
    if gate or len(cover) > 1:  # what each turn hit holds of the words: the postings, read once for both
        from objstore.index.searchindex import index_terms, tokenize  # deferred: tantivy
        want = set().union(*gate) | cover.keys()
        held = held_of_hits(store, hits, [t for t in dict.fromkeys([*weights, *tokenize(query)])
                                          if (x := index_terms(t)) and x[0] in want], lambda i: _text(store, i, turns))
        hits = [h for h in hits if gate_keeps(h, gate, held, windows)]  # the content gate (test27 V25)
    if not hits and not alone:
        return []
    raw = {h.id: h.score for h in hits}
    raw_top = max(raw.values(), default=0.0) or 1.0
    # the factors multiply a score list beside the hits (a new Hit per factor and hit cost ~7 % of a recall)
    score = [h.score for h in hits]
    if len(cover) > 1:
        with_coverage(hits, score, cover, opts.coverage, held)
    measure = measure_pattern(query) if opts.measure else None
    if measure is not None:  # "how large …": the turns stating a size first
        for i, h in enumerate(hits):
            if h.kind == "turn" and (t := _turn(store, h.id, turns)) is not None and measure.search(t.text[:4000]):
                score[i] = score[i] * (1.0 + opts.measure)
    if opts.recency:
        newest = max((h.time for h in hits if h.kind == "turn"), default=0)
        half = max(opts.half_life_days, 1e-3) * DAY_MS
        for i, h in enumerate(hits):
            if h.kind == "turn":
                score[i] = score[i] * (1.0 + opts.recency * 0.5 ** ((newest - h.time) / half))
    top = max(score, default=0.0) or 1.0
    positions = "turn" in kinds and store.index.has_seq("turn")  # else no neighbours, key by id
    cands: dict[tuple, _Cand] = {}
    session_sum: dict[str, float] = defaultdict(float)
    for h, hs in zip(hits, score):
        s = hs / top
        if h.kind in FACT_KINDS:  # a key: whichever version matched, the current one is shown
            s = key_score(h.kind, hs) / top
            c = cands.get(("fact", h.ref))
            if c is None:
                c = cands[("fact", h.ref)] = _Cand("fact", h.ref, hit_id=h.id, named=names_key(h.ref, qterms))
            if s > c.score:
                c.score, c.hit_id = s, h.id
            continue
        k = ("turn", h.ref, h.seq) if positions else ("turn", h.id, 0)
        c = cands.setdefault(k, _Cand("turn", k[1], h.seq))
        c.hit_id, c.score, c.session = h.id, c.score + s, h.ref
        c.own = max(c.own, raw[h.id] / raw_top)
        session_sum[h.ref] += s
    if (opts.neighbours or opts.neighbours2) and positions:
        for h, hs in zip(hits, score):
            if h.kind != "turn":
                continue
            s = hs / top
            for n, w in ((h.seq - 1, opts.neighbours), (h.seq + 1, opts.neighbours),
                         (h.seq - 2, opts.neighbours2), (h.seq + 2, opts.neighbours2)):
                if n < 0 or not w:
                    continue
                c = cands.setdefault(("turn", h.ref, n), _Cand("turn", h.ref, n, session=h.ref))
                c.score += w * s
    if opts.session_boost:
        for c in cands.values():
            if c.kind == "turn":
                c.score += opts.session_boost * session_sum.get(c.session, 0.0)
    if alone:  # in their own search's scale (they come first whatever it is)
        best = max(r.score for r in alone)
        for r in alone:
            c = cands.setdefault(("fact", r.key), _Cand("fact", r.key, hit_id=r.hit_id, named=True))
            c.score = max(c.score, r.score / (best or 1.0))
    return sorted(cands.values(), key=_cand_order)


class _Lower:
    """``timeline.lower_words_of`` of a growing list of ``_Extra`` texts,
    read once each (the forward probes and the rule read the same hits)."""

    def __init__(self) -> None:
        self.words: set[str] = set()
        self.done = 0

    def of(self, extra: Sequence["_Extra"]) -> set[str]:
        """The lower-case words of every ``extra[i].full`` (a new set when it grew)."""
        if self.done > len(extra):
            self.words, self.done = set(), 0
        if self.done < len(extra):
            self.words = self.words | lower_words_of(e.full for e in extra[self.done:])
            self.done = len(extra)
        return self.words


def _texts_reader(store: Store, turns: dict[str, Turn] | None) -> Callable[[list[str]], dict[str, str]]:
    """``SearchIndex.search``'s ``texts``: the bodies of the turn hits it
    checks for glued multi-token words, read through the ``turns`` cache
    (recall reads the same turns next); an unreadable one is left out."""
    def texts(oids: list[str]) -> dict[str, str]:
        """``{id: turn text}`` of ``oids``."""
        return {o: t.text for o in oids if (t := _turn(store, o, turns)) is not None}
    return texts


def _turn(store: Store, oid: str, turns: dict[str, Turn] | None) -> Turn | None:
    """The turn ``oid`` (through the ``turns`` cache), or None if unreadable."""
    t = turns.get(oid) if turns is not None else None
    if t is None:
        try:
            t = store.get(oid, Turn)
        except (NotFound, CorruptObject, IntegrityError):
            return None
        if turns is not None:
            turns[oid] = t
    return t


def _text(store: Store, oid: str, turns: dict[str, Turn] | None) -> str | None:
    """The text of turn ``oid`` (:func:`_turn`); None if unreadable."""
    t = _turn(store, oid, turns)
    return None if t is None else t.text


def _text_digest(full: str) -> bytes:
    """The key under which hits with the same text are merged: 16 bytes of
    BLAKE3 (already loaded for object ids; hashlib would load OpenSSL,
    ~2 ms at start-up)."""
    return blake3(full.encode("utf-8", "surrogatepass")).digest(16)


def recall(store: Store, queries: Sequence[str] | str, *, what: str = "all",
           projects: Sequence[str] | None = None, limit: int = 10,
           exclude_sessions: Iterable[str] = (), roles: Sequence[str] | None = None,
           opts: RecallOptions = RecallOptions(), as_of: int | None = None,
           include_directives: bool = False, namespace: str | None = None,
           within: str | None = None) -> RecallResult:
    """Recall current facts and turn passages for one or more phrasings.

    Args:
        queries: a phrasing or several (at most 16); plain text, never
            query syntax.
        what: ``all``, ``facts`` or ``turns``.
        projects: the project scope as aliases (``scope.project_aliases``),
            the first being the project's name; None for every project.
        limit: most hits returned.
        exclude_sessions: session ids whose turns are left out.
        roles: turn roles kept (None: all).
        opts: :class:`RecallOptions`.
        as_of: ms since epoch: read the store as it stood then (each key's
            version current at that time by ``valid_from`` and
            ``recorded_at``, as ``mem log --as-of``; only turns recorded by
            then).  None: now.
        include_directives: also return facts of a kind in
            ``HELD_OUT_KINDS`` (``directive``: questions, instructions,
            goals), which are left out by default because they rank high by
            resembling the query.
        namespace: the reader's namespace (``objstore.memory.scope``): what
            it may not read (a sibling sub-agent's facts and turns) is left
            out, a descendant's is demoted (score times
            ``DESCENDANT_PENALTY`` per level) and a key's current version
            is the reader's (``facts.current_of``).  None: the person's
            view (every namespace; sub-agents' demoted by depth).
        within: only what namespace ``within`` and its descendants hold
            (``mem recall --from-agent``); read as ``within`` itself.  With
            ``namespace`` too, ``within`` must be one ``namespace`` may read
            (itself, an ancestor, a descendant, another session's), else
            NotFound: a sub-agent never reads a sibling's memory.
    Returns:
        :class:`RecallResult` (the algorithm is in the module docstring).
    Raises:
        InvalidInput: no query with a searchable word, bad ``what`` or
            ``limit``.
        NotFound: ``within`` is a namespace ``namespace`` may not read.
        IndexCorruptError: the index cannot be read (``mem reindex``).
    """
    qs = [queries] if isinstance(queries, str) else list(queries)
    qs = [q for q in qs if isinstance(q, str) and q.strip()]
    if what not in WHAT:
        raise InvalidInput(f"what must be one of {', '.join(WHAT)}, not {what!r}")
    if not qs:
        raise InvalidInput("nothing to recall: give a query")
    if len(qs) > MAX_QUERIES:
        raise InvalidInput(f"at most {MAX_QUERIES} phrasings, got {len(qs)}")
    if not isinstance(limit, int) or limit < 1:
        raise InvalidInput(f"limit must be >= 1, not {limit!r}")
    if as_of is not None and (not isinstance(as_of, int) or isinstance(as_of, bool)):
        raise InvalidInput(f"as_of must be ms since the epoch, not {as_of!r}")
    for q in qs:
        try:
            q.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInput("a query is not valid UTF-8 text") from None
    check_searchable(qs)  # '"' or '...': nothing the index could match
    store.try_recover()
    proj = None if projects is None else tuple(projects)
    if within and namespace and namespace_rank(namespace, within) is None:
        raise NotFound("no sub-agent in reach of the reader")   # a sibling's memory: never (test29 P3)
    reader = within if within else namespace
    ns = _NsView(reader, within)
    fused: dict[tuple, _Cand] = {}
    turns: dict[str, Turn] = {}  # turn objects read once: coverage, then materialising
    terms: dict[str, frozenset[str]] = {}  # their index terms: coverage, then the rule
    for qi, q in enumerate(qs):
        q = without_scope_words(q, proj)
        if opts.base_forms:
            q = with_base_forms(store, q, kinds=WHAT[what], projects=proj, scope=opts.scope_idf)
        ranked = rank_query(store, q, kinds=WHAT[what], projects=proj, turns=turns, terms=terms,
                            exclude_sessions=exclude_sessions, roles=roles, opts=opts, as_of=as_of)
        top = max((c.score for c in ranked), default=1.0)
        for rank, c in enumerate(ranked):
            k = (c.kind, c.ref, c.seq)
            f = fused.get(k)
            if f is None:
                f = fused[k] = _Cand(c.kind, c.ref, c.seq, c.hit_id, session=c.session)
            f.named = f.named or c.named
            f.hit_id = f.hit_id or c.hit_id
            f.score += 1.0 / (opts.rrf_k + rank + 1)
            f.rel = max(f.rel, c.score / (top or 1.0), c.own)
            f.queries.add(qi)
    weights: dict[str, float | None] = {}  # per session: many candidates share one
    for k in [k for k, c in fused.items() if c.kind == "turn"]:  # a turn's namespace is its session
        sid = fused[k].session or fused[k].ref
        w = weights[sid] if sid in weights else weights.setdefault(sid, ns.weight(sid))
        if w is None:
            del fused[k]
        else:
            fused[k].score *= w
    order = sorted(fused.values(), key=_cand_order)
    res = RecallResult(queries=qs, projects=proj, as_of=as_of)
    by_text: dict[bytes, int] = {}
    query_text = " ".join(qs)
    pool = max(limit, opts.pool) if opts.supersede and wants_current(qs) else limit
    got_hits: list[RecallHit] = []
    extra: list[_Extra] = []
    named: set[int] = set()  # indexes in got_hits of the facts the question names
    _prefetch_neighbours(store, order[:pool + pool // 2])
    # a fact's namespace is known once it is read: with namespaces in play read further,
    # then let the demotion reorder (a descendant's fact never displaces the reader's own)
    cursor = 0

    def take(n: int) -> None:
        """Materialise candidates in order until ``n`` hits are read or none is left."""
        nonlocal cursor
        while cursor < len(order) and len(got_hits) < n:
            c = order[cursor]
            cursor += 1
            got = _materialize(store, c, query_text, proj, opts, as_of, include_directives, turns, ns)
            if got is None:
                continue
            hit, full, old_bodies = got
            digest = _text_digest(full)
            if digest in by_text:
                i = by_text[digest]
                old = got_hits[i]
                got_hits[i] = old.replace(duplicates=old.duplicates + 1,
                                          queries=tuple(sorted({*old.queries, *c.queries})))
                continue
            by_text[digest] = len(got_hits)
            got_hits.append(hit)
            extra.append(_Extra(full, old_bodies, c.rel))
            if c.named:
                named.add(len(got_hits) - 1)

    # ``pool`` hits once restatements are dropped: each one dropped lets a further candidate in
    want = pool
    while True:
        take(want * 3 if ns.active() else want)
        sel = list(range(len(got_hits)))
        if ns.active():
            sel = sorted(sel, key=lambda i: (i not in named, -got_hits[i].score))
        sel = sel[:want]
        keep = restatements_dropped(store, [got_hits[i] for i in sel]) \
            if any(got_hits[i].edges for i in sel) else [True] * len(sel)
        kept = sum(keep)
        if kept >= pool or (cursor >= len(order) and len(sel) == len(got_hits)):
            break
        want += pool - kept
    got_hits = [got_hits[i] for i, k in zip(sel, keep) if k]
    extra = [extra[i] for i, k in zip(sel, keep) if k]
    lower = _Lower()
    if opts.supersede and opts.follow and got_hits and wants_current(qs):
        _follow_forward(store, got_hits, extra, by_text, query_text, proj, exclude_sessions, roles,
                        opts, as_of, turns, ns, lower)
    if opts.supersede and len(got_hits) > 1 and wants_current(qs):
        got_hits = order_hits_by_time(store, got_hits, extra, qs, opts, terms, lower.of(extra))
    got_hits = narrower_first(got_hits, scoped=proj is not None)   # keyrank rule 5 (test28 Y10)
    got_hits = files_first(store, got_hits)   # a fact a memory-file line written later replaces (test38 T3)
    got_hits = asking_last(got_hits[:limit], query_text) + got_hits[limit:]   # test29 P19
    hide = hider(store) if any(h.kind == "turn" or h.updated_later for h in got_hits[:limit]) else None
    res.hits = [_snippet(h, query_text, opts, hide) for h in got_hits[:limit]]
    res.superseded = sum(1 for h in res.hits if h.updated_later)
    res.resolved = sum(1 for h in res.hits if h.resolved_from)
    return res


def asking_last(hits: Sequence[RecallHit], query: str) -> list[RecallHit]:
    """``hits`` (turn hits holding their whole text) with each turn that only
    asks about the question ``query`` moved to just after the last fact
    among the hits before it (test29 P19: the prompt hook stores every
    prompt, and "which port does the api database use?" asked once came
    before the fact ``project/api/pg-port``).  Such a turn is not a tool's,
    states no value (``timeline.values_of``) and only asks about the
    question's words (``timeline.only_asks``, rule 7's test).  A fact
    recall found is a stored statement, the question a copy of what is
    asked; a turn that answers it goes first by rule 7 (``timeline``), and
    a question with no fact or answer after it keeps its place.  A new
    list, the same hits."""
    last = max((i for i, h in enumerate(hits) if h.kind == "fact"), default=-1)
    if last < 1 or not any(h.kind == "turn" for h in hits[:last]):
        return list(hits)
    stems, words = question_terms([query])
    moved = [i for i, h in enumerate(hits[:last]) if h.kind == "turn" and h.role != "tool"
             and not values_of(h.text, words | stems) and only_asks(h.text, stems)]
    if not moved:
        return list(hits)
    keep = [h for i, h in enumerate(hits) if i not in moved]
    at = last - len(moved) + 1   # (every moved turn was before the last fact)
    return keep[:at] + [hits[i] for i in moved] + keep[at:]


def restatements_dropped(store: Store, hits: Sequence[RecallHit]) -> list[bool]:
    """Which of ``hits`` to keep: a fact whose ``derived_from`` edge names
    another fact among the hits (its key, or any version of that key) is a
    restatement and is dropped, unless that fact is itself derived from it
    (then both stay).  Returns one bool per hit, True = keep."""
    keys = {h.key for h in hits if h.kind == "fact"}
    sources: dict[str, set[str]] = {}
    for h in hits:
        if h.kind != "fact":
            continue
        got = set()
        for rel, t in h.edges:
            if rel != "derived_from":
                continue
            if "/" not in t:  # one version: its key
                try:
                    obj = store.get(t)
                except (NotFound, CorruptObject, IntegrityError):
                    continue
                if not isinstance(obj, Fact):
                    continue
                t = obj.key
            if t in keys and t != h.key:
                got.add(t)
        sources[h.key or ""] = got
    return [h.kind != "fact" or not any(h.key not in sources.get(s, ()) for s in sources.get(h.key or "", ()))
            for h in hits]


def _snippet(h: RecallHit, query: str, opts: RecallOptions, hide: Hider | None = None) -> RecallHit:
    """A turn hit (holding its whole text until now) with the passage shown;
    a forgotten ``--match`` text in a turn's text served (``hide``:
    ``tombstones.hider``) shown as ``[forgotten]``: in the passage, or in
    the whole text where that is served (``opts.snippet`` 0, a fact hit's
    later turn)."""
    from objstore.index.searchindex import make_snippet  # deferred: tantivy
    later = h.updated_later
    snip = h.kind == "turn" and opts.snippet
    if later is not None and later.get("kind") == "turn" and (snip or hide):
        later = {**later, "text": make_snippet(later["text"], query, 200, hide) if snip else hide.text(later["text"])}
    if snip:
        return h.replace(text=make_snippet(h.text, query, opts.snippet, hide), updated_later=later)
    if hide and h.kind == "turn":
        return h.replace(text=hide.text(h.text), updated_later=later)
    return h if later is h.updated_later else h.replace(updated_later=later)


def _prefetch_neighbours(store: Store, cands: Sequence[_Cand]) -> None:
    """Find the ids of neighbour candidates (no index hit of their own) with
    one index lookup per session instead of one per turn."""
    want: dict[str, list[_Cand]] = defaultdict(list)
    for c in cands:
        if c.kind == "turn" and c.hit_id is None:
            want[c.session or c.ref].append(c)
    for sid, cs in want.items():
        found = store.index.turns_at(sid, [c.seq for c in cs])
        for c in cs:
            h = found.get(c.seq)
            c.hit_id = h.id if h is not None else ""  # "": looked up, not indexed


class _Extra(Record):
    """What ranking keeps beside a hit: ``full``, the whole text (a fact:
    key words + body); ``old_bodies``, a fact's older versions' bodies (as of
    the read); ``anchor``, for a probe the index of the hit it was found from
    (``_follow_forward``)."""

    __slots__ = ("full", "old_bodies", "rel", "anchor")

    def __init__(self, full: str, old_bodies: list[str], rel: float, anchor: int = -1) -> None:
        set_fields(self, full, old_bodies, rel, anchor)


def _follow_forward(store: Store, hits: list[RecallHit], extra: list[_Extra], by_text: dict, query: str,
                    projects: tuple[str, ...] | None, exclude_sessions: Iterable[str],
                    roles: Sequence[str] | None, opts: RecallOptions, as_of: int | None,
                    turns: dict[str, Turn] | None = None, ns: _NsView | None = None,
                    lowered: _Lower | None = None) -> int:
    """Follow the subject forward in time: for each of the first
    ``opts.follow`` turn hits (and as many facts: the person's turns; a
    ``user/`` one's of the recall's projects; tl33: "db" finds "database"),
    search the turns of its project recorded
    after it for its own words and the question's (a later statement of a
    value reuses the words of the earlier one more than the question's:
    "We use Mocha as the test runner for the unit tests" -> "Switched the
    unit tests over to Ava").  Up to 3 new turns per hit are appended to
    ``hits``/``extra`` as *probes*; returns how many.  A probe is kept by
    ``recalltime.order_hits_by_time`` only if it supersedes a hit."""
    from objstore.index.searchindex import QUERY_STOPWORDS, tokenize  # deferred: tantivy
    end = (as_of + 1) if as_of is not None else 2 ** 62
    n = added = u = 0
    stems, words = question_terms([query])
    lower: set[str] | None = None
    for i, (h, e) in enumerate(list(zip(hits, extra))[:opts.pool]):
        fact = h.kind == "fact"
        user = fact and h.key.startswith("user/")   # the person's later word, in any project (P13)
        if (u if fact else n) >= opts.follow or h.kind != "turn" and not fact or not h.time or h.time + 1 >= end:
            continue
        u, n = (u + 1, n) if fact else (u, n + 1)   # (a fact takes no turn's place)
        if lower is None:
            lower = (lowered or _Lower()).of(extra)
        if not user and not values_of(e.full, words | stems, lower):
            continue  # states no value: nothing a later statement could change
        own = [t for t in dict.fromkeys(tokenize(e.full[:2000])) if t not in QUERY_STOPWORDS][:16]
        words_q = without_scope_words(" ".join(own + (other_forms(own) if fact else [])) + " " + query, projects)
        # in the hit's project even for --all-projects (a later statement elsewhere does not supersede
        # it; and at a million turns the project's postings are a fraction of the store's: 40 -> 15 ms)
        found = store.index.search(words_q, limit=8, kinds=("turn",),
                                   projects=projects if user else [h.project] if (projects is not None or h.project)
                                   else None, exclude_refs=exclude_sessions, roles=("user",) if fact else roles, stopwords=opts.stopwords,
                                   scope_idf=opts.scope_idf, times=[(h.time + 1, end)],
                                   texts=_texts_reader(store, turns))
        took = 0
        for f in found:
            if took >= 5:
                break
            got = _materialize(store, _Cand("turn", f.ref, f.seq, f.id, session=f.ref), query, projects, opts,
                               as_of, turns=turns, ns=ns)
            if got is None:
                continue
            hit, full, _ = got
            digest = _text_digest(full)
            if digest in by_text:
                continue
            by_text[digest] = len(hits)
            hits.append(hit.replace(score=0.0))
            extra.append(_Extra(full, [], e.rel * opts.share, anchor=i))
            took += 1
            added += 1
    return added


class _NsView:
    """The namespace side of recall's filter (``scope.namespace_rank``):
    the reader, and ``within`` for ``--from-agent``."""

    def __init__(self, reader: str | None, within: str | None = None) -> None:
        self.reader, self.within = reader, within

    def active(self) -> bool:
        """Whether facts may be left out or demoted once read (a reader
        namespace or ``within``): then recall reads further and re-sorts.
        In the person's view turns are still demoted by depth (their
        namespace is their session id, known before they are read)."""
        return bool(self.reader) or self.within is not None

    def weight(self, ns: str) -> float | None:
        """None when ``ns`` is not for the reader, else its score factor."""
        if self.within is not None and not within_namespace(ns, self.within):
            return None
        r = namespace_rank(self.reader, ns)
        return None if r is None else namespace_weight(r)


def _materialize(store: Store, c: _Cand, query: str, projects: tuple[str, ...] | None,
                 opts: RecallOptions, as_of: int | None = None, include_directives: bool = False,
                 turns: dict[str, Turn] | None = None,
                 ns: _NsView | None = None) -> tuple[RecallHit, str, list[str]] | None:
    """Resolve a candidate against the objects: (hit, its full text, the
    bodies of a fact's older versions), or None to skip it."""
    ns = ns or _NsView(None)
    try:
        if c.kind == "fact":
            from objstore.memory.facts import current_noting_lost, listed_chain, visible  # deferred: a fact hit's only
            head = store.refs.read("facts/" + c.ref)
            if head is None:
                return None
            chain = listed_chain(store, "facts/" + c.ref, head)
            if chain is None:
                return None   # a damaged ref: noted, warned about (fsck --repair mends it)
            cur = current_noting_lost(store, c.ref, chain, as_of, ns.reader)   # a lost current value: warned
            if cur is None:
                return None
            oid, f = cur.id, cur.fact
            if not visible(f, include_directives) or visibility(f.key, f.namespace, projects, ns.reader) is None:
                return None
            w = ns.weight(f.namespace)
            if w is None:
                return None
            older = [v.fact.body for v in chain
                     if v.id != oid and visible(v.fact) and (as_of is None or v.fact.recorded_at <= as_of)
                     and namespace_rank(ns.reader, v.fact.namespace) is not None
                     and (v.fact.valid_from, v.fact.version) < (f.valid_from, f.version)]
            return RecallHit(kind="fact", id=oid, score=c.score * w, text=f.body, time=f.valid_from,
                             project=key_project(f.key) or "", trust=f.trust, key=f.key,
                             version=f.version, fact_kind=f.kind, valid_from=f.valid_from,
                             pinned=f.pinned, dormant=bool(getattr(f, "dormant", False)),
                             resolved_from=older_match(chain, oid, c.hit_id, as_of, ns.reader),
                             queries=tuple(sorted(c.queries)), edges=f.edges, namespace=f.namespace), \
                fact_text(f.key, f.body), older
        oid = c.hit_id
        if oid == "":
            return None
        if oid is None:
            found = store.index.turns_at(c.session or c.ref, [c.seq]).get(c.seq)
            if found is None:
                return None
            oid = found.id
        t = turns.get(oid) if turns is not None else None
        if t is None:
            t = store.get(oid, Turn)
        if getattr(t, "forgotten", 0) or not t.text.strip():
            return None
        if as_of is not None and t.timestamp > as_of:
            return None
        if projects is not None and t.project and t.project not in projects:
            return None
        if ns.weight(t.session) is None:  # every path to a turn hit goes through the namespace filter
            return None
        return RecallHit(kind="turn", id=oid, score=c.score, text=t.text, time=t.timestamp,
                         project=t.project, trust=turn_trust(t), session=t.session,
                         seq=t.seq, role=t.role, harness=t.harness, cwd=t.cwd, source=t.source,
                         queries=tuple(sorted(c.queries)), author=turn_author(t),
                         untrusted=t.untrusted, namespace=t.session), t.text, []
    except RefFolderDamaged:   # a file in place of refs/facts/<scope>: every key under it unreadable (T9)
        raise
    except (NotFound, CorruptObject, IntegrityError):
        return None  # the index is ahead of the objects (a crash, a forget): skip
