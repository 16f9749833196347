"""What a folder's git repository is, read from its files (git itself is
never run): its project identity (:func:`identity_of`: the remote
``host/owner/repo``, else the main work tree's path), its names, and its
birth (:func:`repo_birth`: what tells one repository from another wherever
it lies, and :func:`same_repository`: a move by copy).  Split from
``objstore.memory.scope`` (its size), which re-exports these names and
holds the project registry built on them (docs/design.md "Project
identity").
"""

from __future__ import annotations

import os
from pathlib import Path

from objstore.core.errors import InvalidInput
from objstore.core.record import Frozen, set_fields
from objstore.core.refs import MAX_FILE_BYTES, MAX_SEGMENT_BYTES, escape_name, validate_key
from objstore.core.text import LazyPattern

_REMOTE_RE = LazyPattern(r'^\s*\[\s*remote\s+"([^"]*)"\s*\]\s*$')
_SECTION_RE = LazyPattern(r"^\s*\[")
#: what separates a remote URL's path components (``/``, ``:``, ``\\``); a ``.git`` file's ``gitdir:`` line
_URL_PARTS = LazyPattern(r"[/:\\]")
_GITDIR_LINE = LazyPattern(r"\s*gitdir:\s*(.+?)\s*$", 8)   # re.M
_URL_RE = LazyPattern(r"^\s*url\s*=\s*(.*?)\s*$")


def clean_name(name: str) -> str:
    """A project name usable as a key segment (``refs.validate_key``'s
    rules): NFC; ``/``, ``\\`` and ``@`` (``KEY@vN``'s separator) replaced by
    ``-``, so a folder ``svc@v2`` is project ``svc-v2``; surrounding
    whitespace and leading dots removed, a trailing ``.lock`` dropped, cut
    to what a ref folder name holds; ``""`` when nothing usable is left
    (control or invisible formatting characters, lone surrogates)."""
    import unicodedata
    name = unicodedata.normalize("NFC", name)
    name = name.strip().replace("/", "-").replace("\\", "-").replace("@", "-").lstrip(".").strip()
    while name.endswith(".lock"):
        name = name[: -len(".lock")].strip()
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs") for c in name):
        return ""
    while name and (len(name.encode("utf-8")) > MAX_SEGMENT_BYTES
                    or len(escape_name(name).encode("utf-8")) > MAX_FILE_BYTES):
        name = name[:-1].rstrip().rstrip(".")
    try:
        validate_key(f"project/{name}/x")
    except InvalidInput:
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
    last = _URL_PARTS.split(u)[-1] if u else ""
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
                m = _GITDIR_LINE.match(text)
                if not m:
                    return d, dot
                gd = Path(m.group(1))
                gd = gd if gd.is_absolute() else (d / gd)
                common = gd / "commondir"
                if common.is_file():
                    c = Path(common.read_text(encoding="utf-8", errors="replace").strip())
                    gd = c if c.is_absolute() else (gd / c)
                return d, Path(os.path.normpath(gd))
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


class ProjectIdentity(Frozen):
    """Who a project is (module doc).

    Attributes:
        id: ``host/owner/repo`` of its remote, else ``path:<absolute path>``.
        name: its short name (repository or folder name).
        qualified: the name it takes when ``name`` belongs to another
            identity (``owner-repo``, ``parent-folder``).
        folder: the main work tree's folder name (an older alias).
        top: the main work tree's absolute path (the directory itself
            outside git): the folder a registry entry is carried over by
            (:func:`predecessors`).
        git: the repository's git directory ("" outside git): where its
            :func:`repo_birth` is read.
        link: the main work tree's path as reached when a symlink led
            there (``~/app`` -> ``~/src/app``: ``top`` is the resolved
            path), else "": a path identity registered under that path
            (before session 33) is an earlier identity of it.
    """

    __slots__ = ("id", "name", "qualified", "folder", "top", "git", "link")

    def __init__(self, id: str, name: str, qualified: str, folder: str, top: str = "", git: str = "",
                 link: str = "") -> None:
        set_fields(self, id, name, qualified, folder, top, git, link)


_SCHEME_RE = LazyPattern(r"^[a-z][a-z0-9+.-]*://", 2)   # re.I
#: the host part of the scp form (``user@host:path``), and a Windows drive (``C:\\``), which is not one
_SCP_HOST = LazyPattern(r"^[^/\\]+:")
_DRIVE = LazyPattern(r"^[A-Za-z]:[\\/]")


