"""Capture in the agent's path: incremental transcript sync, exclusions, and
the small caches that keep a hook cheap.  Prompt and shell capture (one turn
at once) are in :mod:`objstore.capture.live`.

Used by ``mem hook`` (``cmds/hook.py``); ``mem import`` shares the filters
(:func:`import_filter`).  Formats: ``docs/agent-formats.md`` §1 (hook
contract), §2 (transcripts); behaviour and budgets: ``docs/hooks.md``.

Incremental sync.  Each transcript file has a **cursor**: the byte offset up
to which it has been read, the file's identity (device, inode) and a
fingerprint of its first bytes, plus the reader's bookkeeping
(:class:`objstore.capture.claude_code.ReaderState`).  A sync reads from the
cursor to the end of the file, never past a line that has no newline yet
(the agent is still writing it), and, unless the read is *final*, keeps back
a trailing run of assistant records (one API message is written as several
records, and the Stop hook can fire before the last ones are written).  A
file that shrank, was replaced or whose first bytes changed is read again
from the start: capture is idempotent (each turn carries its source record's
id, see ``objstore.memory.sessions``), so a re-read adds nothing.  Nothing depends
on modification times.

Idempotence from every side.  A prompt captured by the UserPromptSubmit hook
is stored under ``cc:p:<hash of text>:<n>`` (:func:`claude_code.prompt_alias`);
the transcript reader computes the same key for the record that holds the
prompt, and a turn is skipped when its source *or* that key is already in the
session.  A session that copies an earlier session's records (``--resume``
into a new id, a fork) is recognised by its first assistant message id (API
ids are unique): the **lineage** cache maps that id to the sessions that
start with it, and records of the copied prefix that any of them already holds
are dropped (:class:`_Lineage`).  The cursors themselves are in
:mod:`objstore.capture.cursors`.

Caches (all under ``<store>/cache``; derived, safe to delete; they hold ids,
offsets and hashes, never text):

* ``cursors/<h>.json`` + ``<h>.state``: one cursor per transcript file,
  ``h`` = SHA-256 of its real path (32 hex);
* ``session-state/<h>.json``: a session's head, next seq and source ids
  (``objstore.memory.sessions.load_session``);
* ``lineage.log``: which sessions' transcripts start with which message,
  one line ``<h> <session id>`` per session (``h`` = SHA-256 of the first
  assistant message id, 32 hex), appended; a store written before it has
  ``lineage/<h>`` files (one session id per line), still read.

``<store>/no-capture`` (not a cache: deleting it would let excluded sessions
in) lists session ids captured with ``MEM_NO_CAPTURE=1``; every path skips
them.  Exclusions live in ``<store>/config.toml`` (:class:`CaptureConfig`).

Every write goes through the one turn appender
(``objstore.memory.appender.TurnAppender``) under the store lock: it applies
the forget filter (a forgotten session or record never comes back), redacts
credentials (``objstore.core.redact``) and publishes in the store's order:
objects (synced), then refs by compare-and-swap with their reflog entry, then
the search index (or, for the prompt hook, leaves the index to the next
writer through the index journal, which is what the journal is for).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from stat import S_ISREG

from objstore.capture.rollup import IDLE_S as ROLLUP_IDLE_S, cwd_project, rollup_files
from objstore.capture.claude_code import ParseStats, parse_file
from objstore.capture.claude_subagents import subagent_outcome
from objstore.capture.nomem import subagent_excluded
from objstore.capture.cursors import Cursor, cursor_saved, iter_cursors, load_cursor, save_cursor
from objstore.capture.promptscan import keyed_alias, text_key
from objstore.capture.policy import (DEFAULT_MARKER, CaptureConfig,
                                    capture_refused, has_marker, load_config, mark_no_capture,
                                    no_capture_of, no_capture_sessions, path_excluded)
from objstore.capture.snapshot import is_subagent
from objstore.capture.retraction import takes_back
from objstore.capture.sealedprompt import withhold_sealed
from objstore.capture.statements import statement_of, write_statement
from objstore.capture.transcript import transcript_refused
from objstore.core.atomic import CACHE_FILE_MAX_BYTES, SMALL_FILE_MAX_BYTES, open_regular, read_regular
from objstore.core.errors import MemError
from objstore.core.fileid import hidden_source
from objstore.core.hashkey import store_key
from objstore.core.ids import sha256   # not hashlib: OpenSSL's load costs the prompt hook 2.5-4 ms
from objstore.core.record import Record, set_fields
from objstore.core.store import Store, now_ms
from objstore.memory.appender import TurnAppender, message_digest
from objstore.memory.hiddenids import hide_turn
from objstore.memory.provenance import is_subagent_session
from objstore.memory.sessions import CapturedTurn, walk_turns
from objstore.memory.tombstones import CaptureFilter, redact_matches

__all__ = ["Cursor", "SyncResult", "catch_up", "import_filter", "subagent_files", "sync_files", "MAX_SYNC_BYTES"]

MAX_SYNC_BYTES = 16 << 20      # bytes one sync reads from one file; the rest waits for the next
PRE_SYNC_MAX_BYTES = 4 << 20   # the prompt hook reads its own transcript only when this little is new
#: bytes of one file one sync reads before it commits (publishes the turns, saves the cursor) and
#: goes on: a sync stopped later keeps each committed chunk (~1,000 Claude Code turns)
CHUNK_BYTES = 1 << 20
FP_BYTES = 4096                # fingerprint of a file's first bytes (detects a rewrite in place)
LINEAGE_LOOKAHEAD = 64         # turns held back while looking for a file's first message id
NEW_FILE_LOOKBACK_MS = 86_400_000  # catch-up takes new files of a known folder written since a day before
                                   # mem first saw that folder (older ones are history: 'mem import')
# --------------------------------------------------------------------------- writing

def valid_text(text: str) -> str:
    """``text`` with lone surrogates (a broken \\ud83d escape, undecodable
    bytes from argv) and NULs replaced, so it can be stored as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text.replace("\x00", "\ufffd")


