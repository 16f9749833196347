"""Notes in Markdown as facts: ``mem import markdown PATH…`` and
``mem import codex-memory`` (Codex keeps its memories as Markdown files).

Each ``.md`` file becomes one key (or, over :data:`MAX_PART_CHARS`, several
ordered parts split at headings: ``<key>/part-1``, ``<key>/part-2`` …):

* **key**: the frontmatter's ``key`` when present, else
  ``<scope>/notes/<folder>/<path below the folder without .md>`` with each
  segment made a valid key segment; ``<folder>`` is the folder's own name
  (however it was given: ``.``, ``..``, a link), and for a second folder
  of one name in a scope, that name and 6 hex of its id
  (:func:`folder_segment`: test30 R14, test30b S9);
* **value**: the text after the frontmatter, trimmed;
* **kind** and **valid_from**: the frontmatter's ``kind`` and ``valid_from``
  (ISO date or date-time) when present.

Frontmatter is the YAML-style block between ``---`` lines at the top; only
flat ``name: value`` lines are read (no YAML library is needed for three
scalar fields, and no YAML is executed).

Identity: a file is ``md:<16 hex of SHA-256 of the folder's absolute
path>:<path below the folder>``, recorded as the version's source.
Importing again writes nothing for an unchanged file, a new version for a
changed one (it supersedes the earlier import), and retires the keys of a
file that vanished (a dormant version: searchable, never injected).  The
ledger of what was imported lives in ``<store>/cache/markdown-imports.json``
(keys and source ids, never text).

Trust: notes are text the store did not see the person say, so they are
written as ``agent_observed`` with owner ``markdown:<folder>`` (``codex``
for Codex memories) unless the caller says they are the person's own; a
lower-trust value never overrides a ``user_stated`` one (it goes to the
review queue).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from objstore.core.atomic import atomic_write
from objstore.core.errors import InvalidInput, MemError
from objstore.core.redact import PATH_NOT_SHOWN, cut_point, path_holds_credential, redact, shown_path
from objstore.core.refs import validate_key
from objstore.core.store import Store
from objstore.memory.decay import restate
from objstore.memory.facts import remember

MAX_PART_CHARS = 100_000
LEDGER = "cache/markdown-imports.json"
_SEG_BAD = re.compile(r"[^\w.\-]+", re.UNICODE)
_HEADING = re.compile(r"^#{1,6}\s", re.M)


@dataclass
class MarkdownImport:
    """Counts of one import: ``files`` read, ``written`` versions,
    ``unchanged``, ``queued`` (parked for review), ``retired`` keys of
    vanished files, ``skipped`` files with their reasons."""

    files: int = 0
    written: int = 0
    unchanged: int = 0
    queued: int = 0
    retired: int = 0
    keys: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _segment(text: str) -> str:
    s = _SEG_BAD.sub("-", unicodedata.normalize("NFC", text)).strip("-.").lower()
    return s[:80] or "note"


def parse_note(text: str) -> tuple[dict[str, str], str]:
    """``(frontmatter fields, body)`` of a Markdown note.  Only flat
    ``name: value`` lines of a leading ``---`` block are read; quotes around
    a value are removed."""
    meta: dict[str, str] = {}
    if text.startswith("---"):
        lines = text.split("\n")
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                for ln in lines[1:i]:
                    name, sep, value = ln.partition(":")
                    if sep and name.strip() and not name.startswith((" ", "\t", "-")):
                        meta[name.strip().lower()] = value.strip().strip("\"'")
                text = "\n".join(lines[i + 1:])
                break
    return meta, text.strip()


def split_parts(body: str, limit: int = MAX_PART_CHARS) -> list[str]:
    """Split ``body`` at headings into ordered parts of at most ``limit``
    characters (a section longer than the limit is cut at line ends, then
    at a word's end: ``redact.cut_point``).  A longer body is redacted
    whole BEFORE it is split, so a credential crossing a cut is still
    recognised, and no cut falls inside a word (T19)."""
    if len(body) <= limit:
        return [body]
    body = redact(body).text
    starts = [m.start() for m in _HEADING.finditer(body)]
    cuts = sorted({0, *starts})
    sections = [body[a:b] for a, b in zip(cuts, [*cuts[1:], len(body)])]
    parts: list[str] = []
    cur = ""
    for sec in sections:
        while len(sec) > limit:
            cut = sec.rfind("\n", 0, limit)
            cut = cut if cut > 0 else (cut_point(sec, limit) or limit)
            if cur:
                parts.append(cur)
                cur = ""
            parts.append(sec[:cut])
            sec = sec[cut:]
        if len(cur) + len(sec) > limit:
            parts.append(cur)
            cur = ""
        cur += sec
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def _parse_time(text: str) -> int | None:
    try:
        d = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if d.tzinfo is None:
        d = d.replace(tzinfo=_dt.timezone.utc)
    return int(d.timestamp() * 1000)


def folder_id(folder: Path) -> str:
    """16 hex of the SHA-256 of a folder's absolute path."""
    return hashlib.sha256(str(Path(folder).resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def folder_segment(ledger: dict, fkey: str, scope: str, real_base: Path, new: bool) -> str:
    """The key segment naming the folder ``real_base`` (resolved, its ledger
    entry ``ledger[fkey]``) in ``scope``: the segment its entry recorded,
    else its name (:func:`_segment`) — or, for a folder ``new`` to the
    ledger when another folder of the same name was imported into the
    scope before, the name and 6 hex of its id (``docs-1a2b3c``): two
    folders called ``docs`` never share a key, so one's import never
    overwrites or retires the other's notes (test30b S9).  Recorded in the
    entry (``segment``)."""
    entry = ledger[fkey]
    if entry.get("segment"):
        return entry["segment"]
    seg = _segment(real_base.name)
    taken = new and any(k != fkey and e.get("scope") == scope and
                        (e.get("segment") or _segment(Path(e.get("folder", "")).name)) == seg
                        and Path(e.get("folder", "")).is_dir()   # a folder moved or renamed away keeps its keys
                        for k, e in ledger.items())            # (test30c T8: it got a second key)
    entry["segment"] = f"{seg}-{fkey[:6]}" if taken else seg
    return entry["segment"]


def _load_ledger(store: Store) -> dict:
    try:
        return json.loads((store.root / LEDGER).read_text("utf-8"))
    except (FileNotFoundError, ValueError):
        return {}


def _inside(path: Path, real_base: Path) -> bool:
    """True when ``path``, every symlink on it followed, is in the folder
    whose resolved path is ``real_base``."""
    try:
        return path.resolve().is_relative_to(real_base)
    except (OSError, RuntimeError):   # a symlink loop
        return False


def import_markdown(store: Store, folders: list[str | Path], *, scope: str = "user", trust: str = "agent_observed",
                    owner: str | None = None, progress=None) -> MarkdownImport:
    """Import every ``.md`` file under ``folders`` (see module doc).

    Args:
        folders: folders (or single ``.md`` files, whose folder is then the
            file's parent).
        scope: the scope of derived keys (``user``, ``project/<name>``, ``global``).
        trust: the trust of the written versions.
        owner: the author recorded (default ``markdown:<folder name>``).
    Raises:
        InvalidInput: a bad scope, or a path that is neither a folder nor a
            ``.md`` file.
    A file that cannot be read, or whose key is invalid, is skipped and
    listed in ``skipped``; a secret-looking value is redacted by ``remember``.
    A file of a folder that is a symlink (or below one) to a file outside
    that folder is skipped unread (``a symlink to a file outside the
    folder: not read``): importing a folder reads only that folder; a
    ``.md`` file named itself is read wherever it points.
    A file whose path below the folder holds a credential (the one name rule,
    ``redact.path_holds_credential``, on the path as written: the key lower-
    cases it), or every file of a folder whose path holds one, is skipped
    and listed as ``redact.PATH_NOT_SHOWN``, never by its path.
    """
    validate_key(f"{scope}/x")
    res = MarkdownImport()
    ledger = _load_ledger(store)
    touched: dict[str, bool] = {}  # ledger entries this run read: True when a whole folder was read
    for item in map(Path, folders):
        whole = item.is_dir()  # only a whole folder tells which of its files vanished
        if item.is_file() and item.suffix.lower() == ".md":
            base, files = item.parent, [item]
        elif whole:
            base, files = item, sorted(p for p in item.rglob("*.md") if p.is_file())
        else:
            raise InvalidInput(f"{shown_path(str(item))} is neither a folder nor a .md file")
        if path_holds_credential(str(base.resolve())):
            # its path would be stored in the clear (the ledger, the owner name): skipped, not shown
            res.skipped += [(PATH_NOT_SHOWN, "the folder's path holds a credential: rename it, then import it")
                            for _p in files]
            continue
        fid = folder_id(base)
        real_base = base.resolve()
        fkey = f"{fid}:{scope}"
        new = fkey not in ledger
        seen = ledger.setdefault(fkey, {"folder": str(base.resolve()), "scope": scope, "files": {}})
        touched[fkey] = touched.get(fkey, False) or whole
        who = owner or f"markdown:{_segment(real_base.name)}"   # the folder's own name: '.' or '..' is none (test30 R14)
        seg = folder_segment(ledger, fkey, scope, real_base, new)
        present: set[str] = set()
        for i, p in enumerate(files):
            rel = p.relative_to(base).as_posix()
            present.add(rel)
            if progress is not None:
                progress(i + 1, len(files))
            if path_holds_credential(rel):
                # checked as written: the key lower-cases it (past the name rule), the ledger and
                # the versions' sources keep it in the clear
                res.skipped.append((PATH_NOT_SHOWN, "the file's path holds a credential: rename it, then import it"))
                continue
            shown = str(p)
            if whole and not _inside(p, real_base):
                res.skipped.append((shown, "a symlink to a file outside the folder: not read"))
                continue
            try:
                meta, body = parse_note(p.read_bytes().decode("utf-8"))
            except OSError as e:
                res.skipped.append((shown, e.strerror or str(e)))
                continue
            except UnicodeDecodeError:
                res.skipped.append((shown, "not valid UTF-8 text"))
                continue
            if not body:
                res.skipped.append((shown, "empty"))
                continue
            res.files += 1
            stem = rel[:-3] if rel.lower().endswith(".md") else rel
            key = meta.get("key") or "/".join([scope, "notes", seg,
                                                *(_segment(s) for s in stem.split("/"))])
            parts = split_parts(body)
            keys = [key] if len(parts) == 1 else [f"{key}/part-{n}" for n in range(1, len(parts) + 1)]
            source = f"md:{fid}:{rel}"
            valid = _parse_time(meta["valid_from"]) if "valid_from" in meta else None
            kind = meta.get("kind") or None
            try:
                for k, text in zip(keys, parts):
                    r = remember(store, k, text, kind=kind, trust=trust, owner=who, sources=(source,),
                                 valid_from=valid, command="import markdown")
                    res.keys.append(r.key)
                    if r.queued:
                        res.queued += 1
                    elif r.written:
                        res.written += 1
                    else:
                        res.unchanged += 1
                        if r.version is not None and r.version.fact.dormant and k not in seen["files"].get(rel, []):
                            # retired by an earlier run (the ledger no longer names it for this file: it vanished,
                            # or was read under another key, test30 R14), present again: woken (never a key
                            # decay made dormant while the ledger kept it)
                            restate(store, k, dormant=False, command="import markdown (present again)")
            except MemError as e:
                res.skipped.append((shown, e.message))
                continue
            old = seen["files"].get(rel, [])
            for k in set(old) - set(keys):  # the file now has fewer parts (or another key)
                _retire(store, k, restate, res)
            seen["files"][rel] = keys
        if whole:
            for rel in sorted(set(seen["files"]) - present):
                for k in seen["files"].pop(rel):
                    _retire(store, k, restate, res)
    with store.lock("import markdown"):  # concurrent imports: merge into the ledger as it is now
        now = _load_ledger(store)
        for fkey, whole in touched.items():
            if whole or fkey not in now:
                now[fkey] = ledger[fkey]
            else:
                now[fkey]["files"].update(ledger[fkey]["files"])
        atomic_write(store.root / LEDGER, json.dumps(now, ensure_ascii=False, sort_keys=True).encode())
    return res


def _retire(store: Store, key: str, restate, res: MarkdownImport) -> None:
    try:
        if restate(store, key, dormant=True, command="import markdown (retired)").changed:
            res.retired += 1
    except MemError:
        pass  # forgotten or removed since: nothing to retire


def default_codex_memories(codex_home: str | os.PathLike) -> Path:
    """Where Codex keeps its memories under ``CODEX_HOME``."""
    return Path(codex_home) / "memories"


def imported_notes(store: Store) -> list[Path]:
    """Every note file the ledger says was imported (for ``mem scan``)."""
    out = []
    for entry in _load_ledger(store).values():
        base = Path(entry.get("folder", ""))
        out += [base / rel for rel in entry.get("files", {}) if (base / rel).is_file()]
    return sorted(set(out))
