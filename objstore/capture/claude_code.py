"""Parse Claude Code transcript JSONL files into conversation turns.

Pure parsing: no store, no CLI, never prints, stdlib only.  Format reference:
``docs/agent-formats.md`` section 2 (2.1 files on disk, 2.2 record types, 2.3 the
three subagent layouts, 2.4 compaction).

Files are read in binary, one line at a time (memory is bounded by the longest
accepted line, ``MAX_LINE_BYTES``).  Bad lines are counted in :class:`ParseStats`
and skipped; bad content never raises.
"""
from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

# the prompt records' scan, text and hash: the prompt hook's, split off (scan_prompts: re-exported)
from objstore.capture.transcriptfile import RECORD_TYPES, is_record  # noqa: F401 (moved, hk42)
from objstore.capture.promptscan import is_turn_record, prompt_hash, scan_prompts, user_parts  # noqa: F401
from objstore.capture.transcript import (ABSENT, MAX_LINE_BYTES, READ_BUFFER, TOOL_RESULT_MAX_CHARS, ParseStats,
                                         RecordFields, as_str, decode_line, decode_record, discover_files,
                                         project_of, read_lines, strip_mem_context, timestamp_ms, tool_input_json,
                                         tool_use_line)
from objstore.capture.withhold import (TAINT_FILE, TAINT_SHELL, PrintedTrail, may_print_secret, note_fetch,
                                       redact_printed, withholds)
from objstore.core.ids import sha256   # not hashlib: OpenSSL's load costs the prompt hook 2.5-4 ms
from objstore.core.record import Record, set_fields
from objstore.memory.sessions import CapturedTurn

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CapturedTurn", "ParseStats", "ReaderState", "TOOL_RESULT_MAX_CHARS", "MAX_LINE_BYTES",
           "discover", "parse_file", "prompt_alias", "prompt_hash", "scan_prompts", "tree_key"]


class ReaderState(Record):
    """What :func:`parse_file` carries from one read of a file to the next, for incremental
    reads from a byte offset (``objstore.capture.sync`` saves it beside its cursor).

    Attributes:
        msg_first: message id -> uuid of the first record of its first run (names later
            runs: a verbatim replay of the first run gets the same source again).
        prompts: prompt hash (:func:`prompt_alias`) -> prompts with that text seen so far.
        prompt_ids: record uuid -> the alias it got (a replayed record gets the same one).
        last_prompt: the hash of the last user prompt read if no assistant record came
            after it (an unanswered prompt), else "".
        prev_prompt: the hash of the last user prompt read, answered or not (what a prompt
            hook compares its prompt with: ``objstore.capture.snapshot.prompt_snapshot``).
        hold_tail: in; when True, a run of assistant records at the end of the range is
            kept back (its message may still be growing) and read again next time, with
            the prompts after it (typed while it streams: they follow it, as a whole read
            gives them).  A last line without its newline is never read when a state is given.
        resume_at: out; byte offset where the next read should start.
        answer_done: :func:`answer_hash` of the agent's last message as a Stop hook gave
            it (``last_assistant_message``), or "": a trailing assistant run whose text
            has this hash is whole, so ``hold_tail`` does not keep it back (then cleared).
        secret_calls: the ``tool_use`` ids of the calls that print secret material
            (:func:`~objstore.capture.withhold.prints_secret`: ``mem sealed show`` ...) or read
            what one left (:func:`~objstore.capture.withhold.withholds`: a file it wrote, its
            background shell), in the order read: their ``tool_result`` is stored as
            ``SECRET_OUTPUT``, also when it comes in a later read than the call (a hook's next
            sync); with those files (``f:PATH``) and background shells (``s:ID``).
    """
    __slots__ = ("msg_first", "prompts", "prompt_ids", "last_prompt", "prev_prompt", "hold_tail", "resume_at",
                 "answer_done", "secret_calls")

    def __init__(self, msg_first: dict | None = None, prompts: dict | None = None, prompt_ids: dict | None = None,
                 last_prompt: str = "", prev_prompt: str = "", hold_tail: bool = False, resume_at: int = 0,
                 answer_done: str = "", secret_calls: list | None = None) -> None:
        set_fields(self, {} if msg_first is None else msg_first, {} if prompts is None else prompts,
                   {} if prompt_ids is None else prompt_ids, last_prompt, prev_prompt, hold_tail, resume_at,
                   answer_done, [] if secret_calls is None else secret_calls)


