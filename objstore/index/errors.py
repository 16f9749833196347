"""Errors of the search index (``objstore.index``).

Every error the index raises on purpose is a :class:`SearchIndexError`, a
:class:`objstore.core.errors.MemError`, so the CLI maps it to an exit code
and the hint ``mem reindex`` (the index is derived data).
"""

from __future__ import annotations

from objstore.core.errors import MemError

__all__ = ["SearchIndexError", "IndexBusyError", "IndexCorruptError"]


class SearchIndexError(MemError):
    """Base class of every error the index raises on purpose (a
    :class:`objstore.core.errors.MemError`, so the CLI maps it: hint ``mem reindex``).

    Besides these, public functions raise ``ValueError`` for invalid
    arguments and may let ``OSError`` through for filesystem failures
    (permissions, disk full).
    """

    default_hint = "the search index is derived data: rebuild it with 'mem reindex'"


class IndexBusyError(SearchIndexError):
    """Another writer holds the sub-index lock and did not release it in time (exit 11)."""

    exit_code = 11


class IndexCorruptError(SearchIndexError):
    """The on-disk index cannot be read; ``SearchIndex.rebuild`` repairs it (exit 13)."""

    exit_code = 13
