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
2. **Neighbouring turns.**  Scores are divided by the best score of the
   query (so they lie in 0..1).  Each turn hit gives ``neighbours`` times
   its score to the turns just before and after it in its session (the
   question before an answer, the answer after a question).
3. **Session evidence.**  Each turn gains ``session_boost`` times the sum
   of the normalised scores of the hits in its session (answers cluster in
   the session where the subject was discussed).

The phrasings' rankings are then fused by reciprocal rank (Cormack, Clarke
and Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and individual
rank learning methods", SIGIR 2009): ``score = sum(1 / (rrf_k + rank))``
with ``rrf_k = 60``; with one phrasing the order is that phrasing's.

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

Measured on LoCoMo (``docs/benchmarks.md``, ``mem eval locomo``): stemming,
query stop words, neighbours and session evidence take R@10 from 0.52 to
0.68 with no model call.

``recall`` never writes, never prints, and reads no process settings.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from objstore.core.errors import CorruptObject, IntegrityError, InvalidInput, NotFound
from objstore.core.objects import Fact, Turn
from objstore.core.store import Store
from objstore.memory.facts import current_of, walk
from objstore.memory.scope import applies, key_project

#: ``what`` -> index sub-indexes searched (``history``: fact versions that are not current)
WHAT = {"all": ("fact", "history", "turn"), "facts": ("fact", "history"), "turns": ("turn",)}

#: What a turn's text is worth as evidence, by role (shown as ``trust``).
TURN_TRUST = {"user": "user_stated", "assistant": "agent_observed", "tool": "tool_output",
              "system": "system"}

MAX_QUERIES = 16


@dataclass(frozen=True)
class RecallOptions:
    """Tuning of :func:`recall` (defaults measured on LoCoMo).

    Attributes:
        depth: BM25 hits kept per phrasing before re-ranking.
        neighbours: share of a turn hit's normalised score given to the
            turns at seq - 1 and seq + 1 of its session (0 disables).
        session_boost: weight of the summed normalised scores of a
            session's hits, added to each of its turns (0 disables).
        stopwords: drop query stop words (``searchindex.QUERY_STOPWORDS``).
        rrf_k: the constant of reciprocal rank fusion.
        snippet: characters of a turn's text shown around the match
            (0: the whole text).
    """

    depth: int = 30
    neighbours: float = 0.3
    session_boost: float = 0.1
    stopwords: bool = True
    rrf_k: int = 60
    snippet: int = 320


@dataclass(frozen=True)
class RecallHit:
    """One recalled item.

    Attributes:
        kind: ``fact`` or ``turn``.
        id: object id (for a fact: its **current** version).
        score: fused score (reciprocal rank fusion; higher is better).
        text: the fact's current value, or a passage of the turn.
        key, version, fact_kind, valid_from, pinned, dormant: the fact's
            (None / False for turns).
        resolved_from: id of the older version the search matched, when the
            hit was resolved to the key's current version; else None.
        session, seq, time, role, project, harness, cwd, source: provenance
            of a turn (``source`` is the id of the transcript record it came
            from; ``time`` is ms since epoch; for a fact, ``time`` is its
            ``valid_from`` and ``project`` its key's project or "").
        trust: a fact's trust; for a turn :data:`TURN_TRUST` of its role.
        duplicates: byte-identical hits collapsed into this one.
        queries: indexes of the phrasings that found it.
    """

    kind: str
    id: str
    score: float
    text: str
    time: int
    project: str
    trust: str
    key: str | None = None
    version: int | None = None
    fact_kind: str | None = None
    valid_from: int | None = None
    pinned: bool = False
    dormant: bool = False
    resolved_from: str | None = None
    session: str | None = None
    seq: int | None = None
    role: str | None = None
    harness: str | None = None
    cwd: str | None = None
    source: str | None = None
    duplicates: int = 0
    queries: tuple[int, ...] = ()

    def to_json(self) -> dict:
        """A JSON-ready dict (None fields of the other kind left out)."""
        d = {"kind": self.kind, "id": self.id, "score": round(self.score, 6), "text": self.text,
             "time": self.time, "project": self.project, "trust": self.trust}
        if self.kind == "fact":
            d.update(key=self.key, version=self.version, fact_kind=self.fact_kind,
                     valid_from=self.valid_from, pinned=self.pinned, dormant=self.dormant,
                     resolved_from=self.resolved_from)
        else:
            d.update(session=self.session, seq=self.seq, role=self.role, harness=self.harness,
                     cwd=self.cwd, source=self.source)
        d.update(duplicates=self.duplicates, queries=list(self.queries))
        return d


