#!/usr/bin/env python3
"""What recall's follow-forward search costs by part, in process:
``python bench/followforward_parts.py STORE RUNS QUERY...``.

For each QUERY, one ``objstore.recall`` (all projects, limit 10) is run with
``SearchIndex.search`` watched, and its follow-forward search (the call with
``times``: the hit's project after the hit) is kept as it was called; that
search is then timed (``process_time``, medians of RUNS, in turn) as it is
and without its parts: ``scope_idf`` off (no project-scoped count queries,
the IDF of the whole collection), ``times`` off (no time filter), and both.
The scoped counts are forgotten before every search (the process's cache and
every ``index/*/gen-*/.counts``), as for a first question.  The hits differ
without a part: this measures cost, not answers.  A QUERY whose recall does
not follow forward (no value in its first hit) is skipped.

``--count-forms GEN_DIR PROJECT WORD...``: instead, the cost of one scoped
count query (``text:WORD`` and ``project:PROJECT`` in the turns generation
GEN_DIR, as ``SearchIndexReads._counts`` builds it) against two other ways
tantivy-py can count the same documents (``Searcher.aggregate`` with a
``value_count`` of ``time``; ``search`` ordered by the ``time`` column, which
scores nothing): µs CPU per query, the mean of 20 rounds over the words,
twice in turn; the counts are checked equal first."""

from __future__ import annotations

import glob
import os
import statistics
import sys
import time


def count_forms(gen_dir: str, project: str, words: list[str]) -> int:
    """``--count-forms``: see the module doc."""
    import tantivy

    from objstore.index.query import filter_clauses
    index = tantivy.Index.open(gen_dir)
    sr, schema = index.searcher(), index.schema
    pf = filter_clauses(schema, [project], (), None)
    pt = tantivy.Query.term_query(schema, "project", project)

    def term(w):
        return (tantivy.Occur.Must, tantivy.Query.term_query(schema, "text", w))

    forms = {
        "as _counts (constant score)": lambda w: int(sr.search(tantivy.Query.const_score_query(
            tantivy.Query.boolean_query([term(w), *pf]), 0.0), 1, count=True).count),
        "aggregate value_count(time)": lambda w: int(sr.aggregate(tantivy.Query.boolean_query(
            [term(w), (tantivy.Occur.Must, pt)]), {"c": {"value_count": {"field": "time"}}})["c"]["value"]),
        "search ordered by time": lambda w: int(sr.search(tantivy.Query.boolean_query([term(w), *pf]), 1,
                                                          count=True, order_by_field="time").count),
    }
    want = [forms["as _counts (constant score)"](w) for w in words]
    for name, fn in forms.items():
        assert [fn(w) for w in words] == want, name
    print(f"load {os.getloadavg()[0]:.1f}; {gen_dir}: {int(sr.num_segments)} segments, {int(sr.num_docs)} "
          f"documents; counts {want}")
    for _ in range(2):
        for name, fn in forms.items():
            t = time.process_time()
            for _ in range(20):
                for w in words:
                    fn(w)
            print(f"{name}: {(time.process_time() - t) / (20 * len(words)) * 1e6:.1f} us a query")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--count-forms"] and len(argv) >= 4:
        return count_forms(argv[1], argv[2], argv[3:])
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    from objstore import open_store, recall
    from objstore.index.searchindex import SearchIndex
    home, runs, queries = argv[0], int(argv[1]), argv[2:]
    store = open_store(home)
    ix = store.index
    real = SearchIndex.search
    print(f"load {os.getloadavg()[0]:.1f}; medians of {runs} (ms CPU, in process)")
    print("| query | as it is | no scope_idf | no times | neither | words |")
    print("|---|---|---|---|---|---|")
    for q in queries:
        calls: list[tuple[str, dict]] = []

        def watch(self, query, **kw):
            if kw.get("times") is not None:
                calls.append((query, dict(kw)))
            return real(self, query, **kw)

        SearchIndex.search = watch
        try:
            recall(store, [q], what="all", projects=None, limit=10)
        finally:
            SearchIndex.search = real
        if not calls:
            print(f"| {q} | (no follow-forward) | | | | |")
            continue
        query, kw = calls[0]
        variants = {"as it is": kw, "no scope_idf": {**kw, "scope_idf": False},
                    "no times": {**kw, "times": None}, "neither": {**kw, "times": None, "scope_idf": False}}
        got: dict[str, list[float]] = {k: [] for k in variants}
        for _ in range(runs):
            for name, k in variants.items():
                ix._count_cache.clear()
                ix._count_files.clear()
                for f in glob.glob(os.path.join(home, "index", "*", "gen-*", ".counts")):
                    os.unlink(f)
                t = time.process_time()
                ix.search(query, **k)
                got[name].append((time.process_time() - t) * 1e3)
        cells = " | ".join(f"{statistics.median(v):.1f}" for v in got.values())
        print(f"| {q} | {cells} | {len(query.split())} |")
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
