"""Transcript parsing and credential redaction in a child process, for ``mem import``.

A bulk import spends about half of its main thread reading transcripts
(``claude_code.parse_file`` / ``codex.parse_file``) and redacting their text
(``objstore.core.redact``).  Both are pure functions of the file's bytes, so
:class:`ParseWorker` runs them in one child Python process while the
importing process filters, encodes and writes what the child has already
sent (the machine's second core; tantivy indexes on its own threads).  The
child never touches the store: it reads the files it is given and writes
the turns to its stdout; every write to the store stays in the importing
process, in the same order as an import without the child, so the objects,
refs and packs are the same and the crash and durability rules are those of
``objstore.capture.importer``.

Protocol (pickle, protocol 5, over the child's stdin/stdout; both ends are
this module):

* in: one ``(reader module name, [path, ...], harness, registry)``
  (``harness``: the importer's, e.g. ``claude-code``, or None; ``registry``:
  the store's project registry, identity -> name, as the import starts,
  or None; a shorter tuple is read as without them);
* out, per file in the order given: zero or more ``("turns", rows)`` chunks
  (at most :data:`CHUNK_TURNS` turns or :data:`CHUNK_CHARS` characters of
  text each) of ``(session, source, role, text, timestamp, cwd, project,
  alias, entrypoint, redacted, secrets, forecast, withheld)`` rows, where ``redacted``
  is the text with its credentials replaced (``None`` when it holds none),
  ``secrets`` the number replaced and ``forecast`` what
  ``sessions.TurnForecast`` (for ``harness``; its chains go on from one
  file to the next) gives for the turn stored with the redacted text and
  the project ``registry`` is expected to name (:func:`project_guesser`): the
  turn's fields, canonical frame, BLAKE3 digest and taint, which the
  importer's turn appender uses instead of encoding and hashing when the
  turn it writes has those fields (None without a harness; a row of 11
  items, as an older child sent, is read as one without a forecast) and
  ``withheld`` the values the reader withheld (``CapturedTurn.withheld``,
  a tuple of str; a row of 12 items is read as one without); then
  ``("file", (files, lines, lines_skipped, records_ignored, records_foreign), error)``,
  ``error`` being the ``OSError`` message that ended the file early or
  ``None``;
* after the last file, the child exits with status 0.

Memory is bounded: the child blocks on a full pipe, and the reader thread
keeps at most :data:`QUEUE_CHUNKS` chunks.  The child ignores SIGINT (the
importing process handles Ctrl-C and kills it) and ends when its parent is
gone (a write to the closed pipe fails).
"""

from __future__ import annotations

import importlib
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from objstore.capture.promptscan import keyed_alias
from objstore.capture.transcript import enable_fast_json
from objstore.core.redact import expect_bulk, redact
from objstore.memory.gitident import identity_of
from objstore.memory.scope import name_in
from objstore.memory.sessions import TurnForecast, cap_turn_text

__all__ = ["CHUNK_CHARS", "CHUNK_TURNS", "ParseWorker", "ParseWorkers", "WorkerFailed", "parse_rows",
           "project_guesser", "split_paths"]

CHUNK_TURNS = 256
CHUNK_CHARS = 1 << 20
QUEUE_CHUNKS = 16
_PROTOCOL = 5
#: the package root (the directory holding ``objstore``): the child imports this same code
_ROOT = str(Path(__file__).resolve().parents[2])


class WorkerFailed(Exception):
    """The child process ended before sending what was asked (killed, out of
    memory, a bug): the caller parses the rest itself."""


def project_guesser(registry: dict[str, str] | None):
    """A function ``name(cwd, fallback) -> project``: what the importer's
    ``sync.project_namer`` is expected to give, from a copy of the store's
    project registry (``registry``: identity -> name) that it extends as
    ``scope.register_project`` would, in the order of the calls; None
    without a registry.  Only a guess, for forecasts: the importer names
    every turn's project itself (under the store lock) and a forecast with
    another project is not used."""
    if registry is None:
        return None
    reg = dict(registry)
    cache: dict[str, str] = {}

    def name(cwd: str, fallback: str) -> str:
        if not cwd:
            return fallback
        got = cache.get(cwd)
        if got is None:
            got = ""
            try:
                ident = identity_of(cwd) if os.path.isdir(cwd) else None
                if ident is not None:
                    got = name_in(ident, reg)
                    reg.setdefault(ident.id, got)
            except (OSError, ValueError):
                got = ""
            cache[cwd] = got
        return got or fallback
    return name


