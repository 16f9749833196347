"""Scopes: which project a working directory belongs to, and which facts
apply there.

A fact's scope is the start of its key: ``user/…`` and ``global/…`` facts
apply everywhere; ``project/<name>/…`` facts apply in project ``<name>``
only.  Turns carry the project they were captured in (``Turn.project``).

The project of a working directory (:func:`project_of`), first match wins:

1. an explicit override (``mem … --project P``, ``$MEM_PROJECT``; the
   commands read those; this module reads no process settings);
2. the repository name in the URL of the git remote ``origin`` (else the
   first remote) of the enclosing git work tree:
   ``git@github.com:acme/billing-api.git`` -> ``billing-api``;
3. the name of the work tree's top-level folder;
4. the name of the directory itself (no git work tree).

The git files are read directly (``.git`` directory, or a ``.git`` file
``gitdir: …`` for worktrees and submodules, whose ``commondir`` names the
shared config); git itself is never run, so this costs a few ``stat`` calls.

Transcript capture records ``Turn.project`` as the last component of the
agent's cwd (the capture readers see no file system); a project scope
therefore matches turns by every name in :func:`project_aliases`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_REMOTE_RE = re.compile(r'^\s*\[\s*remote\s+"([^"]*)"\s*\]\s*$')
_SECTION_RE = re.compile(r"^\s*\[")
_URL_RE = re.compile(r"^\s*url\s*=\s*(.*?)\s*$")

#: fact scopes that apply in every project
GLOBAL_SCOPES = ("user", "global")


def clean_name(name: str) -> str:
    """A project name usable as a key segment: surrounding whitespace and
    leading dots removed, ``/`` and ``\\`` replaced by ``-``, a trailing
    ``.lock`` dropped; ``""`` when nothing usable is left."""
    name = name.strip().replace("/", "-").replace("\\", "-").lstrip(".").strip()
    while name.endswith(".lock"):
        name = name[: -len(".lock")].strip()
    if any(ord(c) < 32 or c == "\x7f" for c in name):
        return ""
    return name


def repo_name_from_url(url: str) -> str:
    """The repository name of a git remote URL: the last path component
    without ``.git``.  ``https://github.com/acme/api.git`` -> ``api``;
    ``git@host:acme/api`` -> ``api``; ``/srv/git/api.git/`` -> ``api``;
    ``""`` if there is none."""
    u = url.strip().rstrip("/")
    if u.endswith(".git"):
        u = u[:-4]
    last = re.split(r"[/:\\]", u)[-1] if u else ""
    return clean_name(last)


def _git_dirs(start: Path) -> tuple[Path, Path] | None:
    """(work tree top, git dir holding ``config``) of the repository that
    contains ``start``, or None."""
    for d in (start, *start.parents):
        dot = d / ".git"
        try:
            if dot.is_dir():
                return d, dot
            if dot.is_file():
                text = dot.read_text(encoding="utf-8", errors="replace")
                m = re.match(r"\s*gitdir:\s*(.+?)\s*$", text, re.M)
                if not m:
                    return d, dot
                gd = Path(m.group(1))
                gd = gd if gd.is_absolute() else (d / gd)
                common = gd / "commondir"
                if common.is_file():
                    c = Path(common.read_text(encoding="utf-8", errors="replace").strip())
                    gd = c if c.is_absolute() else (gd / c)
                return d, gd
        except OSError:
            return None
    return None


def _remote_url(git_dir: Path) -> str:
    """URL of remote ``origin`` (else of the first remote) in ``config``."""
    try:
        lines = (git_dir / "config").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    urls: dict[str, str] = {}
    current = None
    for line in lines:
        m = _REMOTE_RE.match(line)
        if m:
            current = m.group(1)
            continue
        if _SECTION_RE.match(line):
            current = None
            continue
        if current is not None and current not in urls:
            u = _URL_RE.match(line)
            if u:
                urls[current] = u.group(1).strip().strip('"')
    if "origin" in urls:
        return urls["origin"]
    return next(iter(urls.values()), "")


def project_aliases(cwd: str | os.PathLike | None, *, override: str | None = None) -> tuple[str, ...]:
    """Every name the project of ``cwd`` may go by, the primary one
    (:func:`project_of`) first, without repeats: the override or remote
    name, the work tree's folder name, the cwd's own folder name.  ``()``
    when ``cwd`` is empty and there is no override."""
    names: list[str] = []
    if override is not None and clean_name(override):
        names.append(clean_name(override))
    if cwd:
        p = Path(os.path.abspath(os.fspath(cwd)))
        found = _git_dirs(p)
        if found is not None:
            top, git_dir = found
            remote = _remote_url(git_dir)
            if remote:
                names.append(repo_name_from_url(remote))
            names.append(clean_name(top.name))
        names.append(clean_name(p.name))
    return tuple(n for n in dict.fromkeys(names) if n)


def project_of(cwd: str | os.PathLike | None, *, override: str | None = None) -> str:
    """The project of working directory ``cwd`` (rules in the module doc);
    ``""`` when there is none (no cwd, or ``/``)."""
    names = project_aliases(cwd, override=override)
    return names[0] if names else ""


def key_project(key: str) -> str | None:
    """``project/api/db`` -> ``api``; ``None`` for a user or global key."""
    parts = key.split("/", 2)
    return parts[1] if parts[0] == "project" and len(parts) > 1 else None


def applies(key: str, projects: tuple[str, ...] | list[str] | None) -> bool:
    """Whether the fact ``key`` applies in a project known by ``projects``
    (aliases); ``None`` means every project (``--all-projects``).  User
    and global facts always apply."""
    p = key_project(key)
    return p is None or projects is None or p in projects
