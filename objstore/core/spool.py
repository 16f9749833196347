"""The capture spools: what a capture writer has taken in and not stored
yet, kept on disk (one small file per record, replaced whole, 0600) so
that a writer that waits for the store lock, or is killed while it waits,
loses nothing: the next writer of the same kind stores the spool, in its
files' order, and deletes each file once what it holds is published.

Two spools use it (``docs/format.md``, "cache/"):

* ``cache/shell-spool/<session>/``: one shell command per file
  (``objstore.capture.shellcap``, ``mem hook shell``);
* ``cache/proxy-spool/``: one capture batch of ``mem proxy`` per file
  (``objstore.capture.proxyspool``), its turns already redacted.

One writer at a time stores a spool (the *drainer*): it holds the flock
``cache/<spool>.lock``.  Storing is idempotent (each turn carries its
source, and a known source is skipped), so a drainer killed after its
publish and before it deleted the files stores nothing twice.

This module holds the file mechanics both share and the read-only views
``mem fsck`` and ``mem doctor`` use (:func:`spooled_sources`,
:func:`waiting`); it takes no store lock and never decodes a turn.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

from objstore.core.atomic import atomic_write

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: every writer drains (the store lock orders them)
    fcntl = None  # type: ignore[assignment]

#: the shell records not stored yet, one folder per shell session (``objstore.capture.shellcap``)
SHELL_SPOOL_DIR = "cache/shell-spool"
#: the proxy's capture batches not stored yet (``objstore.capture.proxyspool``)
PROXY_SPOOL_DIR = "cache/proxy-spool"
#: spool folder -> whether its records are in one folder per session
NESTED = {SHELL_SPOOL_DIR: True, PROXY_SPOOL_DIR: False}


def write_record(path: Path, rec: dict) -> Path:
    """Write one spool record ``rec`` (a JSON object) at ``path``, replaced
    whole and durable (0600, its folder made 0700).  Returns ``path``.
    Raises OSError, TypeError/ValueError (``rec`` not JSON)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write(path, json.dumps(rec, ensure_ascii=False).encode("utf-8"))
    return path


def files(root: Path, spool: str) -> Iterator[Path]:
    """The record files (``*.json``, not a temp file) of the spool
    ``spool`` (one of :data:`NESTED`) of the store at ``root``, in no
    order; none when the folder is missing or unreadable."""
    base = root / spool
    try:
        names = os.listdir(base)
    except OSError:
        return
    if not NESTED[spool]:
        for n in names:
            if n.endswith(".json") and not n.startswith("."):
                yield base / n
        return
    for sid in names:
        try:
            inner = os.listdir(base / sid)
        except OSError:
            continue
        for n in inner:
            if n.endswith(".json") and not n.startswith("."):
                yield base / sid / n


def waiting(root: Path, spool: str) -> int:
    """How many records wait in the spool ``spool`` of the store at
    ``root`` (not stored yet: a writer may be storing them now).  Takes no
    lock."""
    return sum(1 for _ in files(root, spool))


def oldest_waited(root: Path, spool: str) -> float:
    """Seconds the oldest record of the spool has waited (by its file's
    time); 0.0 when none waits."""
    now, oldest = time.time(), 0.0
    for p in files(root, spool):
        try:
            oldest = max(oldest, now - p.stat().st_mtime)
        except OSError:
            pass
    return oldest


def take_drainer(root: Path, spool: str, *, wait: bool = False) -> int | None:
    """The drainer's flock of ``spool`` (``cache/<spool name>.lock``):
    its fd (close it to let go; -1 where there is no flock), or None when
    another writer holds it and ``wait`` is False.  With ``wait`` it blocks
    until the holder lets go (a holder that dies lets go with it).
    Raises OSError (the lock file cannot be made)."""
    if fcntl is None:
        return -1
    p = root / (spool + ".lock")
    p.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        os.close(fd)
        if wait:
            raise
        return None
    return fd


def let_go(fd: int | None) -> None:
    """Let go of a drainer's flock from :func:`take_drainer`."""
    if fd is not None and fd >= 0:
        os.close(fd)


def read_record(path: Path) -> dict | None:
    """The JSON object in a spool file, or None (unreadable, not JSON, not
    an object: a torn write is never one, files are replaced whole)."""
    try:
        rec = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) else None


def spooled_sources(root: Path) -> dict[str, set[str]]:
    """Session id -> the sources of its turns that wait in a spool of the
    store at ``root`` (a shell record's ``session``/``source``; a proxy
    batch's ``turns``): ``mem fsck`` calls a session whose turns are
    stored, its ref not set yet and its head in a spool an unfinished
    capture, not damage (a proxy writes a batch's objects before it takes
    the store lock).  A record that does not read is left out."""
    out: dict[str, set[str]] = {}
    for spool in NESTED:
        for p in files(root, spool):
            rec = read_record(p)
            if rec is None:
                continue
            turns = rec.get("turns") if isinstance(rec.get("turns"), list) else [rec]
            for t in turns:
                if isinstance(t, dict) and isinstance(t.get("session"), str) and isinstance(t.get("source"), str):
                    out.setdefault(t["session"], set()).add(t["source"])
    return out
