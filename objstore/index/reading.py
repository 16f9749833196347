"""The read side of the search index: :class:`SearchIndexReads`, the
methods of :class:`~objstore.index.searchindex.SearchIndex` that only read
(BM25 search with its filters and glued-word check (the check itself:
:mod:`objstore.index.gluedcheck`), filtered counts, turns
by session and seq, term and document statistics, the substring
prefilter's candidates, the proof that forgotten ids are purged).  Readers
take no lock; a generation a writer replaced meanwhile is read again from
``CURRENT`` (REPLACED_RETRIES).  Queries and scoring: ``docs/format.md``,
"Search index (derived)"."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping

import tantivy

from objstore.core.ids import is_full_id
from objstore.core.text import confusable_fold
from objstore.index.analysis import tokenize, word_pairs
from objstore.index.countcache import GenCounts, count_key
from objstore.index.errors import IndexCorruptError
from objstore.index.generations import HOME, OpenGeneration, is_panic, shard_index
from objstore.index.genfiles import generation_files, held_ids
from objstore.index.gluedcheck import GLUED_FETCH, check_glued
from objstore.index.query import (
    SubstringQueries,
    build_query,
    filter_clauses,
    idf,
    query_words,
    substring_conditions,
)
from objstore.index.schema import KINDS, Hit, hits_at, ids_at

__all__ = ["FLAT_FILTERS", "GLUED_FETCH", "REPLACED_RETRIES", "SearchIndexReads"]

#: Times a reader reads ``CURRENT`` again when a generation it named was
#: replaced (and its directory removed) by a writer before the reader
#: reloaded it: a rebuild, a forget's purge.  Readers take no lock.
REPLACED_RETRIES = 5
#: put the filter clauses beside the word clauses (``build_query(required=)``);
#: False: the word query nested in a MUST clause (the same hits and scores, slower)
FLAT_FILTERS = True


def _time_filter(schema: "tantivy.Schema", spans: Iterable[tuple[int, int]]) -> "tantivy.Query":
    """Constant-score 0 query: ``time`` in one of ``spans`` (end exclusive;
    none: matches nothing)."""
    qs = [(tantivy.Occur.Should, tantivy.Query.range_query(schema, "time", tantivy.FieldType.Integer,
                                                           int(a), int(b), include_upper=False))
          for a, b in spans if b > a]
    if not qs:
        return tantivy.Query.empty_query()
    return tantivy.Query.const_score_query(tantivy.Query.boolean_query(qs), 0.0)


class SearchIndexReads:
    """The reading methods of :class:`~objstore.index.searchindex.SearchIndex`
    (a base class of it: it uses the sub-indexes and caches that
    ``SearchIndex.__init__`` sets up); not used on its own."""

    def search(self, query: str, *, limit: int = 10,
               kinds: tuple[str, ...] = ("fact", "turn"),
               projects: Iterable[str] | None = None,
               exclude_refs: Iterable[str] = (),
               roles: Iterable[str] | None = None,
               stopwords: bool = True,
               scope_idf: bool = False,
               times: Iterable[tuple[int, int]] | None = None,
               idf_out: dict[str, float] | None = None,
               texts: Callable[[list[str]], Mapping[str, str]] | None = None) -> list[Hit]:
        """BM25 search of ``query`` in the sub-indexes named by ``kinds``.

        ``query`` is plain text, never query syntax (``docs/format.md``, "Queries");
        quotes, colons, parentheses, AND/OR/NOT and ``*`` are ordinary
        words or separators.  Filters select without scoring: ``projects``
        (documents whose project is one of these; ``""`` is "no project",
        e.g. user and global facts), ``exclude_refs`` (drop these fact keys /
        session ids), ``roles`` (turn roles or fact kinds).  ``stopwords``
        False keeps the ``QUERY_STOPWORDS`` words.  Every shard of the turns
        is searched; scores use collection-wide IDF (``docs/format.md``).
        ``scope_idf`` (with ``projects``): the IDF is counted over the
        documents the project filter selects instead (one count query per
        word and generation): a word every document of the project holds
        (its own name, "backend", a speaker's name) tells nothing apart
        inside it, however rare it is in the whole store.  ``times``: keep
        only documents whose ``time`` (ms) lies in one of these
        ``(start, end)`` spans (end exclusive; scores and IDF unchanged).
        ``idf_out``: filled with ``{token: IDF}`` of the query's
        single-token words (:func:`tokenize` tokens) as the scores used
        them (collection-wide, or in the scope), for scoring outside
        tantivy without counting again.
        ``texts``: given object ids, their indexed bodies (``{id: text}``; an
        id left out is taken as it is).  A generation without the ``pairs``
        field (the turns' since session 7) answers a multi-token word with
        the conjunction of its terms; with ``texts``, its hits among the
        best ``GLUED_FETCH * limit`` are checked, best first and only as
        many as can still reach the best ``limit``, for the word standing
        glued in their text (``glued_in``), and one that fails is scored
        again without that word (dropped when nothing else matched), as the
        ``pairs`` field would have scored it (``docs/format.md``, "Queries").
        Without ``texts`` such a word is the bare conjunction there.

        Returns at most ``limit`` hits, best first (ties: newer ``time``
        first, then id).  Returns ``[]`` for a query without tokens or when
        no index exists.  Raises ``ValueError`` if ``limit < 1`` or a kind
        is unknown, ``IndexCorruptError`` if the index cannot be read.
        """
        if not isinstance(query, str):
            raise ValueError("query must be str")
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be an int >= 1, got {limit!r}")
        for k in kinds:
            if k not in KINDS:
                raise ValueError(f"unknown kind {k!r}; expected one of {KINDS}")
        raw: list[str] = []
        words = query_words(query, stopwords, raw)
        if not words:
            return []
        projects = None if projects is None else list(projects)
        roles = None if roles is None else list(roles)
        exclude_refs = list(exclude_refs)
        # Open a consistent searcher per live generation (sub-index or
        # shard) first: the term statistics of all of them are needed to
        # score on collection-wide IDF (otherwise a rare word in the small
        # facts index and a common one in the turns index would not compare).
        opened = self._open_searchers(kinds)
        if not opened:
            return []
        # word i in each generation's own term form (its terms depend on the format alone; a
        # `simple` format may cut a non-ASCII word into more terms than another format does)
        by_fmt: dict[tuple[str, bool], tuple[list, list]] = {}
        for o in opened:
            fk = (o.fmt.analyzer, o.fmt.simple)
            if fk not in by_fmt:
                by_fmt[fk] = ([o.fmt.word_terms(toks) for toks in words], [o.fmt.joined(toks) for toks in words])
        # a generation without positions answers a multi-token word with its pairs (build_query)
        pairs = ([word_pairs(w) if any(len(f[0][k]) > 1 for f in by_fmt.values()) else ()
                  for k, w in enumerate(raw)]
                 if any(not o.fmt.positions for o in opened) else None)
        forms = [by_fmt[(o.fmt.analyzer, o.fmt.simple)][0] for o in opened]
        joins = [by_fmt[(o.fmt.analyzer, o.fmt.simple)][1] for o in opened]
        num_docs = [int(o.searcher.num_docs) for o in opened]
        # every generation is asked for the terms of every format searched, so that a term's
        # collection-wide document frequency counts it wherever it is held
        all_terms = {t for fs, js in by_fmt.values() for f in fs for t in f} | {
            j for _fs, js in by_fmt.values() for j in js if j is not None}
        df: list[dict[str, int]] = []
        for i, o in enumerate(opened):
            df.append({t: int(o.searcher.doc_freq("text", t)) for t in all_terms})
        # The statistics the IDF is computed from: the whole collection, or
        # the documents of the project scope (counted with the filter).
        # A generation holding a kind not asked for (facts/ holds fact and
        # history) counts only the documents of the kinds asked for.
        glob_n, glob_df = num_docs, df
        scope = projects if scope_idf and projects is not None else None
        if scope is not None or any(o.only for o in opened):
            glob_n, glob_df = list(num_docs), list(df)
            for i, o in enumerate(opened):
                if scope is not None or o.only:
                    glob_n[i], glob_df[i] = self._counts(o, df[i], scope)
        total_docs = sum(glob_n)
        scoped = glob_df is not df

        cache: dict[tuple, float] = {}

        def glob_idf(w: int, toks: tuple, pos: int | None) -> float:
            """Collection-wide idf of word w's term at ``pos`` of its terms
            ``toks`` in one format (None: its joined term): each generation
            counts its own form of that term, or the term itself where its
            format cuts the word into another number of terms."""
            v = cache.get((w, toks, pos))
            if v is None:
                n = 0
                for j in range(len(opened)):
                    if pos is None:
                        t = joins[j][w]
                        if t is None:
                            continue
                    else:
                        f = forms[j][w]
                        t = f[pos] if len(f) == len(toks) else toks[pos]
                    n += glob_df[j][t]
                v = cache[(w, toks, pos)] = idf(n, total_docs)
            return v

        if idf_out is not None:
            for w, toks in enumerate(words):
                if len(toks) == 1 and len(forms[0][w]) == 1:
                    idf_out[toks[0]] = glob_idf(w, forms[0][w], 0)
        # generations answering a multi-token word with the bare conjunction, whose hits are checked
        check = (texts is not None and pairs is not None and any(pairs)
                 and any(not o.fmt.positions and not o.fmt.has_pairs for o in opened))
        fetch = limit * GLUED_FETCH if check else limit
        rescore: dict[int, tuple] = {}  # generation -> what scoring its hits again needs
        found: list[tuple[float, int, object]] = []  # (score, generation, doc address)
        glob_sums: dict[tuple, float] = {}  # (word, its terms) -> the sum of their collection-wide idf
        # the filter clauses and the term queries depend on the schema alone: built once per
        # sub-index and format, not once per shard (the shards of a sub-index share one schema)
        built: dict[tuple, tuple[list, dict]] = {}
        for i, o in enumerate(opened):
            if num_docs[i] == 0:
                continue

            lidf: dict[str, float] = {}  # term -> its idf in generation i
            if FLAT_FILTERS:
                # A one-term word no document here holds (nor its alternative) matches
                # nothing, adds no score: left out (none left: no search).
                keep = [w for w, f in enumerate(forms[i]) if len(f) > 1 or df[i][f[0]] or df[i].get(joins[i][w])]
                if not keep:
                    continue
            else:
                keep = list(range(len(forms[i])))
            # The factor putting each word of generation i on collection-wide IDF (of its term or
            # phrase, and of its joined term), computed in one pass: the sum of its terms' idf here
            # (in order) against the same sum collection-wide, which is the same in every generation.
            bw: list[float] = []
            bj: list[float] = []
            one = len(opened) == 1 and not scoped
            dfi, ni = df[i], num_docs[i]
            for w in keep:
                toks = forms[i][w]
                if one:
                    bw.append(1.0)
                    bj.append(1.0)
                    continue
                local = 0
                for t in toks:
                    v = lidf.get(t)
                    if v is None:
                        v = lidf[t] = idf(dfi[t], ni)
                    local += v
                glob = glob_sums.get((w, toks))
                if glob is None:  # the same in every generation of one format
                    glob = glob_sums[(w, toks)] = sum(glob_idf(w, toks, p) for p in range(len(toks)))
                bw.append(glob / local if local > 0 else 1.0)
                j = joins[i][w]
                if j is not None:
                    local = idf(dfi[j], ni)
                    bj.append(glob_idf(w, toks, None) / local if local > 0 else 1.0)
                else:
                    bj.append(1.0)

            def boost(k: int, joined: bool, bw: list[float] = bw, bj: list[float] = bj) -> float:
                """The factor of the ``k``-th word passed to build_query (above)."""
                return bj[k] if joined else bw[k]

            got = built.get((id(o.sub), o.fmt, o.only))
            if got is None:
                schema = o.index.schema
                filters = filter_clauses(schema, projects, exclude_refs, roles)
                if times is not None:
                    filters.append((tantivy.Occur.Must, _time_filter(schema, times)))
                if o.only is not None:  # facts/ holds the other kind too
                    filters.append((tantivy.Occur.Must, tantivy.Query.const_score_query(
                        tantivy.Query.term_query(schema, "kind", o.only), 0.0)))
                got = built[(id(o.sub), o.fmt, o.only)] = (schema, filters, {})
            schema, filters, made = got
            if len(keep) == len(forms[i]):
                fw, jw = forms[i], joins[i]
            else:
                fw, jw = [forms[i][w] for w in keep], [joins[i][w] for w in keep]
            pw = None
            if not o.fmt.positions:  # (a generation without `pairs` either: the terms' conjunction alone)
                pw = ([() for _ in keep] if not o.fmt.has_pairs
                      else pairs if len(keep) == len(forms[i]) else [pairs[w] for w in keep])
            if FLAT_FILTERS:  # the filters beside the words: only the documents they select are scored
                q = build_query(schema, fw, jw, boost, required=filters, made=made, pairs=pw)
            else:
                q = build_query(schema, fw, jw, boost, made=made, pairs=pw)
                if q is not None and filters:
                    q = tantivy.Query.boolean_query([(tantivy.Occur.Must, q), *filters])
            if q is None:
                continue
            if check and not o.fmt.positions and not o.fmt.has_pairs:
                rescore[i] = (schema, filters, made, keep, bw, bj)
            try:
                found += [(score, i, addr) for score, addr in o.searcher.search(q, fetch, count=False).hits
                          if score > 0.0]  # score 0: a filtered document holding no word
            except ValueError as e:
                raise IndexCorruptError(f"search in {o.sub.dir / o.name} failed: {e}") from e
        # Load the stored fields of the best `limit` only (and of any tied
        # with the last of them: ties are broken by time and id).
        found.sort(key=lambda f: -f[0])
        if len(found) > fetch:
            cut = found[fetch - 1][0]
            found = [f for f in found if f[0] >= cut]
        at: dict[int, list[int]] = {}  # searcher -> positions in found
        for k, (_score, i, _addr) in enumerate(found):
            at.setdefault(i, []).append(k)
        slots: list = [None] * len(found)
        for i, ks in at.items():
            try:
                for k, h in zip(ks, hits_at(opened[i].searcher, opened[i].fmt,
                                            [(found[k][0], found[k][2]) for k in ks], self._resolve)):
                    slots[k] = h
            except BaseException as e:  # damaged stored documents can also panic in tantivy (a BaseException)
                if not (isinstance(e, ValueError) or is_panic(e)):
                    raise
                raise IndexCorruptError(f"reading {opened[i].sub.dir / opened[i].name} failed: {e}") from e
        hits: list[Hit] = slots
        if rescore:
            hits = check_glued(hits, found, opened, rescore, forms, joins, pairs, texts, limit)
        hits.sort(key=lambda h: (-h.score, -h.time, h.id))
        return hits[:limit]

    def _counts(self, o: OpenGeneration, df: Mapping[str, int],
                projects: list[str] | None) -> tuple[int, dict[str, int]]:
        """``(documents, {term: document frequency})`` of generation ``o``
        counted over the documents whose project is one of ``projects``
        (None: any) and, when ``o.only`` is set, whose kind is ``o.only``
        (``df``: the terms with their unfiltered counts; a term absent from
        the generation is not counted again).  Counts are of live documents,
        cached per generation, its live document count, filter and term: a
        repeated query costs no count query."""
        num = int(o.searcher.num_docs)
        scope = None if projects is None else tuple(sorted(set(projects)))
        base = (str(o.sub.dir), o.name, num, scope, o.only)
        pf = None
        disk = self._disk_counts(o)

        def count(term: str | None) -> int:
            """Documents of the filter holding ``term`` (None: all of them)."""
            nonlocal pf
            key = (*base, term)
            v = self._count_cache.get(key)
            if v is None and disk is not None:
                hk = count_key(scope, o.only, num, term)
                v = disk.get(hk)
                if v is not None:
                    self._count_cache[key] = v
            if v is None:
                if pf is None:
                    schema = o.index.schema
                    pf = [] if scope is None else filter_clauses(schema, list(scope), (), None)
                    if o.only is not None:
                        pf.append((tantivy.Occur.Must, tantivy.Query.term_query(schema, "kind", o.only)))
                # constant score: a count needs no BM25 (term frequencies, field norms) per match,
                # 26.8 -> 18.2 ms of a recall's follow-forward counts at a million turns
                q = tantivy.Query.const_score_query(tantivy.Query.boolean_query(
                    pf if term is None else
                    [(tantivy.Occur.Must, tantivy.Query.term_query(o.index.schema, "text", term)), *pf]), 0.0)
                try:
                    v = int(o.searcher.search(q, 1, count=True).count)
                except ValueError as e:
                    raise IndexCorruptError(f"search in {o.sub.dir / o.name} failed: {e}") from e
                if len(self._count_cache) >= 8192:
                    self._count_cache.clear()
                self._count_cache[key] = v
                if disk is not None:
                    disk.put(hk, v)
            return v

        n = count(None) if num else 0
        out = {t: (count(t) if n and d else 0) for t, d in df.items()}
        if disk is not None:
            disk.save()
        return n, out

    def _disk_counts(self, o: OpenGeneration) -> GenCounts | None:
        """The counts file of generation ``o`` for the state its handle was
        opened or reloaded at (:meth:`SubIndex.meta_digest`), read once per
        state; None when that state is not known."""
        digest = o.sub.meta_digest(o.name)
        if digest is None:
            return None
        key = (str(o.sub.dir), o.name)
        got = self._count_files.get(key)
        if got is None or got.digest != digest:
            got = self._count_files[key] = GenCounts(os.path.join(o.sub.dir, o.name), digest)
        return got

    def _open_searchers(self, kinds: Iterable[str]) -> list[OpenGeneration]:
        """A searcher on every live generation holding documents of
        ``kinds`` (every shard; each generation once).  ``facts/`` holds
        ``fact`` and ``history`` documents (:data:`HOME`): when only one of
        the two is asked for and its generation holds the other too, its
        :class:`OpenGeneration` names the one asked for in ``only``, and
        the caller must filter (:meth:`_counts`, ``kind`` clauses)."""
        self._check_root()
        kinds = tuple(dict.fromkeys(kinds))
        subs = list(dict.fromkeys(HOME[k] for k in kinds))
        if "history" in kinds:
            subs.append("history")  # an older store's history/
        opened: list[OpenGeneration] = []
        for k in subs:
            sub = self._subs[k]
            for attempt in range(REPLACED_RETRIES):
                cur = sub.open_current()
                if cur is None:
                    break
                m, indexes = cur
                got: list[OpenGeneration] = []
                try:
                    for s, name in m.live():
                        index = indexes[name]
                        sub.reload_if_changed(name, index)
                        searcher = index.searcher()
                        only = None
                        if k == "fact" and not ("fact" in kinds and "history" in kinds):
                            other = "history" if "fact" in kinds else "fact"
                            if searcher.doc_freq("kind", other):  # (deleted ones count: filtering is exact anyway)
                                only = "fact" if other == "history" else "history"
                        got.append(OpenGeneration(sub, name, s, index, searcher, sub.fmt(name), only))
                except ValueError as e:
                    if attempt + 1 < REPLACED_RETRIES and sub.manifest_lenient() != m:
                        continue   # a writer replaced that generation under us: read CURRENT again
                    raise IndexCorruptError(f"cannot read {sub.dir / name}: {e}") from e
                opened += got
                break
        return opened

    def has_seq(self, kind: str = "turn") -> bool:
        """Whether the live generations of ``kind`` record turn positions
        (the ``seq`` field; False if one is a ``mem_words`` generation, or
        there is none)."""
        sub = self._subs[kind]
        opened = sub.open_current()
        if opened is None or not opened[0].live():
            return False
        return all(sub.fmt(name).has_seq for _s, name in opened[0].live())

    def strips_escapes(self) -> bool:
        """Whether every live generation was built with terminal escape sequences
        removed before analysis (``GenFormat.no_escapes``; True with none): when
        False, ``mem reindex`` makes words inside colour codes findable."""
        for kind in KINDS:
            sub = self._subs[kind]
            opened = sub.open_current()
            if opened is not None and not all(sub.fmt(n).no_escapes for _s, n in opened[0].live()):
                return False
        return True

    def turns_at(self, session: str, seqs: Iterable[int]) -> dict[int, Hit]:
        """The indexed turns of ``session`` at positions ``seqs``:
        ``{seq: Hit}`` (score 0.0); positions not indexed are absent, and a
        ``mem_words`` generation (no ``seq`` field) returns ``{}``.  Used to
        find a hit's neighbouring turns; reads the session's shard only.
        Raises ``IndexCorruptError``."""
        want = sorted({int(n) for n in seqs if int(n) >= 0})
        sub = self._subs["turn"]
        for attempt in range(REPLACED_RETRIES):
            cur = sub.open_current() if want else None
            if cur is None:
                return {}
            m, indexes = cur
            name = m.gens[shard_index(session, m.n)]
            if name is None or not sub.fmt(name).has_seq:
                return {}
            index = indexes[name]
            try:
                sub.reload_if_changed(name, index)
                searcher = index.searcher()
                break
            except ValueError as e:
                if attempt + 1 < REPLACED_RETRIES and sub.manifest_lenient() != m:
                    continue   # a writer replaced that generation under us: read CURRENT again
                raise IndexCorruptError(f"cannot read {sub.dir / name}: {e}") from e
        schema = index.schema
        q = tantivy.Query.boolean_query([
            (tantivy.Occur.Must, tantivy.Query.term_query(schema, "ref", session)),
            (tantivy.Occur.Must, tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "seq", n)) for n in want])),
        ])
        out: dict[int, Hit] = {}
        try:
            for h in hits_at(searcher, sub.fmt(name),
                             [(0.0, addr) for _score, addr in searcher.search(q, len(want) * 2 + 2, count=False).hits],
                             self._resolve):
                out.setdefault(h.seq, h)
        except ValueError as e:
            raise IndexCorruptError(f"search in {sub.dir / name} failed: {e}") from e
        return out

    def turn_ids_of(self, session: str, known: Iterable[str] = ()) -> set[str]:
        """Ids of every indexed turn document of ``session`` (64 hex; read
        from the session's shard only), whether or not the store can still
        read the objects: what a forget of a damaged session must purge by
        id (``known``, stand-ins: ``schema.ids_at``).  Raises ``IndexCorruptError``."""
        cur = self._subs["turn"].open_current()
        if cur is None:
            return set()
        m, indexes = cur
        name = m.gens[shard_index(session, m.n)]
        if name is None:
            return set()
        index = indexes[name]
        try:
            index.reload()
            searcher = index.searcher()
            q = tantivy.Query.term_query(index.schema, "ref", session)
            return set(ids_at(searcher, self._subs["turn"].fmt(name),
                              [addr for _score, addr in searcher.search(q, max(1, searcher.num_docs), count=False).hits],
                              self._resolve, known))
        except ValueError as e:
            raise IndexCorruptError(f"search in {self._subs['turn'].dir / name} failed: {e}") from e

    def term_stats(self, words: Iterable[str], kinds: tuple[str, ...] = KINDS,
                   projects: Iterable[str] | None = None) -> tuple[int, dict[str, int]]:
        """Collection statistics for scoring outside tantivy: ``(number of
        documents, {word: document frequency})`` over the sub-indexes
        ``kinds`` (all shards), each word (a :func:`tokenize` token) counted
        in the term form of each generation (a token a ``mem_simple_stem``
        generation cuts into several terms counts the least of their
        counts there).  Deleted-but-unpurged documents
        count, as in BM25 itself.  With ``projects``: counted over the
        documents of those projects only (what :meth:`search` uses with
        ``scope_idf``); ``kinds`` naming one of ``fact``/``history`` counts the
        documents of that kind only in ``facts/``, which holds both (both
        counts then are of live documents, with a count query per word).
        Raises ``IndexCorruptError``."""
        words = list(dict.fromkeys(words))
        scope = None if projects is None else list(projects)
        n = 0
        out = {w: 0 for w in words}
        for o in self._open_searchers(kinds):
            terms = [o.fmt.token_terms(w) for w in words]
            df = {t: int(o.searcher.doc_freq("text", t)) for ts in terms for t in ts}
            if scope is None and o.only is None:
                n += int(o.searcher.num_docs)
            else:
                sn, df = self._counts(o, df, scope)
                n += sn
            for w, ts in zip(words, terms):
                out[w] += min(df[t] for t in ts)  # a token cut into terms: each holder holds them all
        return n, out

    def doc_count(self, kinds: tuple[str, ...] = ("fact", "turn")) -> dict[str, int]:
        """Live (not deleted) documents per kind: ``{"fact": n, "turn": m}``
        (pass ``kinds=KINDS`` to count ``history`` too; all shards summed);
        0 for a missing sub-index.  Raises ``IndexCorruptError``."""
        out = {k: 0 for k in kinds}
        for o in self._open_searchers(kinds):
            if o.sub.kind != "fact":
                out[o.sub.kind] += int(o.searcher.num_docs)
                continue
            # facts/ holds fact and history documents: counted apart (two count queries)
            for k in ("fact", "history"):
                if k in out:
                    out[k] += self._counts(OpenGeneration(*o[:6], k), {}, None)[0]
        return out

    def missing_turns(self, heads: Mapping[str, str]) -> set[str]:
        """The sessions of ``heads`` (session id -> turn id) whose turn is not
        in the index (looked up in the session's shard; a deleted but not
        purged document counts as present).  A cheap check that the index
        keeps up with the sessions, e.g. before trusting
        :meth:`substring_candidates`.  Raises ``IndexCorruptError``."""
        cur = self._subs["turn"].open_current()
        if cur is None:
            return set(heads)
        m, indexes = cur
        by_shard: dict[int, list[tuple[str, str]]] = {}
        for sid, tid in heads.items():
            by_shard.setdefault(shard_index(sid, m.n), []).append((sid, tid))
        out: set[str] = set()
        for s, pairs in by_shard.items():
            name = m.gens[s]
            if name is None:
                out.update(sid for sid, _tid in pairs)
                continue
            indexes[name].reload()  # exact: never trust a cached view here
            sub = self._subs["turn"]
            held = held_ids(indexes[name].searcher(), sub.fmt(name), [tid for _sid, tid in pairs], sub.dir / name,
                            indexes[name])
            out.update(sid for sid, tid in pairs if tid not in held)
        return out

    def missing_fact_ids(self, ids: Iterable[str]) -> set[str]:
        """The fact version ids of ``ids`` (64 hex) that have no live
        document in the facts index (kind ``fact`` or ``history``, in
        ``facts/`` or an older store's ``history/``; a deleted document,
        which no search finds, is missing): all of them when there is no
        facts index.  The check that the index holds what it should before
        a caller trusts :meth:`substring_candidates` for facts.  One query
        per generation counts the live documents of all the ids (the index
        holds at most one live document per id: an add replaces it); only
        when fewer are found is each id looked up.  Raises
        ``IndexCorruptError``."""
        want = list(dict.fromkeys(ids))
        if not want:
            return set()
        opened = self._open_searchers(("fact", "history"))
        try:
            found = 0
            for o in opened:
                q = tantivy.Query.term_set_query(o.index.schema, "id", [o.fmt.key(i) for i in want])
                found += o.searcher.search(q, 1, count=True).count
            if opened and found == len(want):
                return set()
            return {i for i in want
                    if not any(o.searcher.search(tantivy.Query.term_query(o.index.schema, "id", o.fmt.key(i)),
                                                 1, count=False).hits for o in opened)}
        except ValueError as e:
            raise IndexCorruptError(f"id lookup in the facts index failed: {e}") from e

    def substring_candidates(self, text: str, kind: str = "turn") -> set[str] | None:
        """Ids of the documents of ``kind`` that may contain ``text`` as a
        substring, ignoring case and whitespace runs (the rule of
        ``objects.normalize_value``: NFC, case-folded, whitespace runs as
        one space); None when the index cannot answer exactly.

        Never misses a document of the index that contains the text; may
        return others (the caller checks each against its text).  Uses the
        ``plain`` field (the case-folded text, unstemmed, tokens up to
        PLAIN_MAX_TOKEN_BYTES): the inner tokens of the normalized text must
        be whole tokens of the document, its first token the end of one,
        its last the start of one (a single token: inside one); a document
        flagged ``long`` (may hold a token too long for the field) passes
        the first/last-token tests.  In a generation with
        ``GenFormat.plain_stop`` the words ``plain`` leaves out are looked
        up in ``text``, and a body ``plain`` could cut otherwise in
        ``plainall``; in a ``plain_vocab`` one ``text`` is also asked for
        the stems of the words the stemmer changes (``plain`` holds such a
        word only for a session's first documents holding it), so more
        documents may be named.  The algorithm and its proof are in
        ``docs/format.md``, "Substring prefilter".

        None: no index of ``kind``; a live generation without the ``plain``
        field (built before it existed: ``mem reindex`` adds it); no token
        in the text; a token of PLAIN_MAX_TOKEN_BYTES or more; an
        unencodable text.  Raises ``ValueError`` for an unknown kind,
        ``IndexCorruptError``.
        """
        hits = self.substring_candidate_refs(text, kind)
        return None if hits is None else set(hits)

    def substring_candidate_refs(self, text: str, kind: str = "turn") -> dict[str, str] | None:
        """:meth:`substring_candidates` with each candidate's stored ``ref``
        (session id or fact key): ``{id: ref}``, or None."""
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}; expected one of {KINDS}")
        from objstore.core.jsonspan import json_escape  # defer: re, dataclasses (startup)
        out: dict[str, str] = {}  # as typed, as it reads (fullwidth, invisible), in a JSON string (test27 V29)
        for form in dict.fromkeys((text, confusable_fold(text), json_escape(text))):
            got = self._candidate_refs(form, kind)
            if got is None:
                return None
            out.update(got)
        return out

    def _candidate_refs(self, text: str, kind: str) -> dict[str, str] | None:
        """:meth:`substring_candidate_refs` of one form of the needle."""
        cond = substring_conditions(text)
        if cond is None:
            return None
        exact, edges = cond
        homes = {HOME[kind], kind}  # history: in facts/, or in an older store's history/
        if all(self._subs[k].manifest() is None for k in homes):
            return None
        opened = self._open_searchers((kind,))  # facts/ holds fact and history: o.only filters
        if not all(o.fmt.has_plain for o in opened):
            return None
        out: dict[str, str] = {}
        queries = SubstringQueries(exact, edges)  # equal schemas (so formats) share a query, or its regexes
        for o in opened:
            n = int(o.searcher.num_docs)
            if n == 0:
                continue
            sr, seen = o.searcher, {}

            def plain_terms(prefix: str) -> list[str]:
                """The generation's plain terms starting with ``prefix`` (each prefix read once)."""
                if prefix not in seen:
                    seen[prefix] = [t for t, _n in sr.terms_with_prefix("plain", prefix)]
                return seen[prefix]
            try:   # a plain_vocab generation's query names stems of its own plain terms
                q = queries.query(o.index.schema, o.fmt, plain_terms)
            except ValueError:  # e.g. an automaton too large for tantivy's regex
                return None
            try:
                addrs = [addr for _score, addr in o.searcher.search(q, n, count=False).hits]
                for addr, oid in zip(addrs, ids_at(o.searcher, o.fmt, addrs, self._resolve)):
                    doc = o.searcher.doc(addr)
                    if o.only is None or doc.get_first("kind") == o.only:
                        out[oid] = doc.get_first("ref") or ""
            except ValueError as e:
                raise IndexCorruptError(f"search in {o.sub.dir / o.name} failed: {e}") from e
        return out

    def verify_purged(self, ids: Iterable[str]) -> list[str]:
        """Check that forgotten ``ids`` are physically gone; returns a list
        of human-readable problems, ``[]`` when clean.

        Reported, for each existing sub-index and each live generation (every
        shard): ``doc_freq(id) != 0`` (a deleted doc still counts: its id
        term stays in the segment's term dictionary until the segment is
        rewritten); then, in such a generation only, each segment in
        ``meta.json`` that has deletes (where the forgotten text lies).  A
        segment with deletes in a generation where no forgotten id counts
        holds other documents' deletes (a superseded fact version, say), not
        what was forgotten, and is not reported; a file in the generation dir that belongs to no live
        segment (ignoring ``meta.json``, ``.managed.json`` and lock files)
        and that tantivy's garbage collection does not remove; a ``gen-*``
        dir that ``CURRENT`` does not name, or a ``gen-*.gone`` one (a
        removal that failed).  Raises ``ValueError`` for a
        malformed id, ``IndexCorruptError``.
        """
        ids = list(ids)
        for i in ids:
            if not isinstance(i, str) or not is_full_id(i):
                raise ValueError(f"id must be 64 lowercase hex, got {i!r}")
        problems: list[str] = []
        for k, sub in self._subs.items():
            cur = sub.open_current()
            live = set(cur[1]) if cur else set()
            for name in sub.gen_dirs() + sub.gone_dirs():
                if name not in live:
                    problems.append(f"{k}: orphan generation dir {sub.dir / name}")
            if cur is None:
                continue
            m, indexes = cur
            for s, name in m.live():
                label = k if m.n == 1 else f"{k} shard {s}"
                gen_dir = sub.dir / name
                deletes, stray = generation_files(gen_dir)
                if stray:  # dead segment files: let tantivy collect them, then look again
                    with sub.locked():
                        sub.collect_garbage(name)
                    deletes, stray = generation_files(gen_dir)
                index = indexes[name]
                index.reload()
                searcher = index.searcher()
                fmt = sub.fmt(name)
                held = False
                for i in sorted(held_ids(searcher, fmt, ids, gen_dir, index)):
                    held = True
                    problems.append(f"{label}: id {i} held (doc_freq or columns)")
                if held:  # a deleted document still counts in doc_freq: only then can a delete hold it
                    problems += [f"{label}: segment {sid} has deletes {n} (deleted text still in its files)"
                                 for sid, n in deletes]
                problems += [f"{label}: file {gen_dir / f} belongs to no live segment" for f in stray]
        return problems

    def term_doc_freq(self, text: str) -> dict[str, int]:
        """Document frequency of every token of ``text`` in the ``text`` field,
        summed over the sub-indexes and shards, deleted-but-unpurged
        documents included.

        ``{"zebraquokka": 0, ...}``: a forgotten word that no surviving
        document contains must count 0 (it is then absent from the term
        dictionaries, which a raw byte scan cannot show).  In a ``mem_stem``
        generation a token is looked up by its stem, so the count is that of
        the documents holding any word with the same stem: an upper bound of
        the token's own count, and 0 still proves the word is gone.  In a
        ``mem_simple_stem`` generation a token the ``simple`` tokenizer cuts
        (:func:`~objstore.index.analysis.simple_tokens`) counts the sum of
        its terms' counts: again 0 only if none of its pieces is left.
        """
        out = {tok: 0 for tok in tokenize(text)}
        for o in self._open_searchers(KINDS):
            for tok in out:
                out[tok] += sum(o.searcher.doc_freq("text", t) for t in o.fmt.token_terms(tok))
        return out
