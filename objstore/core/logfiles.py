"""The store's plain log files (``<root>/logs/``: the hook log, the audit log's
neighbours): where they are and how a line is appended.  Only ``os`` and
``pathlib``, so that a hook whose budget ran out before it imported the rest
of the library can still write its one log line within its hard stop's
second (``cmds/_hookclock.py``; session 16, tester finding F8)."""

from __future__ import annotations

import os
from pathlib import Path


def is_store(root: str | os.PathLike) -> bool:
    """True when ``root`` holds a store (its ``config`` file exists)."""
    return (Path(root).expanduser() / "config").is_file()


def logs_path(root: str | os.PathLike) -> Path:
    """The folder of the store's logs (``<root>/logs``: reflogs, the hook and
    audit logs)."""
    return Path(root).expanduser() / "logs"


def append_log(root: str | os.PathLike, name: str, line: str, *, max_bytes: int) -> bool:
    """Append ``line`` (ASCII; others replaced) to the store's log
    ``<root>/logs/<name>`` (mode 0600), first rotating it to ``<name>.1``
    when it is larger than ``max_bytes``.  Only when ``root`` is a store
    (:func:`is_store`); returns whether the line was written.  Raises
    OSError.  ``forget`` scrubs these logs (``forget.scrub_derived``)."""
    if not is_store(root):
        return False
    d = logs_path(root)
    d.mkdir(exist_ok=True)
    p = d / name
    try:
        if p.stat().st_size > max_bytes:
            os.replace(p, d / f"{name}.1")
    except FileNotFoundError:
        pass
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, line.encode("ascii", "replace"))
    finally:
        os.close(fd)
    return True
