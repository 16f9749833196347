"""What every transcript reader (``claude_code``, ``codex``) shares: the
parse counters, bounded line reading, record decoding, and the small value
helpers (timestamps, project names, cutting long tool output, removing mem's
own injected context: ``strip_mem_context``, :mod:`objstore.core.text`'s, for
the readers, and the harness's, ``strip_harness_context``).  Formats: ``docs/agent-formats.md``.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

from objstore.core.record import Record, set_fields
from objstore.core.rxcache import compile_pattern
from objstore.core.text import SUSPECT_ESCAPE_RE, clean_decoded, strip_mem_context

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from typing import Any


TOOL_RESULT_MAX_CHARS = 4000        # tool results and tool_use input JSON are cut to this
MAX_LINE_BYTES = 64 * 1024 * 1024   # longer lines are skipped (and counted) without being held
#: the readers' file buffer: a record is often longer than the default 8 KiB, which makes
#: ``readline`` assemble it from several reads (a third of the line reading's CPU)
READ_BUFFER = 256 * 1024
_CHUNK = 1 << 20

# JSON escapes that may decode to a lone surrogate or NUL; only then walk the value.
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MS = timedelta(milliseconds=1)


class ParseStats(Record):
    """Counters accumulated over ``parse_file`` calls.  Every line read is either skipped
    (bad), ignored (valid record carrying no turn), or contributes to a turn.
    ``files``: parse_file calls; ``lines``: lines read, blank ones included;
    ``lines_skipped``: bad lines (see parse_file); ``records_ignored``: valid
    JSON objects that gave no turn; ``records_foreign``: of those, the objects
    that are no record the harness writes (``{"x": 1}``: no record type of
    agent-formats §2.2 / §3.1), so a file of only such lines (and bad ones) is
    no transcript."""

    __slots__ = ("files", "lines", "lines_skipped", "records_ignored", "records_foreign")

    def __init__(self, files: int = 0, lines: int = 0, lines_skipped: int = 0, records_ignored: int = 0,
                 records_foreign: int = 0) -> None:
        set_fields(self, files, lines, lines_skipped, records_ignored, records_foreign)


def as_str(v: Any) -> str:
    """The value if it is a str, else "" (wrong types count as absent)."""
    return v if isinstance(v, str) else ""


def cut_text(text: str) -> str:
    """``text`` when it has at most :data:`TOOL_RESULT_MAX_CHARS` characters;
    else its head, cut before any credential that crosses the cut and at a
    word's end (``redact.redact_cut``: no prefix of a credential survives,
    T19), then ``…[cut N chars]`` (N: characters left out).  Not redacted
    here: the turn writer redacts (and counts) what the head holds."""
    if len(text) <= TOOL_RESULT_MAX_CHARS:
        return text
    from objstore.core.redact import redact_cut  # deferred: the redaction rules compile at import
    head, over = redact_cut(text, TOOL_RESULT_MAX_CHARS)
    return f"{head}…[cut {over} chars]" if over else head


def tool_input_json(tool_input: Any) -> str:
    """A tool call's input as the capture reads it: sorted JSON, non-ASCII
    kept; "" for an input that is no JSON value."""
    try:
        return json.dumps(tool_input, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return ""


def tool_use_line(name: Any, inp: str) -> str:
    """The line a ``tool_use`` (or ``server_tool_use``) block of an assistant
    message is captured as, on every capture path (the Claude Code reader,
    ``mem proxy``): ``[tool_use NAME] {input}``, ``inp`` the input's
    :func:`tool_input_json`, cut as a tool result is (:func:`cut_text`).
    ``provenance.reads_outside`` reads these lines: a call fetching outside
    content starts the session's taint."""
    return f"[tool_use {as_str(name)}] {cut_text(inp)}"


#: a ``<system-reminder>`` element Claude Code puts in a user message: CLAUDE.md's text, file and todo
#: notes, never the person's words (to its end, or the text's end when it is cut short)
_REMINDER_RE = compile_pattern(r"<system-reminder>.*?(?:</system-reminder>|\Z)", 16)   # re.S


def strip_harness_context(text: str) -> str:
    """A user message's text without what the harness put there:
    ``<system-reminder>`` elements (Claude Code's context: CLAUDE.md, which
    anyone who can commit to the repository writes, file and todo notes;
    test27 V28: stored as the person's turn, it marked the person's facts
    "MAY BE OUT OF DATE") and our own ``<mem-context>`` blocks; trimmed.
    The one rule of the importer's prompts and the proxy's user turns."""
    if "<system-reminder>" in text:
        text = _REMINDER_RE.sub("", text).strip()
    return strip_mem_context(text)


