"""Refs: named pointers to object ids, updated by compare-and-swap.

Ref names and where they live (``<store>/refs/…``):

* ``facts/<key>`` -> current version of a key.  A key is ``<scope>/<name>``,
  scope ``user``, ``global`` or ``project/<p>``.  The file is
  ``refs/facts/<scope>/<escaped name>``, where the name escapes ``%`` as ``%25``
  and ``/`` as ``%2F``; so ``project/x/db`` and ``project/x/db/host`` are two
  files in one directory and can never clash as file and directory.
* ``sessions/<id>`` -> last turn of a session.
* ``tombstones/<id>`` -> a tombstone object (keeps it alive through gc).
* ``queue/<item id>`` -> a review-queue item (``objstore.memory.queue``); the
  item id is ``objects.queue_item_id`` (64 hex), not the object's id.
* ``sealed/<key>`` -> last sealed version of a key (``objstore.vault.sealed``); the
  file layout is the one of ``facts/<key>`` under ``refs/sealed``.

A ref file holds the 64-hex id and a newline.  Updates take ``<file>.lock``
(``atomic.LockFile``), re-read the ref under it and fail with
:class:`RefConflict` when it is not at the expected id.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from objstore.core.atomic import LockFile
from objstore.core.errors import CorruptObject, InvalidInput, RefConflict
from objstore.core.ids import is_full_id

MAX_KEY_CHARS = 512
MAX_SEGMENT_BYTES = 200


def _check_segment(seg: str, what: str) -> None:
    if not seg:
        raise InvalidInput(f"{what}: empty path segment (check for '//' or a trailing '/')")
    if seg in (".", ".."):
        raise InvalidInput(f"{what}: '.' and '..' are not allowed as segments")
    if seg.startswith("."):
        raise InvalidInput(f"{what}: a segment may not start with '.'")
    if seg.endswith(".lock"):
        raise InvalidInput(f"{what}: a segment may not end with '.lock'")
    if seg != seg.strip():
        raise InvalidInput(f"{what}: a segment may not start or end with whitespace")
    if len(seg.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES:
        raise InvalidInput(f"{what}: segment longer than {MAX_SEGMENT_BYTES} bytes")


def _check_chars(text: str, what: str) -> None:
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf") or ch == "\\":
            raise InvalidInput(f"{what}: control and invisible formatting characters and '\\' are not allowed")
        if cat == "Cs":
            raise InvalidInput(f"{what}: not valid Unicode (lone surrogate)")


def validate_key(key: str) -> str:
    """Validate a fact key and return it NFC-normalized.

    ``user/editor``, ``global/tz``, ``project/api/db/port`` are keys;
    ``project/api`` (no name), ``/abs``, ``user/../x``, ``other/x`` are not.
    Raises :class:`InvalidInput` with the reason.
    """
    if not isinstance(key, str) or not key:
        raise InvalidInput("key is empty")
    _check_chars(key, f"bad key {key!r}")
    key = unicodedata.normalize("NFC", key)
    if len(key) > MAX_KEY_CHARS:
        raise InvalidInput(f"bad key: longer than {MAX_KEY_CHARS} characters")
    what = f"bad key {key!r}"
    if key.startswith("/"):
        raise InvalidInput(f"{what}: keys are not paths; drop the leading '/'")
    parts = key.split("/")
    for seg in parts:
        _check_segment(seg, what)
    if parts[0] in ("user", "global"):
        n = 1
    elif parts[0] == "project":
        n = 2
    else:
        raise InvalidInput(f"{what}: scope must be user, global or project/<name>",
                           hint="e.g. user/editor, global/timezone, project/api/port")
    if len(parts) <= n:
        raise InvalidInput(f"{what}: missing the name after the scope",
                           hint="e.g. project/api/port")
    if len(_escape("/".join(parts[n:])).encode("utf-8")) > MAX_SEGMENT_BYTES:
        raise InvalidInput(f"{what}: the name after the scope is longer than {MAX_SEGMENT_BYTES} bytes "
                           "(each '/' and '%' counts 3)")
    return key


def key_scope(key: str) -> str:
    """``project/x/db/port`` -> ``project/x``; ``user/a`` -> ``user``."""
    parts = key.split("/")
    return "/".join(parts[:2]) if parts[0] == "project" else parts[0]


def validate_session_id(sid: str) -> str:
    """Validate a session id (one path segment) and return it NFC-normalized."""
    if not isinstance(sid, str) or not sid:
        raise InvalidInput("session id is empty")
    _check_chars(sid, f"bad session id {sid!r}")
    sid = unicodedata.normalize("NFC", sid)
    if "/" in sid:
        raise InvalidInput(f"bad session id {sid!r}: '/' is not allowed")
    _check_segment(sid, f"bad session id {sid!r}")
    return sid


def _escape(name: str) -> str:
    return name.replace("%", "%25").replace("/", "%2F")


def _unescape(name: str) -> str:
    return name.replace("%2F", "/").replace("%25", "%")


def fact_ref(key: str) -> str:
    """Ref name of a (validated) key: ``facts/<key>``."""
    return "facts/" + key


def sealed_ref(key: str) -> str:
    """Ref name of a (validated) sealed key: ``sealed/<key>``."""
    return "sealed/" + key


def session_ref(sid: str) -> str:
    """Ref name of a (validated) session id: ``sessions/<id>``."""
    return "sessions/" + sid


class Refs:
    """The refs of a store under ``root`` (= ``<store>/refs``).

    Callers hold the store-wide lock for updates; per-ref lock files are still
    used so that a crash mid-update never leaves a torn ref.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, ref: str) -> Path:
        """File of a ref name (``facts/<key>``, ``sealed/<key>``,
        ``sessions/<id>``, ``tombstones/<id>``, ``queue/<item id>``)."""
        ns, _, rest = ref.partition("/")
        if ns in ("facts", "sealed"):
            scope = key_scope(rest)
            name = rest[len(scope) + 1:]
            return self.root / ns / scope / _escape(name)
        if ns in ("sessions", "tombstones", "queue") and rest and "/" not in rest:
            return self.root / ns / rest
        raise InvalidInput(f"bad ref name {ref!r}")

    def name_of(self, path: Path) -> str:
        """The ref name of a file under ``root`` (the inverse of :meth:`path`).

        Raises InvalidInput for a path that is not a ref's file (outside the
        root, a lock file, a wrong depth)."""
        try:
            parts = Path(path).relative_to(self.root).parts
        except ValueError:
            raise InvalidInput(f"{path} is not under {self.root}") from None
        if not parts or parts[-1].startswith(".") or parts[-1].endswith(".lock"):
            raise InvalidInput(f"{path} is not a ref")
        ns = parts[0]
        if ns in ("facts", "sealed"):
            if len(parts) == 4 and parts[1] == "project":
                scope = f"project/{parts[2]}"
            elif len(parts) == 3 and parts[1] != "project":
                scope = parts[1]
            else:
                raise InvalidInput(f"{path} is not a ref")
            name = unicodedata.normalize("NFC", f"{ns}/{scope}/{_unescape(parts[-1])}")
        elif ns in ("sessions", "tombstones", "queue") and len(parts) == 2:
            name = unicodedata.normalize("NFC", f"{ns}/{parts[1]}")
        else:
            raise InvalidInput(f"{path} is not a ref")
        if self.path(name) != self.root.joinpath(*parts):
            raise InvalidInput(f"{path} is not a ref")
        return name

    def read(self, ref: str) -> str | None:
        """The id a ref points at, or None.  Raises CorruptObject for a
        ref file that does not hold an id."""
        try:
            text = self.path(ref).read_text("ascii").strip()
        except FileNotFoundError:
            return None
        except (UnicodeDecodeError, IsADirectoryError, NotADirectoryError):
            raise CorruptObject(f"ref {ref} is not readable as an id") from None
        if not is_full_id(text):
            raise CorruptObject(f"ref {ref} holds {text[:80]!r}, not an id")
        return text

    def set_if_equals(self, ref: str, expected: str | None, new: str | None) -> None:
        """Move ``ref`` from ``expected`` to ``new`` (None = delete), atomically.

        Raises:
            RefConflict: the ref is not at ``expected`` (None = must not exist).
        """
        p = self.path(ref)
        with LockFile(p, steal_stale=True) as lf:
            actual = self.read(ref)
            if actual != expected:
                raise RefConflict(ref, expected, actual)
            if new is None:
                lf.delete()
            else:
                lf.write(new.encode("ascii") + b"\n")
        if new is None:
            self._prune_empty_dirs(p.parent)

    def _prune_empty_dirs(self, d: Path) -> None:
        while d != self.root and d.parent != self.root:
            try:
                d.rmdir()
            except OSError:
                return
            d = d.parent

    def count(self, namespace: str) -> int:
        """Number of refs directly under ``sessions``, ``tombstones`` or
        ``queue`` (one directory listing; no ref is read)."""
        try:
            return sum(1 for f in os.listdir(self.root / namespace)
                       if not f.startswith(".") and not f.endswith(".lock"))
        except FileNotFoundError:
            return 0

    def iter(self, namespace: str) -> Iterator[tuple[str, str]]:
        """``(ref name, id)`` for every ref under ``facts``, ``sealed``,
        ``sessions``, ``tombstones`` or ``queue``, sorted by name."""
        base = self.root / namespace
        if not base.is_dir():
            return
        names: list[str] = []
        if namespace in ("facts", "sealed"):
            for scope_dir in sorted(os.listdir(base)):
                d = base / scope_dir
                if scope_dir == "project":
                    subs = [(f"project/{p}", d / p) for p in sorted(os.listdir(d)) if (d / p).is_dir()]
                else:
                    subs = [(scope_dir, d)]
                for scope, sd in subs:
                    for f in sorted(os.listdir(sd)):
                        if f.startswith(".") or f.endswith(".lock"):
                            continue
                        names.append(unicodedata.normalize("NFC", f"{namespace}/{scope}/{_unescape(f)}"))
        else:
            names = [f"{namespace}/{unicodedata.normalize('NFC', f)}" for f in sorted(os.listdir(base))
                     if not f.startswith(".") and not f.endswith(".lock")]
        for name in sorted(names):
            oid = self.read(name)
            if oid is not None:
                yield name, oid
