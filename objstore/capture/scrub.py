"""Scrub forgotten text out of the agent's own transcript files (the
sources a store imported from) and out of the person's shell history files
(:func:`shell_histories`, the ones ``mem scan`` reads): ``mem forget
--match TEXT --scrub-sources``.

In a transcript only JSON string values are changed: each line of a JSONL transcript that
contains the text (under the store's one normalization,
``objstore.core.text``: NFC, case folding, whitespace runs) is parsed, every string
in it has the matches replaced by ``[REDACTED]``, and the line is written back
compactly; other lines are kept byte for byte.  A shell history is plain
text (``plain=True``): a line holding the text has the matches replaced by
``[REDACTED]`` and every other byte of it kept (bash's ``#<time>`` lines,
zsh's ``: <time>:0;`` prefix, fish's ``- cmd:`` entries keep their form);
zsh's histories are read and written back "metafied" as zsh writes them
(:func:`unmetafy`).
The file is replaced
atomically with its mode kept, and records the agent (or a shell) appends meanwhile are
carried over (:func:`scrub`).  Nothing is backed up (a backup would be one
more copy of the text).
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Iterator

from objstore.core import jsonspan
from objstore.core.atomic import open_regular  # noqa: F401 - the one non-blocking open (scan, scrubguard)
from objstore.core.atomic import atomic_write
from objstore.core.errors import InvalidInput
from objstore.core.text import find_spans, matcher, normalize_value, replace_matches

REDACTED = "[REDACTED]"

#: the shell history files ``mem scan`` reads and ``mem forget --scrub-sources`` scrubs, under
#: the home folder: bash, zsh, fish, and the zsh history some distributions name ``~/.histfile``
SHELL_HISTORIES = (".bash_history", ".zsh_history", ".local/share/fish/fish_history", ".histfile")
#: the histories zsh writes "metafied" (:func:`unmetafy`)
ZSH_HISTORIES = (".zsh_history", ".histfile")
#: zsh's ``Meta`` byte, and the bytes zsh writes as ``Meta`` + byte XOR 0x20 (its ``metafy``): NUL and
#: 0x83-0xa2, read off zsh 5.9 here (a history line holding every byte 0x80-0xff, saved by ``zsh -i``)
_META = 0x83
_METAFIED = re.compile(rb"[\x00\x83-\xa2]")


def unmetafy(data: bytes) -> bytes:
    """``data`` of a zsh history file as the bytes that were typed: each
    ``0x83 b`` becomes ``b ^ 0x20`` (zsh's ``unmetafy``; UTF-8 continuation
    bytes such as Cyrillic's ``у`` = d1 83 are stored so, test25 T19).  A
    lone ``0x83`` at the end is kept."""
    if b"\x83" not in data:
        return data
    parts = data.split(b"\x83")
    out = [parts[0]]
    for part in parts[1:]:
        out.append(bytes((part[0] ^ 0x20,)) + part[1:] if part else b"\x83")
    return b"".join(out)


def metafy(data: bytes) -> bytes:
    """The inverse of :func:`unmetafy`: what zsh writes for ``data``."""
    return _METAFIED.sub(lambda m: bytes((_META, m.group()[0] ^ 0x20)), data)


def is_zsh_history(path: str | os.PathLike) -> bool:
    """Whether ``path`` is one of :data:`ZSH_HISTORIES` (read and written metafied)."""
    return Path(path).name in ZSH_HISTORIES


def is_regular(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a regular file (links followed; False when it
    cannot be stat'ed)."""
    import stat
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def shell_histories(home: str | os.PathLike, hist: str = "", data: str = "") -> list[Path]:
    """The shell history files that exist (as regular files): those of
    :data:`SHELL_HISTORIES` under ``home`` (the person's home folder), in
    that order, then ``hist`` (the caller's ``$HISTFILE``, bash's and zsh's
    own setting, when it is exported or given to the command: test27 V17;
    relative: under ``home``) and fish's history under ``data`` (the
    caller's ``$XDG_DATA_HOME``), each file once."""
    found = [Path(home) / h for h in SHELL_HISTORIES]
    if hist:
        found.append(Path(os.path.expanduser(hist)) if os.path.isabs(os.path.expanduser(hist))
                     else Path(home) / hist)
    if data and os.path.isabs(data):
        found.append(Path(data) / "fish" / "fish_history")
    out: list[Path] = []
    seen: set[tuple[int, int]] = set()
    for p in found:
        try:
            st = p.stat()
        except OSError:
            continue
        if p.is_file() and (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            out.append(p)
    return out


def match_pattern(text: str) -> Callable[[str], bool]:
    """The predicate ``f(s) -> bool`` "``s`` contains ``text``" under the
    store's one normalization (:func:`objstore.core.text.matcher`: NFC, case
    folding, whitespace runs as one space), so a transcript matches exactly
    when the store does.  Raises InvalidInput for a blank text."""
    if not normalize_value(text):
        raise InvalidInput("nothing to match")
    return matcher(text)


@dataclass
class ScrubHit:
    """A source file that holds the text: path and number of lines affected."""

    path: Path
    lines: int


def _strings(value) -> Iterator[str]:
    """Every str in a decoded JSON value (object keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                yield k
            yield from _strings(v)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _in_strings(body: str, text: str, marker: str) -> str:
    """The JSON text ``body`` (it parses; a byte that is not UTF-8 read as
    a ``surrogateescape`` character) with every match of ``text`` inside a
    JSON string (a key or a value, matched on the decoded string) replaced
    by ``marker``, and every character outside those strings kept as it
    was: numbers keep their source text (``1E2`` stays ``1E2``, where a
    parse and dump wrote ``100.0``, longer: test16b B7), and so do the
    spacing and the strings without a match.  A string with a match is
    written again as ``json.dumps(ensure_ascii=False)`` writes it, no
    longer than its source but for the marker (``\\u00e9`` becomes
    ``é``), with a lone surrogate as its ``\\uXXXX`` escape: a byte that
    is not UTF-8 inside such a string then takes 6 bytes, the one way such
    a line grows.  Cost: one match test per string of the line; a JSON
    decode and encode of each string that matches."""
    out, pos = [], 0
    for m in jsonspan.STRING.finditer(body):   # a valid JSON text: every '"' outside a string starts one
        value = json.loads(m.group())
        new, n = replace_matches(value, text, marker)
        if not n:
            continue
        enc = _SURROGATE.sub(lambda c: f"\\u{ord(c.group()):04x}", json.dumps(new, ensure_ascii=False))
        out += [body[pos:m.start()], enc]
        pos = m.end()
    out.append(body[pos:])
    return "".join(out)


#: the markers a rewritten JSONL line tries, in order, until it is no longer than the line it
#: replaces (:class:`_LineScrubber`: a transcript is scrubbed in place, each line keeping its length)
MARKERS = (REDACTED, "[R]", "*")
#: what a match is replaced by first, then each marker in turn (a private-use character: JSON
#: writes it as it is, one character)
_PLACEHOLDER = "\ue000"


def find(paths: list[str], text: str, *, plain: bool = False) -> list[ScrubHit]:
    """The files among ``paths`` that contain ``text`` (each decoded JSON
    string is searched, so escapes such as ``\\n`` or ``\\u00e9`` do not hide
    it; ``plain``: lines of plain text, a shell history).  Raises
    InvalidInput for a blank text; unreadable files are skipped."""
    match = match_pattern(text)
    hits = []
    for p in map(Path, paths):
        try:
            with open_regular(p) as f:
                if plain:       # as the scrub reads it: the whole text, a match may span lines
                    data = f.read()
                    data = unmetafy(data) if is_zsh_history(p) else data
                    n = len(plain_spans(data.decode("utf-8", "surrogateescape"), text))
                else:
                    n = sum(1 for line in f if _line_hits(line, match, plain))
        except OSError:
            continue
        if n:
            hits.append(ScrubHit(p, n))
    return hits


def plain_spans(body: str, text: str) -> list[tuple[int, int]]:
    """Where ``text`` is in ``body``, a plain-text file (a shell history),
    as ``(start, end)`` character offsets: the store's one match
    (``core.text.find_spans``), a line end inside a match read as the blank
    it is, and a shell's line continuation too (a backslash right before
    the line end, read away: ``export PASS=`` + backslash + newline +
    ``hunter2x9`` holds ``PASS=hunter2x9``, as the shell ran it).  The one
    reading :func:`find`, :func:`scrub` and ``mem scan`` share."""
    spans = find_spans(body, text)
    if "\\\n" not in body:
        return spans
    # the continuation read away ('\' + newline -> ''), offsets mapped back to body
    keep = [i for i in range(len(body)) if not (body[i] == "\\" and body[i + 1:i + 2] == "\n")
            and not (body[i] == "\n" and i and body[i - 1] == "\\")]
    joined = "".join(body[i] for i in keep)
    extra = [(keep[a], keep[b - 1] + 1) for a, b in find_spans(joined, text)]
    out = sorted(set(spans) | set(extra))
    merged: list[tuple[int, int]] = []
    for a, b in out:                # a span of each reading over the same text: one
        if merged and a < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _line_hits(line: bytes, match: Callable[[str], bool], plain: bool = False) -> bool:
    s = line.decode("utf-8", "surrogateescape" if plain else "replace")
    if match(s):
        return True
    if plain or "\\" not in s:  # no JSON escape: the decoded strings are substrings of the line
        return False
    try:
        return any(match(v) for v in _strings(json.loads(s)))
    except ValueError:
        return False


#: after the rewritten file replaced the old one, how long the old file must
#: stay unchanged before the scrub is done (a writer that opened it just before
#: the rename appends there): polls of TAIL_POLL_S, at most TAIL_MAX_S in all
TAIL_QUIET_POLLS = 3
TAIL_POLL_S = 0.01
TAIL_MAX_S = 5.0


class _LineScrubber:
    """Scrub complete lines as bytes arrive (:meth:`feed`); a last line
    without its newline waits for the rest (:meth:`rest` at the end).
    ``plain``: lines of plain text (a shell history), not JSON."""

    def __init__(self, text: str, plain: bool = False, zsh: bool = False) -> None:
        self.text, self.match, self.plain, self.zsh = text, match_pattern(text), plain, zsh
        self.partial = b""
        self.changed = 0
        #: JSONL: bytes fed so far (complete lines), the ``(offset, new line)`` of each line
        #: rewritten, and whether one could not keep its length (then the file is replaced)
        self.pos = 0
        self.edits: list[tuple[int, bytes]] = []
        self.unfit = False

    def feed(self, data: bytes) -> bytes:
        if self.plain:              # whole lines at once: a match may span lines (``PASS=\`` + newline)
            data = self.partial + data
            cut = data.rfind(b"\n") + 1
            self.partial = data[cut:]
            return self._plain(data[:cut])
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        out = []
        for ln in lines:
            old = ln + b"\n"
            new = self._line(old)
            if new is not old:
                self.edits.append((self.pos, new))
            self.pos += len(old)
            out.append(new)
        return b"".join(out)

    def _plain(self, block: bytes) -> bytes:
        """``block`` of plain text with every match replaced, across line
        ends too (a command continued on the next line, a heredoc): a span
        becomes ``[REDACTED]`` followed by the line ends it covered, so the
        file keeps its lines; every other byte is kept."""
        body = (unmetafy(block) if self.zsh else block).decode("utf-8", "surrogateescape")
        spans = plain_spans(body, self.text)
        if not spans:
            return block
        out, pos = [], 0
        for a, b in spans:
            out += [body[pos:a], REDACTED, "\n" * body.count("\n", a, b)]
            pos = b
        out.append(body[pos:])
        self.changed += len(spans)
        new = "".join(out).encode("utf-8", "surrogateescape")
        return metafy(new) if self.zsh else new   # whole lines: a Meta pair never straddles a block

    def rest(self) -> bytes:
        data, self.partial = self.partial, b""
        if self.plain:
            return self._plain(data) if data else b""
        if not data:
            return b""
        new = self._line(data)
        if new is not data:
            self.edits.append((self.pos, new))
        self.pos += len(data)
        return new

    def _line(self, line: bytes) -> bytes:
        if not _line_hits(line, self.match, self.plain):
            return line
        end = line[len(line.rstrip(b"\r\n")):]
        if self.plain:           # every byte but the matches kept, undecodable ones too
            body = line[: len(line) - len(end)].decode("utf-8", "surrogateescape")
            self.changed += 1
            return replace_matches(body, self.text, REDACTED)[0].encode("utf-8", "surrogateescape") + end
        body = line[: len(line) - len(end)].decode("utf-8", "surrogateescape")   # other bytes kept as read
        room = len(line) - len(end)
        # matched once, with a placeholder each marker then takes the place of (one it holds
        # already: matched once per marker)
        ph = _PLACEHOLDER if _PLACEHOLDER not in body else None
        try:
            json.loads(body)   # a JSON record: only its strings that hold a match are written again
            if ph:
                once = _in_strings(body, self.text, ph)
                outs = (once.replace(ph, m) for m in MARKERS)
            else:
                outs = (_in_strings(body, self.text, m) for m in MARKERS)
        except ValueError:
            once = replace_matches(body, self.text, ph)[0] if ph else None
            outs = (once.replace(ph, m) if ph else replace_matches(body, self.text, m)[0] for m in MARKERS)
        self.changed += 1
        new = b""
        for out in outs:        # the first marker that keeps the line's length (padded with blanks)
            new = out.encode("utf-8", "surrogateescape")
            if len(new) <= room:
                return new + b" " * (room - len(new)) + end
        self.unfit = True       # longer whatever the marker: this file is replaced, not written in place
        return new + end


def scrubbed(data: bytes, text: str) -> tuple[bytes, int]:
    """``(data as :func:`scrub` rewrites it, lines rewritten)`` for the bytes
    ``data`` of a JSONL transcript, in memory (``capture.scrubguard`` parses
    a transcript as the scrub will leave it, writing no copy).  Raises
    InvalidInput for a blank text."""
    sc = _LineScrubber(text)
    out = sc.feed(data) + sc.rest()
    return out, sc.changed


def _scrub_in_place(path: Path, text: str) -> int | None:
    """Scrub the JSONL file ``path`` in place (the same inode: an agent
    holding it open for appending, as Codex's rollout recorder does, goes on
    writing to the file, not to an unlinked one): each rewritten line keeps
    its length (:class:`_LineScrubber`: the first of :data:`MARKERS` that
    fits, padded with blanks, which JSON allows), so only those lines'
    bytes are written (``pwrite``), never past the end an agent appends at;
    what is appended meanwhile is read and scrubbed the same way until the
    file stays unchanged for :data:`TAIL_QUIET_POLLS` polls (a last line
    without its newline is waited for, up to :data:`TAIL_MAX_S`).  Returns
    the lines rewritten, or None, having written nothing, when a line
    cannot keep its length (then :func:`scrub` replaces the file)."""
    sc = _LineScrubber(text)
    fd = os.open(path, os.O_RDWR | getattr(os, "O_NOCTTY", 0))
    try:
        import stat
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"not a regular file: {path}")
        with os.fdopen(os.dup(fd), "rb") as f:
            sc.feed(f.read())
            if sc.unfit:
                return None
            written = 0
            quiet, end = 0, time.monotonic() + TAIL_MAX_S
            while True:
                for off, line in sc.edits[written:]:
                    if not sc.unfit:
                        os.pwrite(fd, line, off)
                written = len(sc.edits)
                if quiet >= TAIL_QUIET_POLLS and not sc.partial or time.monotonic() >= end:
                    break
                chunk = f.read()
                if chunk:
                    quiet = 0
                    sc.feed(chunk)
                    if sc.unfit:        # an appended line that cannot keep its length: left as it is
                        break           # (mem scan still finds it; the lines before are scrubbed)
                else:
                    quiet += 1
                    time.sleep(TAIL_POLL_S)
            if sc.partial and _line_hits(sc.partial, sc.match):   # a last line never ended: as it is
                rest = sc.rest()
                if not sc.unfit:
                    os.pwrite(fd, rest, sc.pos - len(rest))
        os.fsync(fd)
    finally:
        os.close(fd)
    return sc.changed


def scrub(path: Path, text: str, *, plain: bool = False) -> int:
    """Redact ``text`` in one JSONL file; returns the lines rewritten.  Each
    match inside a JSON string is replaced by ``[REDACTED]`` (the rest of
    the string is kept); a line that is not JSON but contains the text has
    the text replaced as plain text.  ``plain``: the file is plain text (a
    shell history, :func:`shell_histories`): every match on a line is
    replaced, the line's other bytes kept.  Raises InvalidInput for a blank text,
    OSError for an unreadable or unwritable file.

    The file may be a live transcript that its agent appends to: the new
    file is written beside it (crash-safe rename), then what was appended
    to the old file meanwhile, before or after the rename, is scrubbed and
    appended to the new one until the old file has stayed unchanged for
    :data:`TAIL_QUIET_POLLS` polls (so no appended record is lost; one
    appended around the rename may land after records the agent wrote to
    the new file since)."""
    path = Path(os.path.realpath(path))   # a history linked into a dotfiles folder stays a link
    if not plain:
        n = _scrub_in_place(path, text)
        if n is not None:
            return n
    sc = _LineScrubber(text, plain, zsh=plain and is_zsh_history(path))
    with open_regular(path) as old:
        def more() -> bytes:
            return old.read()
        out = [sc.feed(more())]
        while True:                       # what was appended while the first part was read
            chunk = more()
            if not chunk:
                break
            out.append(sc.feed(chunk))
        if not sc.changed and not (sc.partial and _line_hits(sc.partial, sc.match, plain)):
            return 0
        mode = os.fstat(old.fileno()).st_mode & 0o7777
        atomic_write(path, b"".join(out))
        os.chmod(path, mode)
        quiet, end = 0, time.monotonic() + TAIL_MAX_S
        with open(path, "ab") as new:
            while quiet < TAIL_QUIET_POLLS and time.monotonic() < end:
                chunk = more()
                if chunk:
                    quiet = 0
                    new.write(sc.feed(chunk))
                    new.flush()
                else:
                    quiet += 1
                    time.sleep(TAIL_POLL_S)
            new.write(sc.rest())
            new.flush()
            os.fsync(new.fileno())
    return sc.changed
