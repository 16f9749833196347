"""The read side of the search index: :class:`SearchIndexReads`, the
methods of :class:`~objstore.index.searchindex.SearchIndex` that rank
(BM25 search with its filters and glued-word check (the check itself:
:mod:`objstore.index.gluedcheck`), its filtered counts).  It derives from
:class:`~objstore.index.lookups.SearchIndexLookups` (the live searchers,
turns by session and seq, term and document statistics, the substring
prefilter's candidates, the purge proof).  Readers take no lock; a
generation a writer replaced meanwhile is read again from ``CURRENT``
(REPLACED_RETRIES, re-exported here).  Queries and scoring: ``docs/format.md``,
"Search index (derived)"."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping

import tantivy

from objstore.index.analysis import tokenize, word_pairs
from objstore.index.countcache import GenCounts, count_key
from objstore.index.errors import IndexCorruptError
from objstore.index.generations import OpenGeneration, is_panic
from objstore.index.lookups import REPLACED_RETRIES, SearchIndexLookups
from objstore.index.query import build_query, filter_clauses, idf, query_words
from objstore.index.schema import KINDS, Hit, hits_at

__all__ = ["FLAT_FILTERS", "REPLACED_RETRIES", "SearchIndexReads"]

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


class SearchIndexReads(SearchIndexLookups):
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
        best ``gluedcheck.GLUED_FETCH * limit`` are checked, best first and only as
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
        # `simple` format may cut a non-ASCII word into more terms than another format does; one
        # without `greek_fold` holds a Greek word as spelled: its tokens come from the word as typed)
        by_fmt: dict[tuple[str, bool, bool], tuple[list, list]] = {}
        spelled: list | None = None
        for o in opened:
            fk = (o.fmt.analyzer, o.fmt.simple, o.fmt.greek_fold)
            if fk not in by_fmt:
                ws = words
                if not o.fmt.greek_fold:
                    if spelled is None:
                        spelled = [t if w.isascii() else tuple(tokenize(w, greek=False)) or t
                                   for t, w in zip(words, raw)]
                    ws = spelled
                by_fmt[fk] = ([o.fmt.word_terms(toks) for toks in ws], [o.fmt.joined(toks) for toks in ws])
        # a generation without positions answers a multi-token word with its pairs (build_query)
        pairs = ([word_pairs(w) if any(len(f[0][k]) > 1 for f in by_fmt.values()) else ()
                  for k, w in enumerate(raw)]
                 if any(not o.fmt.positions for o in opened) else None)
        forms = [by_fmt[(o.fmt.analyzer, o.fmt.simple, o.fmt.greek_fold)][0] for o in opened]
        joins = [by_fmt[(o.fmt.analyzer, o.fmt.simple, o.fmt.greek_fold)][1] for o in opened]
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
        if check:
            from objstore.index.gluedcheck import GLUED_FETCH, check_glued  # deferred: a multi-token word's only
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