def remote_identity(url: str) -> str:
    """``host/owner/repo`` of a git remote URL, lower-cased, without
    credentials, scheme, port or ``.git``: ``https://tok@github.com/Acme/api.git``
    and ``git@github.com:acme/api`` -> ``github.com/acme/api``; a local path
    remote -> ``path:<path>``; ``""`` for none."""
    u = url.strip().rstrip("/")
    if u.endswith(".git"):
        u = u[:-4].rstrip("/")
    if not u:
        return ""
    if u.lower().startswith("file://"):
        return "path:" + u[len("file://"):]
    if _SCHEME_RE.match(u):
        rest = u.split("://", 1)[1]
        host, _, path = rest.partition("/")
    elif _SCP_HOST.match(u) and not _DRIVE.match(u):   # scp form user@host:path
        host, _, path = u.partition(":")
    else:
        return "path:" + u
    host = host.rsplit("@", 1)[-1].split(":", 1)[0].lower()
    path = "/".join(x for x in path.split("/") if x)
    return f"{host}/{path}".lower() if path else host


_PROC_FD = "/proc/self/fd/"


def real_path(path: str) -> str:
    """``path`` with its symlinks resolved (``os.path.realpath``), read
    where the system offers it from the open folder (``/proc/self/fd``:
    three system calls, not one ``lstat`` per component); ``path``
    itself's ``realpath`` for a folder that cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_PATH", 0))
    except (OSError, ValueError):
        return os.path.realpath(path)
    try:
        got = os.readlink(_PROC_FD + str(fd))
    except OSError:
        got = ""
    finally:
        os.close(fd)
    return got if got.startswith("/") and not got.endswith(" (deleted)") else os.path.realpath(path)


def identity_of(cwd: str | os.PathLike | None) -> ProjectIdentity | None:
    """The :class:`ProjectIdentity` of working directory ``cwd``, or None
    (no cwd, or ``/``).  A linked worktree maps to its main work tree.  The
    repository is found along ``cwd`` as given (a symlinked subfolder stays
    in its repository), then its top is resolved (``os.path.realpath``): a
    repository reached through a symlinked path (``ln -s ~/src/app ~/app;
    cd ~/app``) is the one project its real path is (test32b Y17; the
    path as reached is ``link``); outside git, ``cwd`` itself is resolved.
    A few ``lstat`` calls more than the walk."""
    if not cwd:
        return None
    p = Path(os.path.abspath(os.fspath(cwd)))
    found = _git_dirs(p)
    if found is None:
        real = Path(real_path(str(p)))
        found = _git_dirs(real) if real != p else None
        if found is None:
            name = clean_name(real.name)
            if not name:
                return None
            return ProjectIdentity(f"path:{real}", name, clean_name(f"{real.parent.name}-{real.name}") or name, name,
                                   str(real), "", str(p) if real != p else "")
    top, git_dir = found
    if git_dir.name == ".git" and git_dir.parent != top:   # a linked worktree: the main work tree
        top = git_dir.parent
    seen = str(top)
    real = real_path(seen)
    top, link = (top, "") if real == seen else (Path(real), seen)
    remote = _remote_url(git_dir)
    rid = remote_identity(remote) if remote else ""
    folder = clean_name(top.name)
    if rid and not rid.startswith("path:"):
        name = repo_name_from_url(remote) or folder
        parts = rid.split("/")
        owner = parts[-2] if len(parts) >= 3 else parts[0]
        return ProjectIdentity(rid, name, clean_name(f"{owner}-{name}") or name, folder, str(top), str(git_dir), link)
    if rid:
        name = repo_name_from_url(remote) or folder
        return ProjectIdentity(rid, name, clean_name(f"{Path(rid[5:]).parent.name}-{name}") or name, folder, str(top),
                               str(git_dir), link)
    if not folder:
        return None
    return ProjectIdentity(f"path:{top}", folder, clean_name(f"{top.parent.name}-{top.name}") or folder, folder, str(top),
                           str(git_dir), link)


def repo_birth(ident: ProjectIdentity) -> str:
    """What tells a repository without a remote from another one wherever
    it lies (test30c T16: moved, or a parent folder renamed):
    ``"<mtime ns>:<device>:<inode>"`` of its git directory's
    ``description``, a file ``git init`` and ``git clone`` write once and
    git never writes again, whose time ``mv``, ``cp -a`` and ``rsync -a``
    keep; ``""`` outside git, for a repository without it (an empty
    template) or when it cannot be read.  One ``stat``; never runs git.
    Two repositories agree (:func:`same_birth`) when the times are equal
    and, on one device, the inode too."""
    if not ident.git:
        return ""
    try:
        st = os.stat(os.path.join(ident.git, "description"))
    except OSError:
        return ""
    return f"{st.st_mtime_ns}:{st.st_dev}:{st.st_ino}"


def git_witness(ident: ProjectIdentity) -> str:
    """A second mark of a repository's birth, for a ``description`` file a
    tool rewrote (``sed -i``: another inode and time, test32b Y16):
    ``"<device>:<inode>:<mtime ns>:<inode>"`` of its git directory and of
    its ``info/exclude``, a file ``git init`` and ``git clone`` write once
    beside ``description``; a new repository made in the folder (``rm -rf
    .git; git init``) has another.  ``""`` outside git, without that file
    or when it cannot be read.  Two ``stat`` calls; never runs git."""
    if not ident.git:
        return ""
    try:
        d, f = os.stat(ident.git), os.stat(os.path.join(ident.git, "info", "exclude"))
    except OSError:
        return ""
    return f"{d.st_dev}:{d.st_ino}:{f.st_mtime_ns}:{f.st_ino}"


def cloned_from(ident: ProjectIdentity) -> str:
    """The identity (:func:`remote_identity`) of the remote the repository
    was cloned from, as ``git clone`` wrote it in the first line of its
    ``logs/HEAD`` (``… clone: from <url>``, credentials dropped); ``""``
    for a repository not cloned, without that log (an empty clone,
    ``core.logAllRefUpdates`` off) or when it cannot be read.  Reads one
    line; never runs git."""
    if not ident.git:
        return ""
    try:
        with open(os.path.join(ident.git, "logs", "HEAD"), "rb") as f:
            line = f.readline(4096).decode("utf-8", "replace")
    except OSError:
        return ""
    _, sep, msg = line.rstrip("\n").partition("\t")
    return remote_identity(msg[len("clone: from "):]) if sep and msg.startswith("clone: from ") else ""


def same_birth(a: str, b: str) -> bool:
    """Whether two :func:`repo_birth` values are one repository's: the same
    nanosecond time, and the same inode when on the same device (two
    repositories made in one clock tick on one disk differ there; a move
    to another disk keeps the time, not the inode).  A value not of the
    shape ``time:device:inode`` (a hand-edited or damaged registry) is no
    repository's: False (test31b V6: a crash on every new repository)."""
    pa, pb = str(a or "").split(":"), str(b or "").split(":")
    if len(pa) != 3 or len(pb) != 3 or not all(pa + pb):
        return False
    (ta, da, ia), (tb, db, ib) = pa, pb
    return ta == tb and (da != db or ia == ib)


