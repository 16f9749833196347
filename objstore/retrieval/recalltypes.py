"""The shapes :func:`objstore.retrieval.recall.recall` takes and returns:
:class:`RecallOptions` (its tuning), :class:`RecallHit` (one thing found),
:class:`RecallResult` (the whole answer), and :func:`iso_time` (how a hit
shows its time).

Split from ``recall`` (the ranking) so that module holds the search and its
rules only; ``recall`` re-exports every name here.
"""

from __future__ import annotations

from objstore.core.record import Frozen, Record, set_fields


class RecallOptions(Frozen):
    """Tuning of :func:`recall` (defaults measured on LoCoMo).

    Attributes:
        depth: BM25 hits kept per phrasing before re-ranking.
        neighbours: share of a turn hit's normalised score given to the
            turns at seq - 1 and seq + 1 of its session (0 disables).
        neighbours2: the same for the turns at seq - 2 and seq + 2 (an
            answer often comes two turns after the question).
        session_boost: weight of the summed normalised scores of a
            session's hits, added to each of its turns (0 disables).
        stopwords: drop query stop words (``searchindex.QUERY_STOPWORDS``).
        rrf_k: the constant of reciprocal rank fusion.
        snippet: characters of a turn's text shown around the match
            (0: the whole text).
        recency: weight of the recency factor: a turn hit's normalised
            score is multiplied by ``1 + recency * 0.5 ** (age / half_life)``,
            ``age`` counted from the newest hit of the query (0 disables).
        half_life_days: age at which the recency bonus halves, in days.
        supersede: order the results by the supersession rule of
            ``objstore.retrieval.timeline`` (a passage whose value was
            changed later goes below what changed it and says so).
        share: a superseding item needs at least this share of the
            superseded one's relevance (``timeline`` rule 4).
        similar: weighted share of the superseded item's content terms the
            superseding one must hold (``timeline`` rule 3).
        pool: candidates materialised and compared by that rule (at least
            ``limit``).
        scope_idf: count BM25's IDF over the documents of the project
            scope, not the whole store (a word every document of the
            project holds tells nothing apart inside it).
        dates: bonus for the turns recorded inside a span the question
            names (``objstore.retrieval.dates``: "on 14 June 2025", "in
            June 2025"): their score is multiplied by ``1 + dates``, and
            the span is searched on its own too (0 disables).
        coverage: exponent of the coverage factor: a turn hit's score is
            multiplied by ``(IDF mass of the query words it holds / IDF
            mass of all of them) ** coverage`` (0 disables).
        measure: bonus for the turns stating a quantity of the kind the
            question asks for (:func:`measure_pattern`: "how large" -> a
            size, "how long" -> a duration, "how many" -> a number):
            their score is multiplied by ``1 + measure`` (0 disables).
        base_forms: an agent noun of the query that no document of the
            scope holds is searched as the verb it is made from
            (:func:`with_base_forms`: "test runner" -> "run").
        gate: the content gate (``objstore.retrieval.relevance``): a turn
            hit holding none of the question's content words is dropped
            (False: every BM25 hit ranks).
        follow: for a question about the present, follow the first
            ``follow`` turn hits forward in time: the later turns of their
            project that restate their words are compared by the
            supersession rule and kept only where they supersede the hit
            they were found from (0 disables).
    """

    __slots__ = ("depth", "neighbours", "neighbours2", "session_boost", "stopwords", "rrf_k", "snippet", "recency",
                 "half_life_days", "supersede", "share", "similar", "pool", "scope_idf", "dates", "follow",
                 "coverage", "base_forms", "measure", "gate")

    def __init__(self, depth: int = 30, neighbours: float = 0.4, neighbours2: float = 0.2, session_boost: float = 0.1,
                 stopwords: bool = True, rrf_k: int = 60, snippet: int = 320, recency: float = 0.2,
                 half_life_days: float = 30.0, supersede: bool = True, share: float = 0.2, similar: float = 0.3,
                 pool: int = 15, scope_idf: bool = True, dates: float = 1.0, follow: int = 1, coverage: float = 1.0,
                 base_forms: bool = True, measure: float = 0.5, gate: bool = True) -> None:
        set_fields(self, depth, neighbours, neighbours2, session_boost, stopwords, rrf_k, snippet, recency,
                   half_life_days, supersede, share, similar, pool, scope_idf, dates, follow, coverage, base_forms,
                   measure, gate)