@dataclass
class RecallResult:
    """What :func:`recall` found.

    Attributes:
        queries: the phrasings searched.
        projects: the project scope (aliases; the first is the project's
            name), or None for every project.
        hits: best first.
        resolved: how many fact hits were on an older version and were
            resolved to the current one.
    """

    queries: list[str]
    projects: tuple[str, ...] | None
    hits: list[RecallHit] = field(default_factory=list)
    resolved: int = 0


@dataclass
class _Cand:
    kind: str
    ref: str              # fact key, or session id
    seq: int = 0
    hit_id: str | None = None  # id of the indexed doc that matched (None: a neighbour)
    score: float = 0.0
    session: str = ""
    queries: set = field(default_factory=set)


def rank_query(store: Store, query: str, *, kinds: tuple[str, ...], projects: Sequence[str] | None,
               exclude_sessions: Iterable[str] = (), roles: Sequence[str] | None = None,
               opts: RecallOptions = RecallOptions()) -> list[_Cand]:
    """One phrasing: BM25, then neighbours and session evidence; candidates
    best first (keys: fact key, or (session, seq))."""
    hits = store.index.search(query, limit=opts.depth, kinds=kinds,
                              projects=None if projects is None else [*projects, ""],
                              exclude_refs=exclude_sessions, roles=roles, stopwords=opts.stopwords)
    if not hits:
        return []
    top = max(h.score for h in hits) or 1.0
    positions = "turn" in kinds and store.index.has_seq("turn")  # else no neighbours, key by id
    cands: dict[tuple, _Cand] = {}
    session_sum: dict[str, float] = defaultdict(float)
    for h in hits:
        s = h.score / top
        if h.kind in ("fact", "history"):  # a key: whichever version matched, the current one is shown
            c = cands.setdefault(("fact", h.ref), _Cand("fact", h.ref, hit_id=h.id))
            c.score = max(c.score, s)
            continue
        k = ("turn", h.ref, h.seq) if positions else ("turn", h.id, 0)
        c = cands.setdefault(k, _Cand("turn", k[1], h.seq))
        c.hit_id, c.score, c.session = h.id, c.score + s, h.ref
        session_sum[h.ref] += s
    if opts.neighbours and positions:
        for h in hits:
            if h.kind != "turn":
                continue
            s = h.score / top
            for n in (h.seq - 1, h.seq + 1):
                if n < 0:
                    continue
                c = cands.setdefault(("turn", h.ref, n), _Cand("turn", h.ref, n, session=h.ref))
                c.score += opts.neighbours * s
    if opts.session_boost:
        for c in cands.values():
            if c.kind == "turn":
                c.score += opts.session_boost * session_sum.get(c.session, 0.0)
    return sorted(cands.values(), key=lambda c: (-c.score, c.kind, c.ref, c.seq))