def _fingerprint(path: Path, n: int) -> str:
    with open(path, "rb") as f:
        return sha256(f.read(n)).hexdigest()[:32]


# --------------------------------------------------------------------------- filters

class _Lineage:
    """Drops the records a session copied from earlier sessions.

    A transcript whose first assistant message id is also the first message
    of other sessions (``cache/lineage/<hash of id>``) was copied from them:
    records of the copied prefix whose source or alias those sessions hold
    are dropped; so are the user and tool records before such a record (a
    fork may give copies new uuids), up to the first assistant message the
    parents do not hold (the copy ends there).
    """

    def __init__(self, writer: TurnAppender, saved: dict) -> None:
        self.w = writer
        self.saved = saved          # persisted: {"checked", "parents", "in_copy"}
        self.seed: set[str] | None = None
        self.messages: dict[str, set[bytes]] | None = None

    def _same_message(self, ct: CapturedTurn) -> bool:
        """Whether a parent holds this assistant message (``cc:msg:<id>``) with the same
        text.  Two sessions may share a message id with different answers (issue 21):
        both are kept.  A parent's forgotten copy counts as the same (it must not come
        back through the copy); an unreadable parent chain too (as before: by id)."""
        src = "cc:msg:" + ct.source.split(":")[2]
        if self.messages is None:
            self.messages = {}
            for p in self.saved.get("parents", []):
                sid = self.w.valid_sid(p)
                if sid is None:
                    continue
                for (s2, source), d in self.w.message_digests.items():
                    if s2 == sid:
                        self.messages.setdefault(source, set()).add(d)
                try:
                    for tv in walk_turns(self.w.store, self.w.state(sid).start_head):
                        if tv.turn.role == "assistant" and tv.turn.source.startswith("cc:msg:"):
                            self.messages.setdefault(tv.turn.source, set()).add(message_digest(tv.turn))
                except MemError:
                    self.messages.setdefault(src, set()).add(b"")
        got = self.messages.get(src)
        if got is None:
            return True             # held by id in the seed but not found: as before, a copy
        return b"" in got or self.w.text_digest(ct.text) in got

    def _seed(self) -> set[str]:
        if self.seed is None:
            self.seed = set()
            for p in self.saved.get("parents", []):
                sid = self.w.valid_sid(p)
                if sid is None:
                    continue
                self.seed |= self.w.state(sid).sources  # with what the writer has not published yet
        return self.seed

    def _check(self, first_msg: str, sid: str) -> None:
        if self.w.valid_sid(sid) is None:
            # a session the appender refuses (not a ref name, or an id holding a credential): its
            # turns are skipped, and its id goes in no file, the lineage log neither
            self.saved.update(checked=True, parents=[], in_copy=False)
            return
        h = text_key(first_msg)
        cache = self.w.store.root / "cache"
        ids = lineage_sessions(cache, h)
        parents = [x for x in ids if x != sid]
        if sid not in ids:
            cache.mkdir(parents=True, exist_ok=True)
            _append_line(cache / LINEAGE_LOG, f"{h} {sid}\n")
        self.saved.update(checked=True, parents=parents, in_copy=bool(parents))

    def run(self, turns: Iterable[CapturedTurn]) -> Iterator[CapturedTurn]:
        it = iter(turns)
        if not self.saved.get("checked"):
            held: list[CapturedTurn] = []
            for ct in it:
                held.append(ct)
                if ct.role == "assistant" and ct.source.startswith("cc:msg:"):
                    self._check(ct.source.split(":")[2], ct.session)
                    break
                if len(held) >= LINEAGE_LOOKAHEAD:
                    self.saved.update(checked=True, parents=[], in_copy=False)
                    break
            it = _chain(held, it)
        if not self.saved.get("in_copy"):
            yield from it
            return
        seed = self._seed()
        # a record is a copy when the parents hold it (source, prompt alias, message id) or it
        # is a tool result right after a copy; every other record is new and kept (issue 21)
        for ct in it:
            if not self.saved.get("in_copy"):
                yield ct
                continue
            mid = ct.source.split(":")[2] if ct.source.startswith("cc:msg:") else ""
            if mid and (ct.source in seed or f"cc:msg:{mid}" in seed):
                copied = self._same_message(ct)     # by message id and text, not id alone
            else:
                copied = ct.source in seed or bool(ct.alias and (ct.alias in seed or ct.legacy in seed))
            if copied or (ct.role == "tool" and self.saved.get("after_copy")):
                self.saved["after_copy"] = True
                continue
            self.saved["after_copy"] = False
            if ct.role == "assistant":
                self.saved["in_copy"] = False     # the first new answer: the copy ended before it
            yield ct


