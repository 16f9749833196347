"""What may be captured: the ``[capture]`` settings of ``config.toml``
(exclusions, the ignore marker), the sessions marked never to capture
(``MEM_NO_CAPTURE``), and the one check that combines them with forgotten
sessions (:func:`capture_refused`).  Read by the transcript sync, the
prompt and shell hooks and the sub-agent rollups (``capture.rollup``),
which sync itself calls: so it sits below both."""

from __future__ import annotations

import os
from pathlib import Path

from objstore.core.atomic import CACHE_FILE_MAX_BYTES, SMALL_FILE_MAX_BYTES, read_regular
from objstore.core.errors import InvalidInput
from objstore.core.record import Frozen, set_fields
from objstore.core.refs import validate_session_id
from objstore.core.store import Store
from objstore.core.text import fold

CONFIG_FILE = "config.toml"
NO_CAPTURE_FILE = "no-capture"
DEFAULT_MARKER = "#nomem"


class CaptureConfig(Frozen):
    """The ``[capture]`` table of ``<store>/config.toml``::

        [capture]
        exclude = ["~/clients/secret/**", "/tmp/*"]   # project paths never captured
        ignore_marker = "#nomem"                       # a prompt starting with it is not captured

    ``exclude``: globs matched (``fnmatch``, ``*`` also crosses ``/``) against
    the session's working directory; a pattern also covers everything below
    it (``/a/b`` excludes ``/a/b/c``); ``~`` is expanded.
    ``ignore_marker``: a prompt whose first non-blank characters are the
    marker is not captured, and neither is the agent's answer to it (until
    the next prompt); no memory is injected for it either.
    """

    __slots__ = ("exclude", "ignore_marker")

    def __init__(self, exclude: tuple[str, ...] = (), ignore_marker: str = DEFAULT_MARKER) -> None:
        set_fields(self, exclude, ignore_marker)


def load_config(root: Path) -> CaptureConfig:
    """Read ``<root>/config.toml`` (missing file = defaults).

    A file that is not valid TOML (or UTF-8) but cannot hold ``[capture]``
    settings (``objstore.core.settings.capture_unaffected``) gives the
    defaults: capture goes on, and the person learns of the file from
    ``settings.config_problem`` (commands' warning, the session-start
    hook).  Raises InvalidInput, naming the file and line, when it may hold
    them or holds ``[capture]`` values of the wrong types (capture then
    stops: an exclusion that cannot be read must not be ignored)."""
    p = Path(root) / CONFIG_FILE
    try:
        raw = read_regular(p, SMALL_FILE_MAX_BYTES)   # a FIFO or a device: unreadable, never waited on
    except FileNotFoundError:
        return CaptureConfig()
    except OSError as e:
        raise InvalidInput(f"{p} cannot be read: {e.strerror}") from None
    from objstore.core.settings import capture_settings, parse_config  # defer: a store with a config.toml only
    doc, problem = parse_config(p, raw)
    if problem is not None:
        if not problem.capture_stopped:
            return CaptureConfig()
        where = f"{p} line {problem.line}" if problem.line else str(p)
        raise InvalidInput(f"{where}: {problem.reason}", hint="fix or remove the file")
    excl, marker = capture_settings(doc, p)  # type: ignore[arg-type]
    pats = tuple(os.path.normpath(os.path.expanduser(x.strip())) for x in excl)
    pats = tuple(dict.fromkeys(pats + tuple(_resolved(x) for x in pats)))   # a symlinked folder: its target too
    return CaptureConfig(exclude=pats, ignore_marker=DEFAULT_MARKER if marker is None else marker.strip())


