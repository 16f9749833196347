"""Scrub forgotten text out of the agent's own transcript files (the
sources a store imported from): ``mem forget --match TEXT --scrub-sources``.

Only JSON string values are changed: each line of a JSONL transcript that
contains the text (ignoring case and whitespace runs) is parsed, every string
in it has the matches replaced by ``[REDACTED]``, and the line is written back
compactly; other lines are kept byte for byte.  The file is replaced
atomically with its mode kept.  Nothing is backed up (a backup would be one
more copy of the text).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from objstore.core.atomic import atomic_write
from objstore.core.errors import InvalidInput

REDACTED = "[REDACTED]"


def match_pattern(text: str) -> re.Pattern:
    """A regex matching ``text`` ignoring case and treating any whitespace run
    as equal to any other.  Raises InvalidInput for a blank text."""
    words = text.split()
    if not words:
        raise InvalidInput("nothing to match")
    return re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)


@dataclass
class ScrubHit:
    """A source file that holds the text: path and number of lines affected."""

    path: Path
    lines: int


def _walk(value, pat: re.Pattern):
    if isinstance(value, str):
        return pat.sub(REDACTED, value)
    if isinstance(value, list):
        return [_walk(v, pat) for v in value]
    if isinstance(value, dict):
        return {(pat.sub(REDACTED, k) if isinstance(k, str) else k): _walk(v, pat) for k, v in value.items()}
    return value


def find(paths: list[str], text: str) -> list[ScrubHit]:
    """The files among ``paths`` that contain ``text`` (decoded JSON strings
    are searched, so escapes such as ``\\n`` or ``\\u00e9`` do not hide it)."""
    pat = match_pattern(text)
    hits = []
    for p in map(Path, paths):
        try:
            with open(p, "rb") as f:
                n = sum(1 for line in f if _line_hits(line, pat))
        except OSError:
            continue
        if n:
            hits.append(ScrubHit(p, n))
    return hits


def _line_hits(line: bytes, pat: re.Pattern) -> bool:
    s = line.decode("utf-8", "replace")
    if pat.search(s):
        return True
    try:
        return bool(pat.search(json.dumps(json.loads(s), ensure_ascii=False)))
    except ValueError:
        return False


def scrub(path: Path, text: str) -> int:
    """Redact ``text`` in one JSONL file; returns the lines rewritten.  A line
    that is not JSON but contains the text has the text replaced as plain
    text."""
    pat = match_pattern(text)
    out, changed = [], 0
    with open(path, "rb") as f:
        for line in f:
            if not _line_hits(line, pat):
                out.append(line)
                continue
            end = line[len(line.rstrip(b"\r\n")):]
            body = line[: len(line) - len(end)].decode("utf-8", "replace")
            try:
                new = json.dumps(_walk(json.loads(body), pat), ensure_ascii=False, separators=(",", ":"))
            except ValueError:
                new = pat.sub(REDACTED, body)
            out.append(new.encode("utf-8") + end)
            changed += 1
    if changed:
        mode = os.stat(path).st_mode & 0o7777
        atomic_write(path, b"".join(out))
        os.chmod(path, mode)
    return changed