def timestamp_ms(v: Any) -> int:
    if not isinstance(v, str) or not v:
        return 0
    try:
        dt = datetime.fromisoformat(v.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return 0
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    try:
        ms = (dt - _EPOCH) // _MS
        return ms if ms > 0 else 0
    except OverflowError:
        return 0



#: a path's separators (``/``, ``\\``)
_PATH_PARTS = compile_pattern(r"[\\/]")


@functools.lru_cache(maxsize=1024)
def project_of(cwd: str) -> str:
    """The project a cwd names when the file system cannot say more (the
    capture path resolves it fully, ``objstore.memory.scope``): its last
    component; a Claude Code worktree ``<repo>/.claude/worktrees/<name>``
    belongs to ``<repo>``."""
    parts = [p for p in _PATH_PARTS.split(cwd) if p]
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == "worktrees" and parts[i - 1] == ".claude":
            return parts[i - 2] if i >= 2 else ""
    return parts[-1] if parts else ""


#: ``msgspec.json.Decoder().decode`` once :func:`enable_fast_json` found msgspec, else None
_fast_decode: Callable[[bytes], Any] | None = None
_fast_errors: tuple[type[BaseException], ...] = ()


def enable_fast_json(enabled: bool = True) -> bool:
    """Decode records with ``msgspec`` (the ``memvcs[fast]`` extra) in this
    process from now on, when it is installed (``enabled=False``: with the
    standard library again); returns whether msgspec is used.

    For bulk readers (``mem import`` and its parse worker): on the bench
    corpus's 143 MB of lines it decodes in 40-50% of the standard library's
    CPU.  The records are the same (:func:`decode_record`).  The hooks do
    not call it: importing msgspec costs more than their few lines save."""
    global _fast_decode, _fast_errors
    if not enabled:
        _fast_decode = None
        return False
    if _fast_decode is None:
        try:
            import msgspec.json
        except ImportError:
            return False
        _fast_decode = msgspec.json.Decoder().decode
        _fast_errors = (msgspec.MsgspecError, RecursionError, ValueError)
    return True


def _parse_int(digits: str) -> int | float:
    """A JSON integer's value: exact up to ``sys.get_int_max_str_digits()``
    digits (4,300), beyond that the float it rounds to (``inf``/``-inf``, as
    ``json.loads`` reads ``1e400``): an exact conversion of a longer one takes
    time quadratic in its digits (a 64 MiB line of them: hours)."""
    try:
        return int(digits)
    except ValueError:
        return float(digits)


def decode_record(raw: bytes) -> dict | None:
    """One raw line -> record dict, or None if the line is not a JSON object.

    An invalid UTF-8 byte, a raw NUL, a lone surrogate escape (``\\ud83d``)
    or a ``\\u0000`` escape costs only that character (replaced by U+FFFD),
    never the line: the hook path and the import read the same text.

    With :func:`enable_fast_json`, a line is first decoded by msgspec, which
    refuses every line the standard library would read differently (invalid
    UTF-8, raw control characters, lone surrogate escapes, ``NaN`` and
    numbers beyond a double's range; integers of any size stay exact ints);
    a refused line is decoded as without it.  An integer of more than
    4,300 digits (``sys.get_int_max_str_digits``, where ``json.loads``
    refuses the line) costs only its value: it reads as ``inf``/``-inf``
    (:func:`_parse_int`), so the line is read whichever decoder is on (q20:
    :class:`RecordFields`' struct decoder skips such a value unread).  Only
    a line nested about a thousand levels deep (Python's recursion limit,
    minus the caller's frames) may be read by one and refused by the other."""
    if _fast_decode is not None:
        try:
            rec = _fast_decode(raw)
        except _fast_errors:
            pass
        else:
            if not isinstance(rec, dict):
                return None
            if SUSPECT_ESCAPE_RE.search(raw):
                rec = clean_decoded(rec)
            return rec
    text = raw.decode("utf-8", "replace")
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        rec = json.loads(text)
    except RecursionError:
        return None
    except ValueError as e:   # JSONDecodeError is a ValueError
        if "integer string conversion" not in str(e):
            return None
        try:   # an integer of over 4,300 digits (sys.get_int_max_str_digits): read as msgspec's struct does
            rec = json.loads(text, parse_int=_parse_int)
        except (ValueError, RecursionError):
            return None
    if not isinstance(rec, dict):
        return None
    if SUSPECT_ESCAPE_RE.search(raw):
        rec = clean_decoded(rec)
    return rec


class _Absent:
    """The type of :data:`ABSENT`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


#: a key a record does not hold, in the tuples of :class:`RecordFields` (a key holding ``null`` is None)
ABSENT = _Absent()


class RecordFields:
    """The top-level keys ``keys`` a reader takes from its records, and
    their decoder: :meth:`decode` gives a record's values of them as a
    tuple in that order (:data:`ABSENT` where the record lacks the key),
    equal to :meth:`of` of what :func:`decode_record` gives, for the same
    lines (None for a line :func:`decode_record` refuses).

    With :func:`enable_fast_json`, a line is decoded by a ``msgspec``
    struct of those keys: msgspec skips the values of the other keys
    without building them (a Claude Code user record's ``toolUseResult``
    repeats its tool output: 44 of the bench corpus's 143 MB; the corpus's
    62,905 lines decode in ~0.55 s of CPU instead of ~0.85 s, session 17).
    The values are the same: a skipped value msgspec would refuse as a
    whole record (a NaN, a control character, a lone surrogate escape) is
    refused by the struct too; one it accepts where the dict decoder does
    not (invalid UTF-8, a number out of range in a skipped value) is a line
    the standard library reads, with the same values of these keys (it
    changes only the skipped value); a line that is no JSON object, or one
    holding an escape :func:`decode_record` cleans, is decoded by
    :func:`decode_record`.  An integer of more than 4,300 digits in a
    skipped value is skipped unread, and :func:`decode_record` reads its
    line too (as ``inf``), so the line counts the same with either decoder
    (q20; before, the standard library refused the whole line)."""

    __slots__ = ("keys", "_decode")

    def __init__(self, *keys: str) -> None:
        self.keys = keys
        self._decode: Callable[[bytes], Any] | None = None

    def of(self, rec: dict) -> tuple:
        """The values of :attr:`keys` in the decoded record ``rec`` (:data:`ABSENT` for a missing key)."""
        return tuple([rec.get(k, ABSENT) for k in self.keys])

    def decode(self, raw: bytes) -> tuple | None:
        """The values of :attr:`keys` in the record of the line ``raw``, or
        None when it is not a JSON object (as :func:`decode_record`)."""
        if _fast_decode is not None:
            dec = self._decode
            if dec is None:
                dec = self._decode = _struct_decoder(self.keys)
            try:
                rec = dec(raw)
            except _fast_errors:
                pass
            else:
                if not SUSPECT_ESCAPE_RE.search(raw):
                    return _astuple(rec)
        rec = decode_record(raw)
        return None if rec is None else self.of(rec)


_astuple: Callable[[Any], tuple] = tuple  # msgspec.structs.astuple once a struct decoder is built


def _struct_decoder(keys: tuple[str, ...]) -> Callable[[bytes], Any]:
    """``msgspec.json.Decoder(S).decode`` for a struct ``S`` of the fields
    ``keys``, each of any JSON value, :data:`ABSENT` when missing (only
    once :func:`enable_fast_json` found msgspec)."""
    global _astuple
    import msgspec
    from typing import Any  # noqa: F811 (deferred: a start-up path never builds a struct decoder)
    _astuple = msgspec.structs.astuple
    struct = msgspec.defstruct("Record", [(k, Any, ABSENT) for k in keys])
    return msgspec.json.Decoder(struct).decode


def decode_line(raw: bytes | None, stats: ParseStats, first: bool,
                fields: RecordFields | None = None) -> dict | tuple | None:
    """Count one line from :func:`read_lines` in ``stats`` and decode it
    (``first``: the file's first line, which may start with a UTF-8 BOM).
    Returns the record (with ``fields``: the tuple of its values of
    ``fields.keys``, :meth:`RecordFields.decode`), or None for a bad line
    (too long, not JSON, not an object, a lone surrogate or NUL; counted as
    skipped) or a blank one."""
    stats.lines += 1
    if raw is None:
        stats.lines_skipped += 1
        return None
    if first and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if not raw or raw.isspace():   # as raw.strip(), without copying the line
        rec = None
    else:
        rec = decode_record(raw) if fields is None else fields.decode(raw)
    if rec is None:
        stats.lines_skipped += 1
    return rec


def read_lines(f, budget: int | None = None) -> Iterator[bytes | None]:
    """Yield raw lines; None for a line longer than MAX_LINE_BYTES (drained, not held).
    ``budget``: read at most this many bytes (the last line may then lack its newline)."""
    limit = MAX_LINE_BYTES
    while True:
        if budget is not None and budget <= 0:
            return
        want = limit + 1 if budget is None else min(limit + 1, budget)
        line = f.readline(want)
        if not line:
            return
        if budget is not None:
            budget -= len(line)
        if len(line) > limit and not line.endswith(b"\n"):
            while budget is None or budget > 0:
                rest = f.readline(_CHUNK if budget is None else min(_CHUNK, budget))
                if budget is not None:
                    budget -= len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
        else:
            yield line


def discover_files(paths: Iterable[str | os.PathLike], is_transcript: Callable[[str], bool],
                   reals: dict[Path, str] | None = None) -> Iterator[Path]:
    """The transcript files under ``paths``: a directory is walked (symlinked
    directories are not followed) for the files whose name ``is_transcript``
    accepts, sorted by POSIX path string; a file is yielded as given,
    whatever its name.  Duplicates (same real path) are dropped.
    ``reals``: filled with each file yielded -> its real path
    (``os.path.realpath``), which the walk knows.

    Raises FileNotFoundError (eagerly, before iteration) if any path does not exist.
    """
    roots = [Path(p) for p in paths]
    for root in roots:
        if not root.exists():
            raise FileNotFoundError(2, "no such file or directory", str(root))   # ENOENT; the path as filename
    return _discover(roots, is_transcript, {} if reals is None else reals)


def count_files(paths: Iterable[str | os.PathLike], limit: int = 1000) -> int:
    """How many regular files the folders among ``paths`` hold, walked as
    :func:`discover_files` walks them (symlinked directories not followed),
    counting at most ``limit``: an import that found no transcript under a
    folder says whether the folder held other files (then nothing in it is
    a transcript) or none at all.  Files named directly are not counted.
    Never raises (an unreadable folder counts what could be listed)."""
    n = 0
    for root in map(Path, paths):
        if not root.is_dir():
            continue
        for d, _dirs, files in os.walk(root):
            n += sum(1 for f in files if os.path.isfile(os.path.join(d, f)))
            if n >= limit:
                return limit
    return n


def _discover(roots: list[Path], is_transcript: Callable[[str], bool], reals: dict[Path, str]) -> Iterator[Path]:
    seen: set[str] = set()
    for root in roots:
        if root.is_dir():
            found = [(Path(p), real) for p, real in _walk(os.fspath(root), is_transcript)]
            found.sort(key=lambda x: x[0].as_posix())
        else:
            found = [(root, os.path.realpath(root))]
        for p, key in found:
            if key not in seen:
                seen.add(key)
                reals[p] = key
                yield p


def _walk(root: str, is_transcript: Callable[[str], bool]) -> list[tuple[str, str]]:
    """``(path, real path)`` of the files under folder ``root`` whose name
    ``is_transcript`` accepts, as ``os.walk`` finds them (a folder that
    cannot be listed is skipped, one whose listing fails part-way keeps what
    it listed; a symlinked folder is not entered, a
    symlinked file is kept).  A file's real path is ``realpath(root)`` and
    the folders below it, none of them a link, unless the file is a link
    itself: one ``realpath`` of the root, not one of each file (~10 lstat
    calls each: ~6 ms for the 451 files of the bench corpus)."""
    out: list[tuple[str, str]] = []
    stack = [(root, os.path.realpath(root))]
    while stack:
        d, real_d = stack.pop()
        try:
            it = os.scandir(d)
        except OSError:
            continue
        with it:
            while True:
                try:
                    e = next(it)
                except StopIteration:
                    break
                except OSError:     # a listing that fails part-way (/proc/<pid>/net: test26b W10): the rest skipped
                    break
                try:
                    is_dir = e.is_dir()
                except OSError:
                    is_dir = False
                try:
                    link = e.is_symlink()
                except OSError:
                    link = False
                if is_dir:
                    if not link:
                        stack.append((e.path, os.path.join(real_d, e.name)))
                elif is_transcript(e.name):
                    out.append((e.path, os.path.realpath(e.path) if link else os.path.join(real_d, e.name)))
    return out


def transcript_refused(path: Path | str, real: str | None = None) -> bool:
    """Whether a transcript file is never read because its path holds a
    credential: its name (a session id is taken from it) or its folder
    (``…/sk-ant-…/x.jsonl``), as given or as resolved (a cursor keeps the
    real path), by the one name rule (:func:`objstore.core.redact.name_hits`,
    which ``check_key_credentials`` applies to a session id, and
    :func:`objstore.core.redact.path_holds_credential` to a folder).  A read
    ledger, a cursor and the turns' project would keep the path, none of
    which is redacted.  The one rule of ``mem import`` (which skips and
    counts such a file) and of every sync (``sync.sync_one``: a path a hook
    found by the session's id, a catch-up's neighbour, a sub-agent file), so
    a file import skips is never captured another way.  Cost: one
    ``realpath`` and cached checks; here, not in ``sync``, so the prompt
    hook checks a found path without importing the capture chain.
    ``real``: ``os.path.realpath(path)`` when the caller has it already.
    The verdict is :func:`objstore.core.redact.transcript_path_refused`'s
    whole (redb24), inside the code the read ledger's name-rule digest
    covers (:mod:`objstore.core.namerule`): keep no part of it here."""
    from objstore.core.redact import transcript_path_refused  # deferred: the rules compile at import
    return transcript_path_refused(path, real)
