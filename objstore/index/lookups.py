"""Lookups of the search index, no ranking: :class:`SearchIndexLookups`,
the methods of :class:`~objstore.index.searchindex.SearchIndex` that open
the live generations' searchers and read them by session and seq, by id
and by term (turns by position, turn ids of a session, term and document
statistics, the substring prefilter's candidates, the proof that forgotten
ids are purged).  Readers take no lock; a generation a writer replaced
meanwhile is read again from ``CURRENT`` (:data:`REPLACED_RETRIES`).
Split from :mod:`objstore.index.reading` (BM25 search and its counts),
whose class derives from this one.  Format: ``docs/format.md``, "Search
index (derived)"."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import tantivy

from objstore.core.ids import is_full_id
from objstore.core.text import confusable_fold
from objstore.index.analysis import tokenize
from objstore.index.errors import IndexCorruptError
from objstore.index.generations import HOME, OpenGeneration, shard_index
from objstore.index.genfiles import generation_files, held_ids
from objstore.index.query import SubstringQueries, substring_conditions
from objstore.index.schema import KINDS, Hit, hits_at, ids_at

__all__ = ["REPLACED_RETRIES", "SearchIndexLookups"]

#: Times a reader reads ``CURRENT`` again when a generation it named was
#: replaced (and its directory removed) by a writer before the reader
#: reloaded it: a rebuild, a forget's purge.  Readers take no lock.
REPLACED_RETRIES = 5


class SearchIndexLookups:
    """The lookup methods of :class:`~objstore.index.searchindex.SearchIndex`
    (a base class of :class:`~objstore.index.reading.SearchIndexReads`: it
    uses the sub-indexes and caches that ``SearchIndex.__init__`` sets up);
    not used on its own."""

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
        return self._every_live(lambda f: f.no_escapes)

    def folds_greek(self) -> bool:
        """Whether every live generation of a ``simple`` format folds Greek
        diacritics (``GenFormat.greek_fold``, since 2026-12-05; True with
        none): when False, an accented Greek word is found only as spelled
        until ``mem reindex`` (README, "Search"; ``mem doctor`` says so:
        fresh41 F21)."""
        return self._every_live(lambda f: f.greek_fold or not f.simple)

    def _every_live(self, ok) -> bool:
        """Whether ``ok(GenFormat)`` holds for every live generation of
        every sub-index (True with none)."""
        for kind in KINDS:
            sub = self._subs[kind]
            opened = sub.open_current()
            if opened is not None and not all(ok(sub.fmt(n)) for _s, n in opened[0].live()):
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