def path_excluded(cfg: CaptureConfig, cwd: str) -> bool:
    """True when ``cwd`` matches an exclude glob or lies below one; a glob
    ``DIR/**`` also matches ``DIR`` itself.  Symlinks count both ways: a
    pattern naming a symlinked folder also excludes its target, and a
    ``cwd`` reached through a symlink is matched as typed and resolved."""
    if not cfg.exclude or not cwd:
        return False
    import fnmatch   # (an exclusion set only: fnmatch imports re, ~20 M instructions of a prompt hook)
    for c in dict.fromkeys((os.path.normpath(cwd), _resolved(cwd))):   # as typed, and through symlinks
        for pat in cfg.exclude:
            if fnmatch.fnmatchcase(c, pat) or fnmatch.fnmatchcase(c, pat.rstrip("/") + "/*"):
                return True
            if pat.endswith("/**") and fnmatch.fnmatchcase(c, pat[:-3] or "/"):
                return True           # DIR/** covers DIR itself, as gitignore's users expect
    return False


def _resolved(path: str) -> str:
    """``path`` with its symlinks resolved, the glob part of a pattern kept:
    the longest leading part without ``*?[`` goes through ``os.path.realpath``
    (a folder that does not exist stays as it is)."""
    parts = path.split(os.sep)
    n = next((i for i, p in enumerate(parts) if any(ch in p for ch in "*?[")), len(parts))
    head = os.sep.join(parts[:n]) or os.sep
    try:
        real = os.path.realpath(head)
    except (OSError, ValueError):
        return path
    return os.path.join(real, *parts[n:]) if n < len(parts) else real


def has_marker(cfg: CaptureConfig, text: str) -> bool:
    """True when ``text`` starts (after blanks) with the ignore marker, in any
    case or Unicode form (``text.fold``: NFC + casefold, the one
    normalization for matching): ``#NOMEM`` is ``#nomem``."""
    return bool(cfg.ignore_marker) and fold(text.lstrip()[:len(cfg.ignore_marker) * 4 + 16]).startswith(
        fold(cfg.ignore_marker))


def mark_no_capture(store: Store, sid: str) -> None:
    """Record that session ``sid`` must never be captured (``MEM_NO_CAPTURE=1``)."""
    sid = validate_session_id(sid)
    if sid in no_capture_sessions(store):
        return
    with open(store.root / NO_CAPTURE_FILE, "a", encoding="utf-8") as f:
        f.write(sid + "\n")
        f.flush()
        os.fsync(f.fileno())


def no_capture_sessions(store: Store) -> set[str]:
    """Session ids recorded by :func:`mark_no_capture`."""
    try:
        raw = read_regular(store.root / NO_CAPTURE_FILE, CACHE_FILE_MAX_BYTES)   # a FIFO: never waited on
        return set(raw.decode("utf-8").split("\n")) - {""}
    except FileNotFoundError:
        return set()


def no_capture_of(sid: str, ids: set[str]) -> bool:
    """Whether session ``sid`` or its parent (``<parent>.agent-*``) is among
    ``ids`` (:func:`no_capture_sessions`)."""
    return bool(ids) and (sid in ids or sid.split(".", 1)[0] in ids)


def capture_refused(store: Store, session: str, cwd: str = "", *, cfg: CaptureConfig | None = None,
                    no_capture: set[str] | None = None, tombstones: list | None = None) -> str | None:
    """Why nothing of ``session`` (or of a sub-agent of it: ``<id>.agent-*``)
    may be written now, or None: ``"no-capture"`` (:func:`mark_no_capture`
    of it or its parent), ``"excluded"`` (``cwd`` matches an exclusion) or
    ``"forgotten"`` (a ``session:`` tombstone of it or its parent).  The
    keyword arguments are what the caller read already (one read for many
    sessions); else they are read here."""
    root = session.split(".", 1)[0]
    if no_capture_of(session, no_capture_sessions(store) if no_capture is None else no_capture):
        return "no-capture"
    if path_excluded(load_config(store.root) if cfg is None else cfg, cwd):
        return "excluded"
    names = {f"session:{session}", f"session:{root}"}
    from objstore.memory.tombstones import all_tombstones  # defer: a capture's write, not the prompt hook's own
    if any(t.key in names for t in (all_tombstones(store) if tombstones is None else tombstones)):
        return "forgotten"
    return None