def parse_rows(reader_module: str, path: Path, forecast: TurnForecast | None = None,
               guess=None, key: bytes | None = None) -> Iterator[tuple]:
    """The protocol's messages for one file (what the child sends), parsed by
    the reader module ``reader_module`` (``objstore.capture.claude_code`` or
    ``objstore.capture.codex``) and redacted, in this process; ``forecast``
    gives each row's forecast (None: none), with the project ``guess``
    (:func:`project_guesser`) names when given; ``key``: the store's hash key, a
    prompt's alias keyed with it (``promptscan.keyed_alias``, the plain one as
    ``legacy``: the 14th item) as the parent's ``sync`` filter does, so its forecast holds.
    A bulk caller (``redact.expect_bulk``): the redaction's one-pass gate matcher from the first
    text, not after a MiB scanned with the substring tests (~0.2 s of CPU per child on the
    benchmark corpus; the same gates, so the same rows)."""
    expect_bulk()
    reader = importlib.import_module(reader_module)
    stats = reader.ParseStats()
    rows: list[tuple] = []
    chars = 0
    err = None
    try:
        for ct in reader.parse_file(path, stats):
            if key is not None and ct.alias.startswith("cc:p:"):
                ct = ct.replace(alias=keyed_alias(ct.alias, key), legacy=ct.alias)
            text = cap_turn_text(ct.text)   # what the turn stores: sent instead of a longer text
            red = redact(text) if text else None
            redacted = red.text if red is not None and red.hits else None
            fc = forecast.next(ct, text if redacted is None else redacted,
                               None if guess is None else guess(ct.cwd, ct.project)) if forecast is not None else None
            rows.append((ct.session, ct.source, ct.role, text, ct.timestamp, ct.cwd, ct.project, ct.alias,
                         ct.entrypoint, redacted, len(red.hits) if red is not None else 0, fc, ct.withheld,
                         ct.legacy))
            chars += len(text)
            if len(rows) >= CHUNK_TURNS or chars >= CHUNK_CHARS:
                yield ("turns", rows)
                rows, chars = [], 0
    except OSError as e:
        err = e.strerror or str(e)
    if rows:
        yield ("turns", rows)
    yield ("file", (stats.files, stats.lines, stats.lines_skipped, stats.records_ignored, stats.records_foreign), err)


