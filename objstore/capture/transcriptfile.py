"""Whether a file is an agent's transcript (:func:`is_transcript_file`):
the check a path must pass before a hook syncs it (its cursor makes it a
source of ``mem scan`` and ``--scrub-sources``), before ``imported_sources``
lists a hook's path (an older mem's cursors included), and before
``--scrub-sources`` rewrites a file.  A hook event's ``transcript_path`` is
not authenticated: any process that can run ``mem hook claude-code`` can name
any file (fresh42 F13: /etc/shadow was scanned, a config file scrubbed)."""

from __future__ import annotations

import os
from collections.abc import Iterable

from objstore.capture.transcript import MAX_LINE_BYTES, decode_record
from objstore.core.atomic import open_regular

__all__ = ["RECORD_TYPES", "is_record", "is_transcript_file"]

#: the record ``type`` s Claude Code writes (agent-formats §2.2, observed 1.0.24 -> 2.1.177, and
#: those seen in third-party fixtures): a line of none of them, without ``sessionId`` or ``uuid``,
#: is no Claude Code record (a file of only such lines is no transcript)
RECORD_TYPES = frozenset({"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation",
                          "progress", "attachment", "permission-mode", "last-prompt", "ai-title", "custom-title",
                          "mode", "worktree-state", "file-history-delete"})


def is_record(rec: dict) -> bool:
    """Whether the JSON object ``rec`` is a Claude Code transcript record: its
    ``type`` is one of :data:`RECORD_TYPES`, or another text with the
    envelope's ``sessionId`` or ``uuid`` (a type a later version adds)."""
    kind = rec.get("type")
    return isinstance(kind, str) and (kind in RECORD_TYPES or "sessionId" in rec or "uuid" in rec)


#: bytes and non-blank lines read from a file outside the harnesses' folders to tell a transcript
SNIFF_BYTES = 1 << 16
SNIFF_LINES = 20


def is_transcript_file(path: str | os.PathLike, roots: Iterable[str | os.PathLike] = ()) -> bool:
    """Whether ``path`` may be read and rewritten as a transcript: a regular
    ``*.jsonl`` file (a link followed: the name of its target) under one of
    ``roots`` (the harnesses' transcript folders, the caller's:
    ``cmds._hooktranscript.harness_folders``; a Claude Code project folder
    holds other files too, its ``memory/*.md``), or any other file
    whose first lines (up to :data:`SNIFF_LINES` non-blank lines in its
    first :data:`SNIFF_BYTES` bytes, or its first line when longer, up to
    the parser's ``MAX_LINE_BYTES``; a last line without its newline is not
    judged) are mostly Claude Code records or mostly Codex rollout records
    (:func:`is_record`, ``codex.is_record``; a torn line among them is let
    through: :func:`_records_of_one_harness`).  An empty or unreadable
    file, a FIFO or a device, a path holding a NUL is not.  Never raises."""
    try:
        p = os.fsdecode(path)
        if "\0" in p:
            return False
        real = os.path.realpath(p)
        if not os.path.isfile(real):
            return False
        if real.endswith(".jsonl") and any(real.startswith(os.path.realpath(r).rstrip(os.sep) + os.sep)
                                           for r in roots):
            return True
        with open_regular(real) as f:
            data = f.read(SNIFF_BYTES)
            if b"\n" not in data and len(data) == SNIFF_BYTES and data.lstrip()[:1] == b"{":
                data += f.readline(MAX_LINE_BYTES - SNIFF_BYTES)   # a longer first record (a pasted log)
    except (OSError, ValueError):
        return False
    return _records_of_one_harness(data)


def _records_of_one_harness(data: bytes) -> bool:
    """Whether most of the first :data:`SNIFF_LINES` complete non-blank lines
    of ``data`` are records of one harness: a torn line (a crash mid-write;
    the shipped sample transcript has one) or an odd object among them is let
    through; an INI or shell file (no line an object), a JSONL file of other
    records (an app's log, rows of ``{"id": …}``) and a notes file quoting a
    record are not.  Claude Code's: one at least with its envelope
    (``sessionId``, ``uuid``, a summary's ``leafUuid``), not a one-line
    ``{"type": "user"}`` config; Codex's: a bare ``{"id": …}`` (its legacy
    header) counts on the first line only, and not alone."""
    lines = [ln for ln in data.split(b"\n")[:-1] if ln.strip()][:SNIFF_LINES]
    recs = [r for r in map(decode_record, lines) if r is not None]
    # a type no version of Claude Code wrote counts only with the whole envelope (test43 T12: an app's event log,
    # rows {"type": "request", "uuid": …}, was read and rewritten as a transcript)
    claude = [r for r in recs if is_record(r) and (r["type"] in RECORD_TYPES or "sessionId" in r and "uuid" in r)]
    if 2 * len(claude) > len(lines):
        return any("sessionId" in r or "uuid" in r or "leafUuid" in r for r in claude)
    from objstore.capture import codex   # deferred: heavy, only for a file that is no Claude Code transcript
    typed = [codex.is_record(r) and (i == 0 or "type" in r or "record_type" in r) for i, r in enumerate(recs)]
    return 2 * sum(typed) > len(lines) and any("type" in r or "record_type" in r for r in recs)