class RecallHit(Frozen):
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
        trust: a fact's trust; for a turn ``provenance.turn_trust`` (by its
            role, and ``agent_observed`` for a sub-agent's prompt).
        author: who wrote a turn's text (``provenance.turn_author``:
            ``person``, ``parent_agent``, ``agent``, ``tool``, ``system``);
            None for facts.
        untrusted: a turn written after its session read outside content
            (``Turn.untrusted``).
        duplicates: byte-identical hits collapsed into this one.
        queries: indexes of the phrasings that found it.
        namespace: the namespace it belongs to (a fact's ``namespace``; a
            turn's session id), "" for none (``objstore.memory.scope``).
        updated_later: for a passage superseded by a later statement
            (``objstore.retrieval.timeline``): ``{"kind", "id", "time",
            "date", "text"}`` plus ``session``/``seq`` or ``key`` of the
            newest item that superseded it; else None.
        edges: a fact's edges (``Fact.edges``: sorted ``(relation,
            target)`` pairs); () for turns.
    """

    __slots__ = ("kind", "id", "score", "text", "time", "project", "trust", "key", "version", "fact_kind",
                 "valid_from", "pinned", "dormant", "resolved_from", "session", "seq", "role", "harness", "cwd",
                 "source", "duplicates", "queries", "updated_later", "edges", "author", "untrusted", "namespace")

    def __init__(self, kind: str, id: str, score: float, text: str, time: int, project: str, trust: str,
                 key: str | None = None, version: int | None = None, fact_kind: str | None = None,
                 valid_from: int | None = None, pinned: bool = False, dormant: bool = False,
                 resolved_from: str | None = None, session: str | None = None, seq: int | None = None,
                 role: str | None = None, harness: str | None = None, cwd: str | None = None,
                 source: str | None = None, duplicates: int = 0, queries: tuple[int, ...] = (),
                 updated_later: dict | None = None, edges: tuple[tuple[str, str], ...] = (),
                 author: str | None = None, untrusted: bool = False, namespace: str = "") -> None:
        set_fields(self, kind, id, score, text, time, project, trust, key, version, fact_kind, valid_from, pinned,
                   dormant, resolved_from, session, seq, role, harness, cwd, source, duplicates, queries,
                   updated_later, edges, author, untrusted, namespace)

    @property
    def date(self) -> str:
        """``time`` as an ISO 8601 date-time in UTC (``2025-06-01T10:00:00Z``;
        "" for an unknown time)."""
        return iso_time(self.time)

    def to_json(self) -> dict:
        """A JSON-ready dict (None fields of the other kind left out)."""
        d = {"kind": self.kind, "id": self.id, "score": round(self.score, 6), "text": self.text,
             "time": self.time, "date": self.date, "project": self.project, "trust": self.trust}
        if self.kind == "fact":
            d.update(key=self.key, version=self.version, fact_kind=self.fact_kind,
                     valid_from=self.valid_from, pinned=self.pinned, dormant=self.dormant,
                     resolved_from=self.resolved_from, edges={})
            for rel, target in self.edges:  # {relation: [target, ...]}, as the object's edges field
                d["edges"].setdefault(rel, []).append(target)
        else:
            d.update(session=self.session, seq=self.seq, role=self.role, harness=self.harness,
                     cwd=self.cwd, source=self.source, author=self.author, untrusted=self.untrusted)
        d.update(duplicates=self.duplicates, queries=list(self.queries), updated_later=self.updated_later,
                 namespace=self.namespace)
        return d


def iso_time(ms: int | None) -> str:
    """ms since epoch -> ``YYYY-MM-DDTHH:MM:SSZ`` (UTC); "" for 0 or None."""
    if not ms:
        return ""
    import time as _t
    return _t.strftime("%Y-%m-%dT%H:%M:%SZ", _t.gmtime(ms / 1000))


class RecallResult(Record):
    """What :func:`recall` found.

    Attributes:
        queries: the phrasings searched.
        projects: the project scope (aliases; the first is the project's
            name), or None for every project.
        hits: best first.
        resolved: how many fact hits were on an older version and were
            resolved to the current one.
        superseded: how many hits were placed below a later statement.
        as_of: the time read as of (ms), or None for now.
    """

    __slots__ = ("queries", "projects", "hits", "resolved", "superseded", "as_of")

    def __init__(self, queries: list[str], projects: tuple[str, ...] | None, hits: list[RecallHit] | None = None,
                 resolved: int = 0, superseded: int = 0, as_of: int | None = None) -> None:
        set_fields(self, queries, projects, [] if hits is None else hits, resolved, superseded, as_of)
