"""``mem import claude-memory``: Claude Code's own memory files as proposals.

Claude Code keeps notes in ``~/.claude/CLAUDE.md`` (the user's) and in
``~/.claude/projects/<encoded dir>/memory/*.md`` (a project's).  Each
paragraph or list item of those files becomes a proposal to add that entry
to the matching memory file (``user.md`` for the user's CLAUDE.md,
``memory.md`` of the project otherwise; ``objstore.memory.memfiles``; one
such file may be named directly: ``mem import claude-memory PATH.md``), queued
for the owner: nothing is applied without them.  Importing again proposes
nothing new: an entry the file already holds is skipped, and a queued
proposal has the same id as before.  An entry that would not fit the file is
reported, not proposed (consolidate first).  Entries are proposed redacted
(``objstore.core.redact``; ``memfiles.redact_plan``): a queued proposal is
an object, and holds no credential in the clear.

Each file is read through ``core.atomic.read_regular`` (a FIFO, device or
folder named ``*.md`` is skipped, never waited on) and as strict UTF-8
(``memfiles.utf8_text``): a file that is not is skipped with the offset of
its first bad byte, never proposed with replacement characters.  A path
is shown as found, never resolved, and one holding a credential as
``core.redact.shown_path`` shows it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from objstore.core.atomic import read_regular
from objstore.core.errors import InvalidInput, MemError
from objstore.core.redact import redact, shown_path
from objstore.core.store import Store
from objstore.memory.memfiles import propose_edit, read_file, utf8_text
from objstore.memory.scope import register_project

#: the largest note read (a memory file holds at most a few thousand characters)
MAX_NOTE_BYTES = 1 << 20
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


@dataclass
class ClaudeMemoryImport:
    """Counts: ``files`` read, ``proposed`` (queued now), ``present`` (already
    in the file or already queued), ``skipped`` ``[(path, reason)]`` (a path
    holding a credential reads ``a path holding a credential, not shown``),
    ``redacted``: credentials the proposed entries lost to
    ``[REDACTED:<rule>]`` before they were queued."""

    files: int = 0
    proposed: int = 0
    present: int = 0
    redacted: int = 0
    queued: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def entries_of(text: str) -> list[str]:
    """Entries of a Markdown note: each list item, and each other paragraph
    (headings and code fences are kept with the paragraph they start)."""
    out: list[str] = []
    para: list[str] = []

    def flush():
        if para:
            t = "\n".join(para).strip()
            if t and not re.fullmatch(r"#+\s.*", t):
                out.append(t)
            para.clear()

    for line in text.replace("\r\n", "\n").split("\n"):
        if not line.strip():
            flush()
        elif _ITEM.match(line):
            flush()
            para.append(_ITEM.sub("", line, count=1))
        elif line.strip() == "§":
            flush()
        else:
            para.append(line)
    flush()
    return out


def _project_of(project_dir: Path, store: Store) -> str | None:
    """The project of a Claude Code project folder: the ``cwd`` one of its
    transcripts records (the folder's name is a lossy encoding of it), as
    the store's registry names it, registered there if new (the name kept,
    as the hooks and the transcript import keep it: test30b S5)."""
    for p in sorted(project_dir.glob("*.jsonl"))[:5]:
        try:
            with open(p, encoding="utf-8", errors="replace") as f:
                for _n, line in zip(range(50), f):
                    try:
                        cwd = json.loads(line).get("cwd")
                    except (ValueError, AttributeError):
                        continue
                    if isinstance(cwd, str) and cwd:
                        return register_project(store, cwd) or None
        except OSError:
            continue
    return None


def _named_file(path: Path, store: Store, res: ClaudeMemoryImport) -> list[tuple[Path, str, str]]:
    """The target of a memory file named directly (test34 T12.1: it was
    taken for a Claude home folder, and nothing was read): a project's note
    when it sits in ``projects/<encoded dir>/memory/``, else the user's
    (as ``~/.claude/CLAUDE.md``).  [] (and a ``skipped`` line) for a
    project note whose project no transcript names."""
    if path.parent.name == "memory" and path.parent.parent.parent.name == "projects":
        project = _project_of(path.parent.parent, store)
        if not project:
            res.skipped.append((shown_path(str(path)), "no transcript there says which project it is"))
            return []
        return [(path, f"project/{project}", "memory")]
    return [(path, "user", "user")]


def import_claude_memory(store: Store, claude_home: str | Path, *, owner: str = "claude-code") -> ClaudeMemoryImport:
    """Propose the entries of Claude Code's memory files (module doc):
    ``claude_home`` is the Claude home folder, or one memory file named
    directly (a ``CLAUDE.md``: the user's; a ``projects/*/memory/*.md``:
    that project's)."""
    res = ClaudeMemoryImport()
    home = Path(claude_home)
    targets: list[tuple[Path, str, str]] = []
    if home.exists() and not home.is_dir():   # a file named directly (a FIFO too: skipped unread below)
        targets = _named_file(home, store, res)
    elif (home / "CLAUDE.md").is_file():
        targets.append((home / "CLAUDE.md", "user", "user"))
    for mem_dir in sorted(home.glob("projects/*/memory")) if home.is_dir() else ():
        project = _project_of(mem_dir.parent, store)
        if not project:
            res.skipped.append((shown_path(str(mem_dir)), "no transcript there says which project it is"))
            continue
        for md in sorted(mem_dir.glob("*.md")):
            targets.append((md, f"project/{project}", "memory"))
    for path, scope, name in targets:
        shown = shown_path(str(path))
        try:   # a FIFO or a device in its place is never waited on; bytes that are not UTF-8 are not guessed
            text = utf8_text(read_regular(path, MAX_NOTE_BYTES), "the file")
        except OSError as e:
            res.skipped.append((shown, e.strerror or type(e).__name__))
            continue
        except InvalidInput as e:
            res.skipped.append((shown, e.message.removeprefix("the file is ")))
            continue
        res.files += 1
        have = set(read_file(store, scope, name).entries)
        for entry in entries_of(text):
            # a stored file holds its entries redacted: compare (and name) the entry as it would be stored
            red = redact(entry)
            entry = red.text
            if entry in have:
                res.present += 1
                continue
            try:
                parked = propose_edit(store, scope, {"action": "add", "file": name, "text": entry}, owner=owner)
            except MemError as e:
                res.skipped.append((shown, f"{entry[:40]!r}: {e.message}"))
                continue
            if parked.new:
                res.queued.append(parked.item)
                res.proposed += 1
                res.redacted += len(red.hits)
            else:
                res.present += 1
    return res