def answer_hash(text: str) -> str:
    """32 hex of the SHA-256 of an assistant message's text with ``<mem-context>``
    removed and whitespace runs as one space, trimmed; "" for no text.  Compares the
    Stop hook's ``last_assistant_message`` with a trailing run of the transcript
    (:attr:`ReaderState.answer_done`)."""
    norm = " ".join(strip_mem_context(text or "").split())
    return sha256(norm.encode("utf-8", "surrogatepass")).hexdigest()[:32] if norm else ""


def _run_is(group: "_Group", done: str) -> bool:
    """Whether the assistant run ``group`` is the message whose :func:`answer_hash` is ``done``
    (its text blocks, or its last block alone)."""
    if not done or not group.blocks:
        return False
    texts = [b for b in group.blocks if not b.startswith(("[thinking] ", "[tool_use "))]
    return done in (answer_hash("\n".join(texts)), answer_hash(group.blocks[-1]))


def prompt_alias(text: str, counts: dict) -> str:
    """The key of a user prompt that a hook and a transcript reader compute alike:
    ``cc:p:<hash>:<n>``, ``hash`` = :func:`prompt_hash`, ``n`` = 1 + how many prompts of
    this text ``counts`` has seen in the session (so "yes" typed twice gives two keys).
    Increments ``counts[hash]``.  The text alone is hashed, so a session that copies
    another's history (resume, fork) yields the same keys for the copied prompts."""
    h = prompt_hash(text)
    n = counts.get(h, 0) + 1
    counts[h] = n
    return f"cc:p:{h}:{n}"


# --------------------------------------------------------------------------- discovery

def _is_transcript_name(name: str) -> bool:
    return name.endswith(".jsonl") and name != "journal.jsonl"


def discover(paths: Iterable[str | os.PathLike], reals: dict[Path, str] | None = None) -> Iterator[Path]:
    """Yield every Claude Code transcript ``.jsonl`` under ``paths`` (agent-formats §2.1, §2.3).

    Each path may be a ``~/.claude/projects`` tree, one project dir, or a single file
    (an explicitly named file is yielded as given).  Directory walks yield main
    transcripts and subagent files of every layout (``agent-*.jsonl`` next to sessions,
    ``<session>/subagents/**/agent-*.jsonl``), skipping ``journal.jsonl`` and anything not
    ending in ``.jsonl`` (so ``*.meta.json``).  Order: per input path, by POSIX path string
    (a main file sorts before its ``<session>/`` subagent dir); duplicates are dropped.
    Symlinked directories are not followed.

    ``reals``: filled with each file yielded -> its real path.

    Raises FileNotFoundError (eagerly, before iteration) if any path does not exist.
    """
    return discover_files(paths, _is_transcript_name, reals)


# --------------------------------------------------------------------------- helpers


