"""Process memory of the index's writers and readers: giving freed heap back
to the OS (``trim_heap``), dropping the resident pages of mapped segment
files (``drop_mapped_pages``), capping glibc's malloc arenas
(``limit_malloc_arenas``) and fixing its mmap threshold
(``fix_mmap_threshold``).  Linux/glibc calls through ctypes; no-ops
elsewhere.  No tantivy import."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["MMAP_THRESHOLD_BYTES", "drop_mapped_pages", "fix_mmap_threshold", "limit_malloc_arenas", "trim_heap"]

#: a block malloc'd of at least this many bytes gets a mapping of its own,
#: unmapped when freed (``fix_mmap_threshold``)
MMAP_THRESHOLD_BYTES = 256 << 10


_LIBC: list = []


def trim_heap() -> None:
    """Give freed heap memory back to the OS (glibc ``malloc_trim``; a no-op
    elsewhere).  Every tantivy writer indexes in new threads, and glibc keeps
    what a thread freed in that thread's malloc arena: a rebuild writing 32
    shards one after the other otherwise peaks ~200 MB higher."""
    if not _LIBC:
        try:
            import ctypes
            _LIBC.append(ctypes.CDLL("libc.so.6").malloc_trim)
        except (OSError, AttributeError):
            _LIBC.append(None)
    if _LIBC[0] is not None:
        _LIBC[0](0)


_MADVISE: list = []


def drop_mapped_pages(under: Path) -> int:
    """Let go of the resident pages of this process's read-only file
    mappings of files under ``under`` (tantivy's mmapped segment files):
    ``madvise(MADV_PAGEOUT)`` on each, so the kernel reclaims them and the
    next access reads them again (segment files are immutable and never
    written through a mapping).  PAGEOUT, not DONTNEED: a range that
    another thread unmapped and reused for anonymous memory between the
    read of ``/proc/self/maps`` and the call would be zeroed by DONTNEED;
    PAGEOUT at worst swaps it out.  For a long import, whose stream maps every shard's
    segments as it commits and merges (at a million turns over 162 shards
    they grew past 50 MB resident in the import's first minutes).  Linux
    5.4+ only (``/proc/self/maps``, MADV_PAGEOUT); a no-op elsewhere.  Returns the number of
    mappings advised.  Never raises."""
    try:
        if not _MADVISE:
            import ctypes
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
            _MADVISE.append(libc.madvise)
        madvise = _MADVISE[0]
        prefix = os.fspath(under).rstrip("/") + "/"
        n = 0
        with open("/proc/self/maps", "rb") as f:
            maps = f.read().decode("utf-8", "surrogateescape").splitlines()
        for line in maps:
            parts = line.split(None, 5)
            # read-only ("r--s"/"r--p") mappings of a file under ``under``
            if len(parts) < 6 or not parts[5].startswith(prefix) or parts[1][1] != "-":
                continue
            a, b = (int(x, 16) for x in parts[0].split("-"))
            if madvise(a, b - a, 21) == 0:  # MADV_PAGEOUT
                n += 1
        return n
    except Exception:  # noqa: BLE001 - only memory is at stake
        return 0


def limit_malloc_arenas(n: int = 2) -> None:
    """Cap glibc's malloc arenas at ``n`` for threads created from now on
    (``mallopt(M_ARENA_MAX, n)``; a no-op elsewhere).  A bulk import creates
    a tantivy writer thread per shard and batch, and glibc gives each new
    thread an arena of its own that keeps what the thread freed: on the
    300-session corpus the import's peak anonymous memory was 314 MB with
    the default (8 per core) and 179 MB with 2."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").mallopt(-8, n)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass



def fix_mmap_threshold(n: int = MMAP_THRESHOLD_BYTES) -> None:
    """Fix glibc's mmap threshold at ``n`` bytes for the rest of the process
    (``mallopt(M_MMAP_THRESHOLD, n)``, mallopt(3); a no-op elsewhere): a
    block of ``n`` bytes or more is then a mapping of its own, given back to
    the OS when freed.  By default glibc raises the threshold to the size of
    each mapped block freed (up to 32 MB on 64-bit), so after an import's
    first index commits tantivy's large buffers (its writers' 1 MB arena
    pages, the buffers of its segment merges) come from the malloc arenas,
    where a freed block below a live one stays resident (``trim_heap`` gives
    it back only after a commit).  Fixing it also fixes ``M_TRIM_THRESHOLD``
    at its default (128 KB): an arena's free top goes back at once.  On a
    25th of the million-turn corpus the import's peak RSS was 169–175 MB
    with the default and 137–141 MB with 256 KB, at the same CPU
    (``docs/benchmarks.md``, "Session 24 (branch `rss24`)")."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").mallopt(-3, n)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):
        pass
