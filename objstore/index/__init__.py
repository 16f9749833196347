"""objstore.index: the derived Tantivy (BM25) search index over facts and turns.

The public names are loaded on first use (PEP 562), so importing this
package (or its light ``errors`` module) does not load tantivy::

    from objstore.index import SearchIndex, IndexDoc, tokenize

Modules, lowest first (each imports only those above it):

* ``errors``: ``SearchIndexError``, ``IndexBusyError``, ``IndexCorruptError``;
* ``readonly``: reading an index on a read-only filesystem (a shadow
  directory of links where tantivy can take its lock);
* ``folds``: the spelling folds and variants (``greek_fold``: the Greek
  accents; ``sigma_variant``, ``dotted_i_variant``), re-exported by ``analysis``;
* ``analysis``: the analyzers (``mem_words``, ``mem_stem``, ``mem_simple_stem``, ``mem_plain``, ``mem_plain_s``),
  ``tokenize``, ``index_terms``, ``QUERY_STOPWORDS``;
* ``schema``: ``IndexDoc``, ``Hit``, the generation formats, tantivy schema
  and documents;
* ``query``: query words, BM25 IDF, query and filter clauses, the substring
  prefilter;
* ``procmem``: process memory of writers and readers (malloc trim, mapped
  segment pages, malloc arenas);
* ``genfiles``: a generation's files on disk (segments, footer/CRC
  verification, the log-merge plan);
* ``generations``: one sub-index on disk (``CURRENT``, shards, generations,
  the live generations' writer);
* ``genbuild``: new generations published at once (rebuilds, a purge's
  linked copy);
* ``snippets``: ``make_snippet``;
* ``purge``: ``SearchIndexPurges``, the purge side of ``SearchIndex``
  (forget by rebuild, merge, padded merge);
* ``segmerge``: ``SearchIndexMerges``, gc's merge of each turn shard's small
  segments;
* ``lookups``: ``SearchIndexLookups``, the lookups of ``SearchIndex``
  without ranking (live searchers, turns by seq, term statistics, the
  substring prefilter's candidates, purge proof);
* ``reading``: ``SearchIndexReads``, the read side of ``SearchIndex``
  (BM25 search and its counts; derives from ``SearchIndexLookups``);
* ``stream``: ``IndexStream``, a bulk import's writer;
* ``searchindex``: ``SearchIndex``, the facade every caller uses.

The format (layout, schema, analyzers, queries, prefilter proof) is
specified in ``docs/format.md``, "Search index (derived)".
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from typing import Any

# public name -> module of objstore.index that defines it
_API: dict[str, str] = {
    "SearchIndexError": "errors",
    "IndexBusyError": "errors",
    "IndexCorruptError": "errors",
    "ANALYZERS": "analysis",
    "MAX_TOKEN_BYTES": "analysis",
    "PLAIN_MAX_TOKEN_BYTES": "analysis",
    "QUERY_STOPWORDS": "analysis",
    "index_terms": "analysis",
    "stem_tokens": "analysis",
    "tokenize": "analysis",
    "KINDS": "schema",
    "IndexDoc": "schema",
    "Hit": "schema",
    "MAX_QUERY_WORDS": "query",
    "WRITER_HEAP_BYTES": "generations",
    "make_snippet": "snippets",
    "SearchIndex": "searchindex",
    "DEFAULT_TURN_SHARDS": "searchindex",
}

__all__ = sorted(_API)


def __getattr__(name: str) -> Any:
    """Load a public name on first use and cache it in this package.

    Raises:
        AttributeError: ``name`` is not part of the public API.
    """
    try:
        module = _API[name]
    except KeyError:
        raise AttributeError(f"module 'objstore.index' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"objstore.index.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