def _child() -> None:
    """The child's main: read the request from stdin, write the messages to stdout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
    enable_fast_json()
    req = pickle.load(sys.stdin.buffer)
    reader_module, paths = req[0], req[1]
    harness = req[2] if len(req) > 2 else None
    forecast = TurnForecast(harness) if harness else None
    guess = project_guesser(req[3] if len(req) > 3 else None)
    key = req[4] if len(req) > 4 else None
    out = sys.stdout.buffer
    try:
        for p in paths:
            for msg in parse_rows(reader_module, Path(p), forecast, guess, key):
                pickle.dump(msg, out, protocol=_PROTOCOL)
            out.flush()
    except BrokenPipeError:  # the parent is gone: nothing to do
        os._exit(0)
    out.flush()


class ParseWorker:
    """One child process parsing and redacting ``paths`` in order (see the
    module doc); ``harness``: the importer's, for the rows' forecasts (None:
    none); ``registry``: the store's project registry, for their projects;
    ``key``: the store's hash key, sent on the child's stdin (``parse_rows``).
    Use :meth:`messages` to read one file's messages at a time, in the
    order of ``paths``; :meth:`close` (or the context manager) ends the
    child.  Raises ``OSError`` if the child cannot be started."""

    def __init__(self, reader_module: str, paths: list[Path], harness: str | None = None,
                 registry: dict[str, str] | None = None, key: bytes | None = None) -> None:
        code = (f"import sys; sys.path.insert(0, {_ROOT!r}); "
                "from objstore.capture.parseworker import _child; _child()")
        self._proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True)
        self._q: queue.Queue = queue.Queue(QUEUE_CHUNKS)
        self._stop = threading.Event()
        try:
            pickle.dump((reader_module, [str(p) for p in paths], harness, registry, key), self._proc.stdin,
                        protocol=_PROTOCOL)
            self._proc.stdin.close()
        except OSError:
            self.close()
            raise
        self._reader = threading.Thread(target=self._read, name="mem-parse-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        """Reader thread: unpickle the child's messages into the queue; None at the end."""
        out = self._proc.stdout
        try:
            while not self._stop.is_set():
                try:
                    msg = pickle.load(out)
                except EOFError:
                    break
                self._put(msg)
        except Exception:  # a torn message (the child was killed): the end, see messages()
            pass
        self._put(None)

    def _put(self, msg) -> None:
        while not self._stop.is_set():
            try:
                self._q.put(msg, timeout=0.5)
                return
            except queue.Full:
                continue

    def messages(self) -> Iterator[tuple]:
        """The next file's ``("turns", rows)`` messages, then its ``("file", ...)``
        message.  Raises :class:`WorkerFailed` if the child ended first."""
        while True:
            msg = self._q.get()
            if msg is None:
                self._q.put(None)  # later calls see the end too
                raise WorkerFailed(f"the parse worker ended (exit status {self._proc.poll()})")
            yield msg
            if msg[0] == "file":
                return

    def close(self) -> None:
        """End the child (killed if still running) and the reader thread.  Idempotent."""
        self._stop.set()
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        if getattr(self, "_reader", None) is not None:
            self._reader.join()   # it sees the end of the pipe (or the stop) and returns
        for f in (self._proc.stdin, self._proc.stdout):
            try:
                f.close()
            except OSError:
                pass

    def __enter__(self) -> "ParseWorker":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def split_paths(paths: list, n: int, tree_of: Callable[[str], str] | None = None) -> list[int]:
    """Which of ``n`` children parses each of ``paths`` (its index, one per
    path, in order): the files of one session tree (``tree_of(path)``, the
    reader's ``tree_key``; None: each file its own tree) go to one child,
    the one with the fewest bytes given so far when the tree's first file
    comes, so the children stay about even along the order in which the
    importer reads them.  A child parsing a file reads the tree's other
    files for their taint (``claude_code._tree_trail``, once per process)
    and forecasts a session's turns only from the files it parsed itself:
    the files taken in turn (session 15) split a tree in two, and both
    children read its files (docs/benchmarks.md, "Session 27 (branch
    `imp27`)").  A file that cannot be stat'ed weighs 0 bytes."""
    n = max(1, n)
    loads = [0] * n
    child_of: dict[str, int] = {}
    out = []
    for p in paths:
        key = os.fspath(p) if tree_of is None else tree_of(p)
        k = child_of.get(key)
        if k is None:
            k = child_of[key] = loads.index(min(loads))
        try:
            loads[k] += os.stat(p).st_size
        except OSError:
            pass
        out.append(k)
    return out


class ParseWorkers:
    """``n`` :class:`ParseWorker` children sharing ``paths``: each file goes
    to the child :func:`split_paths` gives it (with ``tree_of``, the
    reader's ``tree_key``, a session tree's files to one child; without it
    each file is its own tree), and :meth:`messages` reads the files'
    messages in the order of ``paths``, as one worker gives them.  Each
    child keeps its own forecast chains and project guesses, so a session
    that goes on in another child's file is not forecast there (the
    importer then encodes those turns itself: the same result).  No child
    starts after the last one given a file.  Memory: each child's queue
    and pipe.  Raises ``OSError`` if a child cannot be started (those
    started are ended)."""

    def __init__(self, reader_module: str, paths: list[Path], harness: str | None = None,
                 registry: dict[str, str] | None = None, n: int = 2,
                 tree_of: Callable[[str], str] | None = None, key: bytes | None = None) -> None:
        self._workers: list[ParseWorker] = []
        self._child_of = split_paths(paths, n, tree_of)
        try:
            for k in range(max(self._child_of, default=0) + 1):
                self._workers.append(ParseWorker(reader_module, [p for p, c in zip(paths, self._child_of) if c == k],
                                                 harness, registry, key))
        except OSError:
            self.close()
            raise
        self._next = 0

    def messages(self) -> Iterator[tuple]:
        """The next file's messages (:meth:`ParseWorker.messages`), from the
        child that parsed it.  Raises :class:`WorkerFailed`."""
        i = self._next
        self._next += 1
        if i >= len(self._child_of):   # asked for more files than given: the first child says so
            return self._workers[0].messages()
        return self._workers[self._child_of[i]].messages()

    def close(self) -> None:
        """End every child.  Idempotent."""
        for w in self._workers:
            w.close()

    def __enter__(self) -> "ParseWorkers":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