#: ``<store>/cache/LINEAGE_LOG``: the lineage cache (module docstring)
LINEAGE_LOG = "lineage.log"
_lineage_read: dict[str, tuple[int, int, dict[str, list[str]]]] = {}  # path -> (inode, bytes parsed, h -> ids)


def lineage_sessions(cache: Path, h: str) -> list[str]:
    """The session ids whose transcript starts with the message of hash
    ``h`` (32 hex), in the order they were recorded: from
    ``cache/lineage.log`` (only the bytes appended since this process last
    read it are parsed; a replaced or shorter file is read again) and from
    a ``cache/lineage/<h>`` file of an older store.  [] when neither has
    it.  A torn last line (a writer that died mid-line) is ignored."""
    path = cache / LINEAGE_LOG
    key = str(path)
    ino, done, table = _lineage_read.get(key, (-1, 0, {}))
    try:
        with open_regular(path) as f:   # a FIFO, a device, a folder: unusable, never waited on (test18b V2)
            st = os.fstat(f.fileno())
            if st.st_ino != ino or st.st_size < done:
                ino, done, table = st.st_ino, 0, {}
            if st.st_size - done > CACHE_FILE_MAX_BYTES:
                raise OSError(27, "larger than its cap")   # EFBIG: damage, never read whole
            if st.st_size > done:
                f.seek(done)
                chunk = f.read(st.st_size - done)
                end = chunk.rfind(b"\n") + 1
                for line in chunk[:end].decode("utf-8", "replace").splitlines():
                    k, _, sid = line.partition(" ")
                    if sid and sid not in table.setdefault(k, []):
                        table[k].append(sid)
                done += end
        _lineage_read[key] = (ino, done, table)
    except OSError:   # absent, or unusable (not a regular file, over the cap): no lineage known
        table = {}
    ids = list(table.get(h, ()))
    try:  # written before lineage.log (one file per message)
        old = read_regular(cache / "lineage" / h, SMALL_FILE_MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return ids
    return [*[x for x in old.split("\n") if x and x not in ids], *ids]


def _append_line(path: Path, line: str) -> None:
    """Append ``line`` to the regular file ``path`` (created when absent) in
    one write (appends of other processes stay whole); nothing when ``path``
    is a FIFO, a device, a folder or cannot be opened: a cache line lost,
    never a hook waiting on a reader (test18b V2)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0), 0o600)
    except OSError:
        return
    try:
        if S_ISREG(os.fstat(fd).st_mode):
            os.write(fd, line.encode("utf-8", "surrogatepass"))
    finally:
        os.close(fd)


def _chain(first: list, rest: Iterator) -> Iterator:
    yield from first
    yield from rest


def project_namer(store: Store):
    """A function ``name(cwd, fallback) -> project`` for captured turns: the
    project of ``cwd`` by its identity (``objstore.memory.scope``; worktrees
    and subagents map to their repository; registered in the store's
    project registry), or ``fallback`` (the reader's name) when ``cwd`` is
    not a directory here.  Cached per cwd."""
    cache: dict[str, str] = {}

    def name(cwd: str, fallback: str) -> str:
        if not cwd:
            return fallback
        if cwd not in cache:
            cache[cwd] = cwd_project(store, cwd, "")
        return cache[cwd] or fallback
    return name


def _filtered(turns: Iterable[CapturedTurn], *, cfg: CaptureConfig, no_capture: set[str],
              saved: dict, lineage: _Lineage | None, namer=None, key: bytes,
              w: TurnAppender | None = None) -> Iterator[CapturedTurn]:
    """A prompt's alias as stored: keyed with the store's hash ``key``
    (``promptscan.keyed_alias``), the reader's plain alias kept as ``legacy``
    (what an older mem stored: matched, never stored).  Apply the exclusions: no-capture sessions, excluded paths, the ignore
    marker (the marked prompt and every turn up to the next prompt), then
    the lineage filter.  ``saved`` persists the marker state (``skipping``;
    ``by``, the session whose prompt set it, within one read).  An inline
    sidechain's prompt (``<by>.agent-…``, ``<by>.sidechain``: Claude Code <=
    1.0.x) does not end a stretch: its sub-agent was started by the
    excluded answer (a sub-agent with a file of its own: ``nomem``)."""

    def base() -> Iterator[CapturedTurn]:
        for ct in turns:
            if no_capture_of(ct.session, no_capture) or path_excluded(cfg, ct.cwd):
                continue
            if w is not None:   # an id or cwd holding a --match text: hidden (hiddenids), no-capture as such
                ct = hide_turn(w, ct)
                if no_capture_of(ct.session, no_capture):
                    continue
            if ct.alias.startswith("cc:p:") and not ct.legacy:    # (a parse worker's row: keyed there)
                ct = ct.replace(alias=keyed_alias(ct.alias, key), legacy=ct.alias)
            if ct.role == "user" and not (saved.get("skipping") and saved.get("by")
                                          and ct.session.startswith(saved["by"] + ".")):
                saved["skipping"] = has_marker(cfg, ct.text)
                saved["by"] = ct.session
            if saved.get("skipping"):
                continue
            if namer is not None:
                project = namer(ct.cwd, ct.project)
                if project != ct.project:
                    ct = ct.replace(project=project)
            yield ct
    return lineage.run(base()) if lineage is not None else base()


def import_filter(store: Store, appender: TurnAppender):
    """For ``mem import``: a function ``wrap(turns) -> turns`` applying the
    same exclusions and lineage rule as the hooks (fresh state per file;
    ``path``, the file the turns are read from: a sub-agent's started by a
    ``#nomem`` answer is excluded, ``nomem.subagent_excluded``).
    ``appender``: the import's turn appender, whose sessions (published or
    not) the lineage rule reads, so a copy imported in the same run is seen.
    Raises InvalidInput for an unreadable config."""
    cfg = load_config(store.root)
    ids = no_capture_sessions(store)
    w = appender
    namer = project_namer(store)
    key = store_key(store.root)

    def wrap(turns: Iterable[CapturedTurn], path: Path | None = None) -> Iterator[CapturedTurn]:
        saved: dict = {}
        if path is not None:   # a sub-agent started by a #nomem answer: its namespace joins ``ids``
            subagent_excluded(store, path, cfg, ids)
        return _filtered(turns, cfg=cfg, no_capture=ids, saved=saved, lineage=_Lineage(w, saved), namer=namer, key=key,
                         w=w)
    return wrap


# --------------------------------------------------------------------------- sync

class SyncResult(Record):
    """One file's sync: where it was read from and to, what was added;
    ``more``: the byte budget stopped it before the end; ``refused``: not
    read, its path holds a credential (:func:`transcript_refused`; also
    ``missing``)."""

    __slots__ = ("path", "session", "start", "offset", "size", "turns_seen", "turns_added", "lines_skipped", "reset",
                 "missing", "more", "refused")

    def __init__(self, path: str, session: str = "", start: int = 0, offset: int = 0, size: int = 0,
                 turns_seen: int = 0, turns_added: int = 0, lines_skipped: int = 0, reset: bool = False,
                 missing: bool = False, more: bool = False, refused: bool = False) -> None:
        set_fields(self, path, session, start, offset, size, turns_seen, turns_added, lines_skipped, reset, missing,
                   more, refused)


def hide_forgotten_paths(store: Store, w: TurnAppender, cursors: list[Cursor]) -> None:
    """A cursor about to be saved for the first time (none is saved: a new
    transcript, or one whose cursor a forget deleted because it named a
    forgotten text) whose path holds a ``forget --match`` text of any
    session or none (the ``match:`` and ``text:`` rules: ``tombstones.redact_matches``, the match
    the appender applies to a turn's ``cwd``) is saved hidden
    (``Cursor.hidden``: its path by hash), so the hook that goes on
    capturing a session in a folder named after a forgotten text does not
    write the path back (session 17).  Cost: a stat per cursor; the rules
    are read only for a new cursor."""
    fresh = [c for c in cursors if not c.hidden and not cursor_saved(store, Path(c.path))]
    if not fresh:
        return
    flt = w.filter()
    rules = [r for rs in flt.rules.values() for r in rs]
    if rules or flt.text:   # (flt.text: every --match text, of a session or none: txt42)
        for c in fresh:
            c.hidden = bool(rules and redact_matches(c.path, rules)[1]) or flt.holds(None, c.path)


def _open_cursor(store: Store, path: Path, st: os.stat_result) -> tuple[Cursor, bool]:
    """The file's cursor, reset (offset 0, fresh bookkeeping) when the file
    is new, replaced, shorter than the cursor, or its first bytes changed."""
    cur = load_cursor(store, path)
    fresh = Cursor(path=os.path.realpath(path), dev=st.st_dev, ino=st.st_ino, created=now_ms())
    if cur is None:
        return fresh, False
    if (cur.dev, cur.ino) != (st.st_dev, st.st_ino) or st.st_size < cur.offset:
        fresh.created = cur.created or fresh.created
        return fresh, True
    if cur.fp_len and _fingerprint(path, cur.fp_len) != cur.fp:
        fresh.created = cur.created or fresh.created
        return fresh, True
    return cur, False


def sync_one(store: Store, writer: TurnAppender, path: Path, *, final: bool, cfg: CaptureConfig,
             no_capture: set[str], max_bytes: int, observe=None,
             stopped: str | None = None, stated: list | None = None) -> tuple[SyncResult, Cursor | None]:
    """Read one transcript from its cursor into ``writer``.  ``stated``: a
    list that receives ``(turn id, CapturedTurn)`` of each prompt of a main
    transcript this sync adds that states a fact ("remember that …":
    ``objstore.capture.statements``), for :func:`write_stated`.  A file
    whose path holds a credential (:func:`transcript_refused`) is not read
    and gets no cursor (``refused``, like ``missing``)."""
    res = SyncResult(path=str(path))
    if transcript_refused(path):
        res.refused = res.missing = True
        return res, None
    try:
        st = os.stat(path)
    except OSError:
        res.missing = True
        return res, None
    if is_subagent(path):   # started by a #nomem answer: its namespace joins ``no_capture``
        subagent_excluded(store, path, cfg, no_capture)
    cur, res.reset = _open_cursor(store, path, st)
    if stopped is not None and not is_subagent(path):    # a Stop hook: the answer is finished
        cur.stopped = True
        cur.reader.answer_done = stopped
    res.start = res.offset = cur.offset
    res.size = st.st_size
    if st.st_size == cur.offset:
        return res, cur
    end = min(st.st_size, cur.offset + max_bytes)
    stats = ParseStats()
    rs = cur.reader
    rs.hold_tail = not final
    lineage = _Lineage(writer, cur.lineage) if not is_subagent(path) else None
    saved = {"skipping": cur.skipping}
    for attempt in (0, 1):
        turns = parse_file(path, stats, start=cur.offset, end=end, state=rs)
        for ct in _filtered(turns, cfg=cfg, no_capture=no_capture, saved=saved, lineage=lineage,
                            namer=project_namer(store), key=store_key(store.root), w=writer):
            res.turns_seen += 1
            if not res.session:
                res.session = ct.session
            if observe is not None:
                observe(ct)
            forgotten = writer.forgotten
            oid = writer.add(ct)
            if oid:
                res.turns_added += 1
                if stated is not None and lineage is not None and writer.forgotten == forgotten \
                        and states_fact(ct):
                    stated.append((oid, ct))
        if rs.resume_at > cur.offset or end >= st.st_size:
            break
        end = st.st_size           # one line longer than the budget: read it whole
    res.lines_skipped = stats.lines_skipped
    cur.offset = max(cur.offset, rs.resume_at)
    cur.skipping = bool(saved.get("skipping"))
    cur.session = cur.session or res.session
    cur.synced = now_ms()
    if cur.fp_len < FP_BYTES and cur.offset > cur.fp_len:
        cur.fp_len = min(FP_BYTES, cur.offset)
        cur.fp = _fingerprint(path, cur.fp_len)
    res.offset = cur.offset
    res.more = cur.offset < st.st_size and end < st.st_size
    return res, cur


def _sync_chunked(store: Store, w: TurnAppender, path: Path, *, whole: bool, cfg: CaptureConfig,
                  no_capture: set[str], max_bytes: int, deadline: float | None, stopped: str | None,
                  stated: list, ended: bool, cursors: list[Cursor], commit) -> SyncResult:
    """:func:`sync_one` of ``path`` in chunks of at most :data:`CHUNK_BYTES`
    (``max_bytes`` in all), each chunk but the last committed (``commit``:
    statements, turns published, cursors saved) before the next is read, so
    a hook stopped by its budget or killed in a large backlog keeps what it
    stored and the next event goes on from the saved cursor (test29 P15: a
    41 MB transcript never captured, each Stop timing out on its first
    8 MB).  No next chunk once ``deadline`` has passed, nor when the last
    chunk's time, read and commit, would end past it, nor when less than a
    chunk of ``max_bytes`` is left (a remainder would read a long line
    whole: past ``max_bytes``).  The cursor of the
    last chunk is appended to ``cursors`` for the caller's commit.  Returns
    the file's result over all chunks (``start`` of the first, ``offset``
    of the last, the counts summed)."""
    total: SyncResult | None = None
    left = max_bytes
    while True:
        t0 = time.monotonic()
        res, cur = sync_one(store, w, path, final=whole, cfg=cfg, no_capture=no_capture,
                            max_bytes=min(left, CHUNK_BYTES), stopped=stopped, stated=stated)
        if cur is not None:  # (a subagent file read whole is rolled up by the caller: ended)
            cur.ended = cur.ended or ended or (whole and is_subagent(path))
            cursors.append(cur)
        if total is None:
            total = res
        else:
            total.offset, total.size, total.more = res.offset, res.size, res.more
            total.session = total.session or res.session
            total.turns_seen += res.turns_seen
            total.turns_added += res.turns_added
            total.lines_skipped += res.lines_skipped
        left -= res.offset - res.start
        if cur is None or not res.more or left < CHUNK_BYTES or res.offset <= res.start:
            return total
        commit()   # this chunk is kept whatever stops the next one
        now = time.monotonic()
        if deadline is not None and now + (now - t0) > deadline:
            total.more = True
            return total


def subagent_files(transcript: Path) -> list[Path]:
    """Subagent transcripts of a main transcript ``<dir>/<session>.jsonl``:
    ``<dir>/<session>/subagents/**/agent-*.jsonl`` (agent-formats §2.3)."""
    d = Path(transcript).with_suffix("") / "subagents"
    out = []
    for dirpath, _dirs, files in os.walk(d):
        out.extend(Path(dirpath) / f for f in files if f.startswith("agent-") and f.endswith(".jsonl"))
    return sorted(out)


def sync_files(store: Store, paths: Iterable[Path], *, final: bool = False, cfg: CaptureConfig | None = None,
               command: str = "hook", index: bool = True, max_bytes: int = MAX_SYNC_BYTES,
               deadline: float | None = None, ended: bool = False,
               writer: TurnAppender | None = None, rollup: bool = True,
               stopped: str | None = None, retractions: list | None = None) -> list[SyncResult]:
    """Read each transcript from its cursor and capture the new turns.

    Takes the store lock (its timeout is the store's ``lock_timeout``;
    StoreLocked propagates and nothing is read).  Turns are published and
    indexed once for all files, then the cursors are saved, so a crash
    re-reads rather than skips.  ``final``: the writer is done with the file
    (SessionEnd, SubagentStop, an idle file): a trailing assistant run is
    read too.  ``deadline`` (``time.monotonic()``): files left when it
    passes wait for the next sync.  ``ended`` marks the cursors as ended.
    A subagent file that closes with its final message, or is idle for
    ``rollup.IDLE_S`` (60 s), is read to its end too: its subagent ended
    (or was killed).  ``rollup``: then each subagent
    file that grew or ended is rolled up into its parent
    (``objstore.capture.rollup``: a summary of its final message, or "did
    not complete" for one that ended without it).
    ``stopped`` (the Stop hook; :func:`claude_code.answer_hash` of its
    ``last_assistant_message``, "" without one): the agent finished its
    answer.  A main transcript's trailing message with that text is read at
    once, and the cursor remembers the stop, so the next prompt hook reads
    the trailing message before it stores its prompt (turn order as
    ``mem import`` gives it).
    A retraction prompt it adds ("forget that": one its prompt hook did
    not store, having failed open) takes back what the prompt before it
    filed, by the prompt hook's and ``mem import``'s rule
    (``takeback.take_back_stated``, once its turn is published; raises
    as it); with ``retractions`` (a list: the Stop hook, whose budget a
    forget may outlast) its ``(turn id, CapturedTurn)`` is appended there
    instead, for the caller to take back.
    """
    cfg = cfg if cfg is not None else load_config(store.root)
    out: list[SyncResult] = []
    with store.lock(command):
        w = writer or TurnAppender(store, command=command, withhold=withhold_sealed)
        try:
            no_cap = no_capture_sessions(store)
            cursors: list[Cursor] = []
            stated: list = []
            done: set[str] = set()     # subagent files read to their end (final, or idle: it ended)

            def commit() -> None:
                # (the statements before the turns' publish: a crash between writes both again)
                backs = [x for x in stated if takes_back(x[1].text) is not None]
                write_stated(store, stated, command, rules=w.filter() if stated else None)
                stated.clear()
                w.publish(index=index)   # an index failure leaves the journal: the next writer replays it
                hide_forgotten_paths(store, w, cursors)
                for c in cursors:        # after the publish: a crash before this re-reads, never skips
                    save_cursor(store, c)
                cursors.clear()
                if backs and retractions is not None:   # (the hook: its forget in a detached child)
                    retractions.extend(backs)
                elif backs:   # a "forget that" its prompt hook did not store (it failed open): the hook's rule
                    from objstore.capture.takeback import take_back_stated  # defer: forget; a retraction only
                    take_back_stated(store, backs)

            for p in paths:
                if deadline is not None and time.monotonic() > deadline:
                    break
                whole = final or (is_subagent(Path(p)) and _subagent_ended(Path(p)))
                res = _sync_chunked(store, w, Path(p), whole=whole, cfg=cfg, no_capture=no_cap, max_bytes=max_bytes,
                                    deadline=deadline, stopped=stopped, stated=stated, ended=ended,
                                    cursors=cursors, commit=commit)
                if whole:
                    done.add(res.path)
                out.append(res)
            commit()
        finally:
            w.close()
        if rollup:  # a subagent file that grew, or ended, is rolled up into its parent
            subs = [r for r in out if is_subagent(Path(r.path)) and not r.missing]
            ended_ = [Path(r.path) for r in subs if r.path in done]
            grew = [Path(r.path) for r in subs if r.path not in done and r.offset > r.start]
            for group, whole in ((ended_, True), (grew, False)):
                if group:
                    rollup_files(store, group, final=whole, command=command)
    if w.named_values:   # pin39 (prox38's limit): a password or PIN a turn named, from the session's earlier turns
        from objstore.memory.sessionearlier import withhold_earlier_after  # defer: forget; a password named only
        withhold_earlier_after(store, w.named_values)
    return out


def states_fact(ct: CapturedTurn) -> bool:
    """Whether a turn is a prompt the person typed (a Claude Code prompt,
    alias ``cc:p:``; a Codex user message of a main session, source
    ``cx:u:``), not a sub-agent's (its user turn is the parent agent's
    prompt, ``provenance.turn_author``: test39 T4), that states a fact (:func:`statements.statement_of`) or
    takes one back (:func:`retraction.retraction_of`, "forget that": what
    ``mem import`` takes back, ``takeback.take_back_stated``; it states
    nothing to write): what the sync and ``mem import`` hand to
    :func:`write_stated` once they added the turn (test33 T21)."""
    return ct.role == "user" and (ct.alias.startswith("cc:p:") or ct.source.startswith("cx:u:")) \
        and not is_subagent_session(ct.session) \
        and (statement_of(ct.text) is not None or takes_back(ct.text) is not None)


def write_stated(store: Store, stated: list, command: str, own: str = "",
                 rules: CaptureFilter | None = None, later: list | None = None) -> object:
    """Write the statements of prompts a sync added (``sync_one``'s
    ``stated``), each citing its turn: late (``statements.write_statement``:
    never over a value said after the prompt or forgotten since), except the prompt whose
    source or alias is ``own`` (the prompt hook's own prompt, typed now),
    whose result is returned (None when it is not among them; the
    ``MemError`` when its write was refused, a sealed key).  Another refused
    write is skipped.  Caller holds the store lock and
    publishes the turns after this (the fact's index commit clears the
    index journal, which must not hold their sessions yet).

    ``rules``: the writer's forget filter (``TurnAppender.filter()``), its
    ``--match`` rules (``CaptureFilter.holds``) applied here as the turn writer
    applies them to the turn (the one place a captured prompt's text becomes
    a fact): a statement holding a forgotten text is not written (``forget
    --match`` leaves no value holding it), and one whose cwd holds it is
    written without that cwd, as the turn is stored (session 23 Y5: a
    "remember that …" prompt captured after a ``forget --match`` of its text,
    ``tombstones.match_late_capture``, wrote its fact in the clear).
    ``later``: a list to receive the facts' index commits
    (``facts.remember``'s), for a caller that publishes the turns first."""
    mine = None
    for oid, ct in stated:
        is_own = bool(own) and own in (ct.source, ct.alias)
        cwd = ct.cwd
        if rules is not None and rules.holds(ct.session, ct.text):
            continue
        if rules is not None and rules.holds(ct.session, cwd):
            cwd = ""
        try:
            r = write_statement(store, ct.text, cwd=cwd, source=oid, command=f"{command} remember",
                                late=not is_own, said_at=ct.timestamp, later=later)
        except MemError as e:
            if is_own:   # the prompt typed now: its hook says it was not stored, and why (test30b S17)
                mine = e
            continue
        if is_own:
            mine = r
    return mine


def _subagent_ended(path: Path) -> bool:
    """Whether subagent transcript ``path`` has ended: it closes with its
    final message (:func:`claude_subagents.subagent_outcome`), or it has not been
    written for ``rollup.IDLE_S`` (killed).  Read whole then, so its summary
    rolls up every turn at once (a summary of a partial read would be
    followed by a second version when the rest arrives)."""
    if _idle(path, ROLLUP_IDLE_S):
        return True
    try:
        oc = subagent_outcome(path)
    except OSError:
        return False
    return oc is not None and oc.final is not None


def _idle(path: Path, seconds: float) -> bool:
    """Whether ``path`` has not been written for ``seconds`` (False when it cannot be read)."""
    try:
        return time.time() - os.stat(path).st_mtime >= seconds
    except OSError:
        return False


def catch_up(store: Store, *, skip: Iterable[Path] = (), cfg: CaptureConfig | None = None,
             deadline: float | None = None, budget_bytes: int = MAX_SYNC_BYTES, idle_s: float = 120.0,
             command: str = "hook catch-up", retractions: list | None = None) -> list[SyncResult]:
    """Capture what earlier sessions wrote after their last sync (their end
    was never seen: no SessionEnd on ``/exit`` or a kill), and transcripts
    that appeared in the folders of known ones (``/clear``, a resume into a
    new file, 2.0-layout subagent files, a hook that never fired): files
    written since a day before mem first saw the folder.

    A file idle for ``idle_s`` seconds is read to its end (``final``); a
    file still being written keeps its trailing message for later.  A
    subagent file idle for ``rollup.IDLE_S`` that was never read to its end
    is synced again though unchanged, so a subagent killed with its session
    still gets its "did not complete" summary.  Stops
    at ``deadline`` or after ``budget_bytes``.  ``retractions``: as
    :func:`sync_files`'.  Returns the syncs done.
    """
    skip_keys = {os.path.realpath(p) for p in skip}
    now = time.time()
    todo: list[tuple[Path, bool]] = []
    dirs: dict[str, int] = {}
    known: set[str] = set()
    hidden: dict[str, Cursor] = {}   # a cursor naming its file by hash: found by listing its folder below
    for cur in iter_cursors(store):
        if cur.hidden:
            hidden[cur.path] = cur
            continue
        known.add(cur.path)
        if not is_subagent(Path(cur.path)):
            d = os.path.dirname(cur.path)
            dirs[d] = min(dirs.get(d, cur.created), cur.created)
        if cur.path in skip_keys:
            continue
        try:
            st = os.stat(cur.path)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (cur.dev, cur.ino) and st.st_size == cur.offset \
                and (cur.ended or not is_subagent(Path(cur.path)) or now - st.st_mtime < ROLLUP_IDLE_S):
            continue  # unchanged (a subagent file that went idle unended: rolled up now)
        todo.append((Path(cur.path), now - st.st_mtime >= idle_s))
    for d, since in dirs.items():
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in sorted(names):
            p = os.path.join(d, n)
            if not n.endswith(".jsonl") or p in known or p in skip_keys:
                continue
            try:
                st = os.stat(p)
            except OSError:
                continue
            cur = hidden.get(hidden_source(p)) if hidden else None
            if cur is not None:   # a hidden cursor's file: read again only when it changed, as above
                if (st.st_dev, st.st_ino, st.st_size) != (cur.dev, cur.ino, cur.offset):
                    todo.append((Path(p), now - st.st_mtime >= idle_s))
                continue
            if st.st_mtime * 1000 >= since - NEW_FILE_LOOKBACK_MS:
                todo.append((Path(p), now - st.st_mtime >= idle_s))
                for sub in subagent_files(Path(p)):
                    if str(sub) not in known:
                        todo.append((sub, now - st.st_mtime >= idle_s))
    out: list[SyncResult] = []
    spent = 0
    for final in (True, False):
        batch = [p for p, idle in todo if idle == final]
        for i in range(0, len(batch), 32):
            if spent >= budget_bytes or (deadline is not None and time.monotonic() > deadline):
                return out
            rs = sync_files(store, batch[i:i + 32], final=final, cfg=cfg, command=command,
                            max_bytes=max(1 << 20, budget_bytes - spent), deadline=deadline,
                            retractions=retractions)
            out.extend(rs)
            spent += sum(r.offset - r.start for r in rs)
    return out