def _assistant_blocks(content: Any, secret_calls: list | None = None, cwd: str = "") -> list[str]:
    """The turn text blocks of an assistant record's ``message.content``; the id of each
    ``tool_use`` whose result :func:`~objstore.capture.withhold.withholds` (``secret_calls``: its trail;
    ``cwd``: the record's working folder) is appended to ``secret_calls`` (once); that of one fetching a
    secret (``printenv DB_PASSWORD``: :func:`~objstore.capture.withhold.note_fetch`), as ``x:ID``."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    out = []
    for b in content:
        if not isinstance(b, dict):
            continue
        kind = b.get("type")
        if kind == "text":
            out.append(as_str(b.get("text")))
        elif kind == "thinking":
            t = as_str(b.get("thinking"))
            if t.strip():
                out.append("[thinking] " + t)
        elif kind in ("tool_use", "server_tool_use"):
            inp = tool_input_json(b.get("input"))
            out.append(tool_use_line(b.get("name"), inp))
            if secret_calls is not None and withholds(inp, secret_calls, cwd):
                i = as_str(b.get("id"))
                if i and i not in secret_calls:
                    secret_calls.append(i)
            elif secret_calls is not None and b.get("id"):
                note_fetch(inp, as_str(b.get("id")), secret_calls)
    return [t for t in out if t.strip()]


def _tree_files(path: Path, is_sub: bool, session: str) -> tuple[Path, ...]:
    """The transcripts of the session tree ``path`` is one of (``session``: its main session's id):
    the main transcript ``<dir>/<session>.jsonl`` and every sub-agent file of the session: under
    ``<dir>/<session>/subagents/`` at any depth (layout >= 2.1.2, workflows' nested fan-out), and
    ``<dir>/agent-*.jsonl`` whose first record names the session (2.0.x).  Sorted; only those
    that exist; () when ``session`` is not known."""
    if not session:
        return ()
    parts = path.parts
    top = next((Path(*parts[:i - 1]) for i in range(len(parts) - 2, 0, -1) if parts[i] == "subagents"),
               None) if is_sub else None
    folder = top if top is not None else path.parent
    out = [folder / f"{session}.jsonl"]
    for d, _dirs, names in os.walk(folder / session / "subagents"):
        out.extend(Path(d) / n for n in names if n.startswith("agent-") and n.endswith(".jsonl"))
    out.extend(_flat_agents(str(folder)).get(session, ()))
    return tuple(sorted({f for f in out if f == path or f.is_file()}))


@functools.lru_cache(maxsize=64)
def _flat_agents_at(folder: str, mtime_ns: int) -> dict[str, tuple[Path, ...]]:
    """Session id -> the 2.0.x sub-agent files ``agent-*.jsonl`` of ``folder`` (by their first
    record's ``sessionId``), for ``folder`` as it was at ``mtime_ns``."""
    out: dict[str, list[Path]] = {}
    try:
        names = [n for n in os.listdir(folder) if n.startswith("agent-") and n.endswith(".jsonl")]
    except OSError:
        return {}
    for n in names:
        try:
            with open(os.path.join(folder, n), "rb") as f:
                rec = decode_record(f.readline(MAX_LINE_BYTES))
        except OSError:
            continue
        sid = as_str(rec.get("sessionId")) if isinstance(rec, dict) else ""
        if sid:
            out.setdefault(sid, []).append(Path(folder, n))
    return {k: tuple(v) for k, v in out.items()}


def _flat_agents(folder: str) -> dict[str, tuple[Path, ...]]:
    """:func:`_flat_agents_at` of ``folder`` as it is now ({} when it cannot be read)."""
    try:
        return _flat_agents_at(folder, os.stat(folder).st_mtime_ns)
    except OSError:
        return {}


#: (path, size, mtime_ns) of a transcript -> whether its calls may print secret material: its own
#: whole read found a withheld call (``parse_file``), else ``withhold.may_print_secret`` of its bytes
_HOT: dict[tuple[str, int, int], bool] = {}


def _hot(key: tuple[str, int, int]) -> bool:
    """``_HOT[key]``, found by reading the file when not known yet (False when it cannot be read)."""
    hot = _HOT.get(key)
    if hot is None:
        try:
            hot = may_print_secret(Path(key[0]).read_bytes())
        except OSError:
            hot = False
        if len(_HOT) >= 4096:
            _HOT.clear()
        _HOT[key] = hot
    return hot


def _tree_trail(path: Path, is_sub: bool, session: str) -> tuple[tuple[int, str], ...]:
    """The withheld trail of the session tree ``path`` is one of (trl23, test22b Y2): the files
    and background shells (``withhold.TAINT_FILE`` / ``TAINT_SHELL`` entries) the calls of its
    main session and all its sub-agents leave, each with the time (ms) of the record that left
    it, in time order (:func:`_merged_trail`).  A record of any of them reads the entries up to
    its own time: a parent reads a file its sub-agent wrote, a sub-agent one its parent or a
    sibling wrote before (also while it runs in the background).  () when no other file of the
    tree may print secret material (the cheap test, once per file: :func:`_hot`): then the
    file's own reading is its whole trail."""
    files = _tree_files(path, is_sub, session)
    keys = []
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        keys.append((str(f), st.st_size, st.st_mtime_ns))
    if not any(k[0] != str(path) and _hot(k) for k in keys):
        return ()
    return _merged_trail(tuple(keys))


def tree_may_print_secret(path: Path, session: str = "") -> bool:
    """Whether any transcript of the session tree of ``path`` (its own file
    included) may print secret material: the cheap test of :func:`_hot`
    (``withhold.may_print_secret`` of each file's bytes, once per file and
    state per process).  ``session``: the main session's id when the path
    does not name it (layout 2.0.x); when neither does, True (the caller
    reads the file).  False is never wrong where :func:`parse_file` would
    withhold nothing: its trail comes only from files this test passes."""
    is_sub, parent = file_context(path)
    session = (parent if is_sub else path.stem) or session
    if not session:
        return True
    for f in _tree_files(path, is_sub, session) or (path,):
        try:
            st = f.stat()
        except OSError:
            continue
        if _hot((str(f), st.st_size, st.st_mtime_ns)):
            return True
    return False


def _note_taints(timed: list, trail: list, ts: int) -> None:
    """Add to ``timed`` ``(ts, entry)`` for each file or shell of ``trail`` not in it yet."""
    have = {t for _ts, t in timed}
    timed.extend((ts, t) for t in trail if t not in have and t.startswith((TAINT_FILE, TAINT_SHELL)))


@functools.lru_cache(maxsize=16)
def _merged_trail(keys: tuple[tuple[str, int, int], ...]) -> tuple[tuple[int, str], ...]:
    """The trail of the transcripts ``keys`` ((path, size, mtime_ns) each: the cache's key) read
    as one session in time order: their turn records sorted by timestamp (a record without one
    first; ties in file order, the main file first), each call checked by ``withhold.withholds``
    against one trail (``_assistant_blocks``, ``user_parts``: what :func:`parse_file` runs on
    each).  Out: ``(ms, entry)`` of each file and shell as it joined the trail.  A file that
    cannot be read adds nothing."""
    import io
    recs = []
    stats = ParseStats()
    for n, (where, _size, _mtime) in enumerate(keys):
        try:
            data = Path(where).read_bytes()
        except OSError:
            continue
        order = n + 1 if Path(where).name.startswith("agent-") else 0
        for i, raw in enumerate(read_lines(io.BytesIO(data))):
            rec = decode_line(raw, stats, i == 0, _TURN_FIELDS)
            if rec is None:
                continue
            kind, _sid, _agent, _side, _uid, cwd, _ep, ts, msg, meta, compact, api_error = rec
            if kind in ("user", "assistant") and meta is not True and compact is not True and api_error is not True:
                content = msg.get("content") if isinstance(msg, dict) else None
                recs.append((timestamp_ms(ts), order, i, kind, content, as_str(cwd)))
    recs.sort(key=lambda r: r[:3])
    trail: list = []
    out: list[tuple[int, str]] = []
    for ts, _n, _i, kind, content, cwd in recs:
        k = len(trail)
        if kind == "assistant":
            _assistant_blocks(content, trail, cwd)
        else:
            user_parts(content, trail)
        if len(trail) != k:
            _note_taints(out, trail, ts)
    return tuple(out)


# --------------------------------------------------------------------------- parsing

class _Group(Record):
    """Pending assistant turn: consecutive records sharing (session, message.id);
    ``start`` is the byte offset of its first line."""

    __slots__ = ("session", "msg_id", "source", "blocks", "timestamp", "cwd", "start", "entrypoint")

    def __init__(self, session: str, msg_id: str, source: str, blocks: list, timestamp: int, cwd: str, start: int = 0,
                 entrypoint: str = "") -> None:
        set_fields(self, session, msg_id, source, blocks, timestamp, cwd, start, entrypoint)


def file_context(path: Path) -> tuple[bool, str]:
    """(is_subagent_file, parent session from directory name or "").

    Layout >=2.1.2: nearest ancestor dir named "subagents"; its parent dir is the session."""
    if not path.name.startswith("agent-"):
        return False, ""
    parts = path.parts[:-1]
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] == "subagents":
            return True, parts[i - 1]
    return True, ""   # layout 2.0.x: agent-<id>.jsonl next to sessions


def tree_key(path: str | os.PathLike) -> str:
    """The session tree a transcript belongs to, as far as its path says
    (the file system is not read): ``<dir>/<session>`` for a main
    transcript ``<dir>/<session>.jsonl`` and for a sub-agent file under
    ``<dir>/<session>/subagents/`` (any depth); the path itself for any
    other file (a 2.0.x ``agent-*.jsonl`` beside the sessions names its
    session only in its first record).  The files of one tree read each
    other (:func:`_tree_trail`), so ``parseworker.ParseWorkers`` gives them
    to one child; only that uses it, and a wrong guess costs time, never
    changes what is imported."""
    p = os.fspath(path)
    name = os.path.basename(p)
    if not name.startswith("agent-"):
        return p[:-6] if name.endswith(".jsonl") else p
    parts = Path(p).parts[:-1]
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] == "subagents":
            return os.path.join(*parts[:i])
    return p


# RECORD_TYPES, is_record: in objstore.capture.transcriptfile (the hook's check reads them without this module)


#: the keys :func:`parse_file` reads from a record, in the order it unpacks them (``msgspec``
#: skips the others, ``toolUseResult`` above all: :class:`~objstore.capture.transcript.RecordFields`)
_TURN_FIELDS = RecordFields("type", "sessionId", "agentId", "isSidechain", "uuid", "cwd", "entrypoint", "timestamp",
                            "message", "isMeta", "isCompactSummary", "isApiErrorMessage")


def _printed_before(path: Path, end: int, data: bytes | None) -> list[str]:
    """The raw bodies of the results withheld in the first ``end`` bytes of
    sub-agent file ``path`` (:func:`parse_file`'s ``data`` if given), read
    as :func:`parse_file` reads them: for an incremental read whose earlier
    reads withheld some (:func:`parse_file`, mend24).  OSError propagates."""
    trail = PrintedTrail()
    for _turn in parse_file(path, ParseStats(), end=end, data=data, state=ReaderState(secret_calls=trail)):
        pass
    return trail.printed


def parse_file(path: Path, stats: ParseStats, *, start: int = 0, end: int | None = None,
               state: ReaderState | None = None, data: bytes | None = None) -> Iterator[CapturedTurn]:
    """Stream :class:`CapturedTurn` s from one Claude Code transcript (agent-formats §2.2-2.4).

    Sessions: main file -> record ``sessionId`` (fallback: file stem); subagent files of
    layouts 2.0.x and >=2.1.2 -> ``"<parent>.agent-<agentId>"`` (parent from ``sessionId``,
    else the ``<session>/subagents`` directory); inline sidechains (<=1.0.x) ->
    ``"<sessionId>.sidechain"`` or ``"<sessionId>.agent-<agentId>"``.
    Sources: user ``cc:<uuid>``; tool results ``cc:<uuid>:tool:<i>`` (i = index among the
    record's tool_result blocks); assistant ``cc:msg:<message.id>`` per run of consecutive
    records (a non-ignored ``user`` record or another message id/session breaks a run;
    attachment/progress/system lines in between do not), a repeated
    non-consecutive id gets ``cc:msg:<id>:<first uuid>`` (unless the run starts with the
    same record as the id's first run: a replayed history keeps ``cc:msg:<id>``).  Records
    without uuid use ``h:<sha256 of the raw line>`` in place of the uuid.  A user prompt
    also carries ``alias`` (:func:`prompt_alias`).

    Incremental reads: ``start``/``end`` bound the bytes read (``start`` must be a line
    start); ``state`` carries message and prompt bookkeeping between reads, keeps back an
    incomplete last line and, with ``state.hold_tail``, a trailing assistant run (see
    :class:`ReaderState`); ``state.resume_at`` tells where to start next.

    Skipped and counted in ``stats``: bad lines (invalid UTF-8, NUL, not a JSON object,
    lone surrogates, > MAX_LINE_BYTES) and records carrying no turn (attachments, isMeta,
    compact summaries, API errors, system/summary/progress/... and unknown types).
    ``<mem-context>`` blocks are removed from every text.  Never raises on bad content;
    OSError from opening/reading the file propagates.  ``data``: the file's bytes, read
    from memory instead of ``path`` (which still names the file: its session and layout;
    ``mem forget --scrub-sources`` parses a transcript as it will be once scrubbed).

    A sub-agent file's assistant turn that repeats a value one of its withheld results
    printed (its final message: "The pin is 4471-9902") is stored with that value
    ``SECRET_OUTPUT`` (``withhold.redact_printed``, as its roll-up summary; mend24): its
    trail is a :class:`~objstore.capture.withhold.PrintedTrail` (the bodies in memory
    only), and a read from ``start`` whose trail already holds ids reads the bytes before
    ``start`` again for them (only then).
    """
    path = Path(path)
    stats.files += 1
    is_sub, dir_parent = file_context(path)
    file_agent = path.stem[len("agent-"):] if is_sub else ""
    rs = state if state is not None else ReaderState()
    if is_sub and not isinstance(rs.secret_calls, PrintedTrail):
        rs.secret_calls = PrintedTrail(rs.secret_calls)
        if start and rs.secret_calls:   # an earlier read withheld: what it printed, read again
            rs.secret_calls.printed = _printed_before(path, start, data)
    printed = rs.secret_calls.printed if is_sub else None
    tree: tuple | None = None            # the session tree's trail (_tree_trail), read at the first record
    at = 0                               # how much of it the trail holds
    msg_first: dict = rs.msg_first
    hold = rs.hold_tail
    group: _Group | None = None
    # prompts read while an assistant message is open (typed while the answer streams):
    # if the message goes on after them it stays one turn, and they follow it
    after: list[CapturedTurn] = []

    def flush() -> Iterator[CapturedTurn]:
        nonlocal group
        g, group = group, None
        if g is not None:
            text = strip_mem_context("\n".join(g.blocks))
            if printed:
                text = redact_printed(text, printed)
            if text.strip():
                yield CapturedTurn(g.session, g.source, "assistant", text,
                                   g.timestamp, g.cwd, project_of(g.cwd), entrypoint=g.entrypoint)
        yield from after
        after.clear()

    import io
    with (io.BytesIO(data) if data is not None else open(path, "rb", buffering=READ_BUFFER)) as f:
        if start:
            f.seek(start)
        pos = start
        first = start == 0
        for raw in read_lines(f, None if end is None else max(0, end - start)):
            line_at = pos
            pos = f.tell() if raw is None else pos + len(raw)  # tell() is a system call (lseek) a line
            if state is not None and raw is not None and not raw.endswith(b"\n"):
                pos = line_at          # incomplete last line: read it again next time
                break
            rec = decode_line(raw, stats, first, _TURN_FIELDS)
            first = first and raw is None
            if rec is None:
                continue
            # the record's values of _TURN_FIELDS' keys (ABSENT: no such key), as rec.get(key) read them
            kind, sid, agent, sidechain, uid, cwd, ep, ts, msg, meta, compact, api_error = rec
            if kind not in ("user", "assistant") or meta is True or compact is True or api_error is True:
                # not is_turn_record; is_record's test of the same values
                stats.records_ignored += 1
                stats.records_foreign += not (isinstance(kind, str) and (
                    kind in RECORD_TYPES or sid is not ABSENT or uid is not ABSENT))
                continue

            sid = as_str(sid)
            agent = as_str(agent)
            if is_sub:
                parent = sid or dir_parent
                agent = agent or file_agent
                session = f"{parent}.agent-{agent}" if parent else f"agent-{agent}"
            else:
                session = sid or path.stem
                if sidechain is True:
                    session += f".agent-{agent}" if agent else ".sidechain"
            uid = as_str(uid) or "h:" + sha256(raw.strip()).hexdigest()[:32]  # as promptscan's record ids
            cwd = as_str(cwd)
            ep = as_str(ep)[:40]
            ts = timestamp_ms(ts)
            content = msg.get("content") if isinstance(msg, dict) else None
            if tree is None:
                tree = _tree_trail(path, is_sub, parent if is_sub else sid or path.stem)
            while at < len(tree) and (not ts or tree[at][0] <= ts):   # the tree's entries up to this record
                if tree[at][1] not in rs.secret_calls:
                    rs.secret_calls.append(tree[at][1])
                at += 1

            if kind == "assistant":
                msg_id = as_str(msg.get("id")) if isinstance(msg, dict) else ""
                blocks = _assistant_blocks(content, rs.secret_calls, cwd)
                if group is not None and not (msg_id and group.msg_id == msg_id
                                              and group.session == session):
                    yield from flush()
                if not blocks:
                    stats.records_ignored += 1
                    continue
                if group is not None:   # the open message goes on (after any prompts read meanwhile)
                    group.blocks.extend(blocks)
                    continue
                rs.last_prompt = ""
                if not msg_id:
                    source = f"cc:{uid}"
                elif msg_id in msg_first and msg_first[msg_id] != uid:
                    source = f"cc:msg:{msg_id}:{uid}"
                else:
                    source = f"cc:msg:{msg_id}"
                    msg_first[msg_id] = uid
                group = _Group(session, msg_id, source, blocks, ts, cwd, line_at, ep)
                continue

            # user record: a prompt is held while an assistant message is open (see ``after``)
            turns: list[CapturedTurn] = []
            fetched: list[str] = []   # the fetched secrets withheld: the session's later turns withhold them
            text, results = user_parts(content, rs.secret_calls, fetched)
            project = project_of(cwd)
            if text.strip():
                alias = rs.prompt_ids.get(uid)
                if alias is None:
                    alias = rs.prompt_ids[uid] = prompt_alias(text, rs.prompts)
                rs.last_prompt = rs.prev_prompt = alias.split(":")[2]
                turns.append(CapturedTurn(session, f"cc:{uid}", "user", text, ts, cwd, project, alias, ep,
                                          withheld=tuple(fetched)))
            for i, body in enumerate(results):
                if body.strip():
                    turns.append(CapturedTurn(session, f"cc:{uid}:tool:{i}", "tool", body,
                                              ts, cwd, project, entrypoint=ep, withheld=tuple(fetched)))
            if not turns:
                stats.records_ignored += 1
            if group is not None and not results:
                after.extend(turns)     # a prompt typed while the answer streams: after the answer
            else:
                yield from flush()      # a tool result ends the assistant run, as before
                yield from turns
        if hold and group is not None and _run_is(group, rs.answer_done):
            rs.answer_done = ""        # the Stop hook's last message: whole, read it now
        elif hold and group is not None:
            # its message may still be growing: read it and the prompts after it (typed while it
            # streams) again next time, so they come after it as ``mem import`` orders them
            pos = group.start
            group = None
            after.clear()
        if not start and end is None and data is None and pos:
            st = os.fstat(f.fileno())
            if st.st_size == pos:        # read whole: whether its calls may print secret material is known
                if len(_HOT) >= 4096:
                    _HOT.clear()
                _HOT[(str(path), st.st_size, st.st_mtime_ns)] = bool(rs.secret_calls)
        rs.resume_at = pos
        yield from flush()
