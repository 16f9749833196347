"""Capture exclusions: ``mem exclude --list|--add|--remove GLOB``.

The globs live in ``[capture] exclude`` of ``<store>/config.toml`` (read by
``objstore.capture.policy.load_config``; the matching rule is
``path_excluded``).  This module previews what a glob would drop (sessions
and projects already stored whose working directory it matches) and edits
that one array in place: the rest of the file (comments, other tables,
formatting) is kept byte for byte (``objstore.core.tomledit``, the one
checked text edit of that file).  The array is rewritten on one line as
TOML basic strings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from objstore.capture.policy import CONFIG_FILE, CaptureConfig, load_config, path_excluded
from objstore.core.errors import InvalidInput
from objstore.core.store import Store
from objstore.core.tomledit import set_value
from objstore.memory.sessions import session_project, walk_turns


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


def normalize_glob(glob: str, *, to_store: bool = True) -> str:
    """The stored form of a glob: ``~`` expanded, normalized.  Raises
    InvalidInput for a blank one and, ``to_store`` (a glob to preview or
    add, which ``config.toml`` would keep and the preview echoes), for one
    holding a credential (the one name rule, ``redact.check_name``: ``the
    glob holds a credential``, never echoed, as ``mem config`` refuses
    one).  :func:`remove_exclusion` takes one (``to_store=False``), so
    a glob written by hand can still be taken out."""
    if not glob or not glob.strip():
        raise InvalidInput("the glob is empty")
    if to_store:
        from objstore.core.redact import check_name  # deferred: the redaction rules compile at import
        check_name(glob, "glob", where="config.toml", hint="exclude the folder above it, or a glob without it")
    return os.path.normpath(os.path.expanduser(glob.strip()))


def preview(store: Store, glob: str) -> ExcludePreview:
    """Sessions already stored whose working directory ``glob`` matches."""
    cfg = CaptureConfig(exclude=(normalize_glob(glob),))
    out = ExcludePreview(glob)
    for name, oid in store.refs.iter("sessions"):
        chain = list(walk_turns(store, oid))
        cwd = next((tv.turn.cwd for tv in reversed(chain) if tv.turn.cwd), "")   # where it started
        if cwd and path_excluded(cfg, cwd):
            out.sessions.append((name[len("sessions/"):], session_project(chain), cwd, len(chain)))
    return out


def list_exclusions(root: Path) -> list[str]:
    """The globs in force (as ``load_config`` reads them)."""
    return list(load_config(root).exclude)


def _write(root: Path, globs: list[str]) -> None:
    load_config(root)  # refuses a file that is not valid TOML or holds a bad [capture]
    set_value(Path(root) / CONFIG_FILE, "capture", "exclude", globs)


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
    """Remove ``glob`` (also one holding a credential); False when it was not there."""
    g = normalize_glob(glob, to_store=False)
    cur = list_exclusions(root)
    if g not in cur:
        return False
    _write(root, [x for x in cur if x != g])
    return True