def recall(store: Store, queries: Sequence[str] | str, *, what: str = "all",
           projects: Sequence[str] | None = None, limit: int = 10,
           exclude_sessions: Iterable[str] = (), roles: Sequence[str] | None = None,
           opts: RecallOptions = RecallOptions()) -> RecallResult:
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
    Returns:
        :class:`RecallResult` (the algorithm is in the module docstring).
    Raises:
        InvalidInput: no query with a searchable word, bad ``what`` or
            ``limit``.
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
    for q in qs:
        try:
            q.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInput("a query is not valid UTF-8 text") from None
    store.try_recover()
    proj = None if projects is None else tuple(projects)
    fused: dict[tuple, _Cand] = {}
    for qi, q in enumerate(qs):
        ranked = rank_query(store, q, kinds=WHAT[what], projects=proj,
                            exclude_sessions=exclude_sessions, roles=roles, opts=opts)
        for rank, c in enumerate(ranked):
            k = (c.kind, c.ref, c.seq)
            f = fused.get(k)
            if f is None:
                f = fused[k] = _Cand(c.kind, c.ref, c.seq, c.hit_id, session=c.session)
            f.hit_id = f.hit_id or c.hit_id
            f.score += 1.0 / (opts.rrf_k + rank + 1)
            f.queries.add(qi)
    order = sorted(fused.values(), key=lambda c: (-c.score, c.kind, c.ref, c.seq))
    res = RecallResult(queries=qs, projects=proj)
    by_text: dict[bytes, int] = {}
    query_text = " ".join(qs)
    for c in order:
        if len(res.hits) >= limit:
            break
        got = _materialize(store, c, query_text, proj, opts)
        if got is None:
            continue
        hit, full = got
        import hashlib
        digest = hashlib.blake2b(full.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        if digest in by_text:
            i = by_text[digest]
            old = res.hits[i]
            res.hits[i] = _replace(old, duplicates=old.duplicates + 1,
                                   queries=tuple(sorted({*old.queries, *c.queries})))
            continue
        by_text[digest] = len(res.hits)
        if hit.resolved_from:
            res.resolved += 1
        res.hits.append(hit)
    return res


def _replace(h: RecallHit, **kw) -> RecallHit:
    from dataclasses import replace
    return replace(h, **kw)


def _materialize(store: Store, c: _Cand, query: str, projects: tuple[str, ...] | None,
                 opts: RecallOptions) -> tuple[RecallHit, str] | None:
    """Resolve a candidate against the objects: (hit, its full text), or
    None to skip it."""
    from objstore.index.searchindex import make_snippet  # deferred: imports tantivy
    try:
        if c.kind == "fact":
            cur = current_version(store, c.ref)
            if cur is None:
                return None
            oid, f = cur
            if not visible(f) or not applies(f.key, projects):
                return None
            return RecallHit(kind="fact", id=oid, score=c.score, text=f.body, time=f.valid_from,
                             project=key_project(f.key) or "", trust=f.trust, key=f.key,
                             version=f.version, fact_kind=f.kind, valid_from=f.valid_from,
                             pinned=f.pinned, dormant=bool(getattr(f, "dormant", False)),
                             resolved_from=c.hit_id if c.hit_id and c.hit_id != oid else None,
                             queries=tuple(sorted(c.queries))), f.body
        oid = c.hit_id
        if oid is None:
            found = store.index.turns_at(c.session or c.ref, [c.seq]).get(c.seq)
            if found is None:
                return None
            oid = found.id
        t = store.get(oid, Turn)
        if getattr(t, "forgotten", 0) or not t.text.strip():
            return None
        if projects is not None and t.project and t.project not in projects:
            return None
        text = make_snippet(t.text, query, opts.snippet) if opts.snippet else t.text
        return RecallHit(kind="turn", id=oid, score=c.score, text=text, time=t.timestamp,
                         project=t.project, trust=TURN_TRUST.get(t.role, t.role), session=t.session,
                         seq=t.seq, role=t.role, harness=t.harness, cwd=t.cwd, source=t.source,
                         queries=tuple(sorted(c.queries))), t.text
    except (NotFound, CorruptObject, IntegrityError):
        return None  # the index is ahead of the objects (a crash, a forget): skip


def visible(f: Fact) -> bool:
    """Whether a fact version may be shown by recall, context or injection:
    not secret (sealed values are never shown) and not forgotten."""
    return f.sensitivity != "secret" and not getattr(f, "forgotten", 0) and bool(f.body.strip())


def current_version(store: Store, key: str) -> tuple[str, Fact] | None:
    """``(id, Fact)`` of ``key``'s current version by the supersession rule,
    or None (no such key, nothing current).  Raises IntegrityError for a
    broken history."""
    head = store.refs.read("facts/" + key)
    if head is None:
        return None
    cur = current_of(list(walk(store, head)))
    return None if cur is None else (cur.id, cur.fact)
