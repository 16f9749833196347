"""Open a tantivy index that lives on a read-only filesystem.

tantivy's ``Index.open`` takes its meta lock by creating
``.tantivy-meta.lock`` in the index directory, even to read; on a read-only
store (a read-only mount, a directory without write permission) that fails
although nothing is corrupt.  :func:`shadow_dir` builds a private temporary
directory of symbolic links to the index's files, where tantivy can create
its lock files while it reads (mmaps) the real files.  Only readers use it:
nothing is written through the links.
"""

from __future__ import annotations

import os
from pathlib import Path

_SHADOWS: list[str] = []


def writable(path: Path) -> bool:
    """True when this process may create files in directory ``path``."""
    return os.access(path, os.W_OK | os.X_OK)


def shadow_dir(path: Path) -> Path:
    """A new temporary directory holding a symlink to every file of index
    directory ``path`` (removed at interpreter exit).  Raises OSError."""
    import atexit  # deferred: only a read-only store needs them (start-up, docs/benchmarks.md)
    import tempfile
    d = tempfile.mkdtemp(prefix="mem-ro-index-")
    if not _SHADOWS:
        atexit.register(_cleanup)
    _SHADOWS.append(d)
    for name in os.listdir(path):
        if not name.endswith(".lock"):
            os.symlink(os.path.join(os.path.abspath(path), name), os.path.join(d, name))
    return Path(d)


def _cleanup() -> None:
    import shutil
    for d in _SHADOWS:
        shutil.rmtree(d, ignore_errors=True)
