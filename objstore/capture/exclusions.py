"""Capture exclusions: ``mem exclude --list|--add|--remove GLOB``.

The globs live in ``[capture] exclude`` of ``<store>/config.toml`` (read by
``objstore.capture.sync.load_config``; the matching rule is
``path_excluded``).  This module previews what a glob would drop (sessions
and projects already stored whose working directory it matches) and edits
that one array in place: the rest of the file (comments, other tables,
formatting) is kept byte for byte.  The array is rewritten on one line as
TOML basic strings.  Python has a TOML reader (``tomllib``) but no writer,
and the core dependencies are fixed, so this small, checked text edit
replaces a TOML-writing library: the result is parsed again and must give
exactly the new list, or nothing is written.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from objstore.capture.sync import CONFIG_FILE, CaptureConfig, load_config, path_excluded
from objstore.core.atomic import atomic_write
from objstore.core.errors import InvalidInput
from objstore.core.store import Store
from objstore.memory.sessions import walk_turns

_HEADER = re.compile(r"^[ \t]*\[[ \t]*capture[ \t]*\][ \t]*(#.*)?$", re.M)
_ANY_HEADER = re.compile(r"^[ \t]*\[", re.M)
_EXCLUDE = re.compile(r"^[ \t]*exclude[ \t]*=[ \t]*", re.M)


@dataclass
class ExcludePreview:
    """What a glob matches among stored sessions: ``sessions`` as
    ``(session id, project, working directory, turns)``, and the
    ``projects`` they belong to."""

    glob: str
    sessions: list[tuple[str, str, str, int]] = field(default_factory=list)

    @property
    def projects(self) -> list[str]:
        """The distinct projects of the matched sessions, sorted."""
        return sorted({p for _s, p, _c, _n in self.sessions if p})

    @property
    def turns(self) -> int:
        """Turns stored from the matched sessions."""
        return sum(n for *_x, n in self.sessions)


def normalize_glob(glob: str) -> str:
    """The stored form of a glob: ``~`` expanded, normalized; raises
    InvalidInput for a blank one."""
    if not glob or not glob.strip():
        raise InvalidInput("the glob is empty")
    return os.path.normpath(os.path.expanduser(glob.strip()))


def preview(store: Store, glob: str) -> ExcludePreview:
    """Sessions already stored whose working directory ``glob`` matches."""
    cfg = CaptureConfig(exclude=(normalize_glob(glob),))
    out = ExcludePreview(glob)
    for name, oid in store.refs.iter("sessions"):
        cwd = project = ""
        n = 0
        for tv in walk_turns(store, oid):
            n += 1
            cwd = tv.turn.cwd or cwd
            project = tv.turn.project or project
        if cwd and path_excluded(cfg, cwd):
            out.sessions.append((name[len("sessions/"):], project, cwd, n))
    return out


def list_exclusions(root: Path) -> list[str]:
    """The globs in force (as ``load_config`` reads them)."""
    return list(load_config(root).exclude)


def _array_end(text: str, i: int) -> int:
    """Index just past the TOML array starting at ``text[i] == '['``."""
    depth, j = 0, i
    while j < len(text):
        c = text[j]
        if c == "#":
            j = text.find("\n", j)
            if j < 0:
                break
            continue
        if c in "\"'":
            triple = text.startswith(c * 3, j)
            q = c * 3 if triple else c
            k = j + len(q)
            while k < len(text):
                if c == '"' and text[k] == "\\":
                    k += 2
                    continue
                if text.startswith(q, k):
                    break
                k += 1
            j = k + len(q)
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise InvalidInput("config.toml: capture.exclude is not a closed array")


def _write(root: Path, globs: list[str]) -> None:
    p = Path(root) / CONFIG_FILE
    try:
        text = p.read_text("utf-8")
    except FileNotFoundError:
        text = ""
    load_config(root)  # refuses a file that is not valid TOML
    value = "[" + ", ".join(json.dumps(g, ensure_ascii=False) for g in globs) + "]"
    h = _HEADER.search(text)
    if h is None:
        if "capture" in tomllib.loads(text):
            raise InvalidInput(f"{p}: [capture] is written in a form mem does not edit",
                               hint="edit capture.exclude in that file by hand")
        new = text + ("" if not text or text.endswith("\n") else "\n") + f"\n[capture]\nexclude = {value}\n"
    else:
        nxt = _ANY_HEADER.search(text, h.end())
        end = nxt.start() if nxt else len(text)
        m = _EXCLUDE.search(text, h.end(), end)
        if m is None:
            new = text[:h.end()] + f"\nexclude = {value}" + text[h.end():]
        else:
            if text[m.end():m.end() + 1] != "[":
                raise InvalidInput(f"{p}: capture.exclude is not an array")
            new = text[:m.end()] + value + text[_array_end(text, m.end()):]
    doc = tomllib.loads(new)
    if [os.path.normpath(os.path.expanduser(x)) for x in doc.get("capture", {}).get("exclude", [])] != globs:
        raise InvalidInput(f"{p}: could not edit capture.exclude safely", hint="edit it by hand")
    atomic_write(p, new.encode("utf-8"))


def add_exclusion(root: Path, glob: str) -> bool:
    """Add ``glob`` to ``[capture] exclude``; False when it was there already.
    Raises InvalidInput (a blank glob, an unreadable or uneditable file)."""
    g = normalize_glob(glob)
    cur = list_exclusions(root)
    if g in cur:
        return False
    _write(root, [*cur, g])
    return True


def remove_exclusion(root: Path, glob: str) -> bool:
    """Remove ``glob``; False when it was not there."""
    g = normalize_glob(glob)
    cur = list_exclusions(root)
    if g not in cur:
        return False
    _write(root, [x for x in cur if x != g])
    return True