def time_copied(ident: ProjectIdentity) -> bool:
    """Whether the repository's ``description`` had its time set after it
    was written (its change time is not its modification time): what ``cp
    -a``, ``tar xp`` and ``rsync -a`` do to a copy, and what ``git init``
    and ``git clone`` never do (they write it once: both times equal).
    False when it cannot be read."""
    try:
        st = os.stat(os.path.join(ident.git, "description")) if ident.git else None
    except OSError:
        return False
    return st is not None and st.st_ctime_ns != st.st_mtime_ns


def same_repository(recorded: str, now: str, copied: bool) -> bool:
    """Whether a repository whose :func:`repo_birth` is ``now`` is the one
    recorded as ``recorded``: :func:`same_birth`, or -- for a repository
    whose times a copying tool set (``copied``, :func:`time_copied`) --
    the same time with another inode, to the nanosecond or as a tool that
    keeps only microseconds or seconds (GNU ``tar``'s default format) cuts
    it: a move by copy (test31c W6).  Two repositories ``git init`` made
    in one clock tick on one disk share the time but not the inode, and
    their times were not set by a copy, so they stay two."""
    if same_birth(recorded, now):
        return True
    pa, pb = str(recorded or "").split(":"), str(now or "").split(":")
    if not copied or len(pa) != 3 or len(pb) != 3 or not all(pa + pb) or not (pa[0] + pb[0]).isdigit():
        return False
    tr, tn = int(pa[0]), int(pb[0])
    return any(tn % cut == 0 and tn == tr - tr % cut for cut in (1, 1000, 10 ** 9))
