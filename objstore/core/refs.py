"""Refs: named pointers to object ids, updated by compare-and-swap.

Ref names and where they live (``<store>/refs/…``):

* ``facts/<key>`` -> current version of a key.  A key is ``<scope>/<name>``,
  scope ``user``, ``global`` or ``project/<p>``.  The file is
  ``refs/facts/<scope>/<escaped name>`` (:func:`escape_name`): ``%``, ``/``
  and every character that case folding would change (``E``, ``É``, ``ß``)
  are written as ``%XX`` (UTF-8 bytes, upper-case hex), so
  ``project/x/db`` and ``project/x/db/host`` are two files in one directory,
  and ``user/Editor`` and ``user/editor`` are two files even on a
  case-insensitive filesystem (macOS, Windows).  The ``<p>`` of a project
  scope is escaped the same way, and so are session ids.
* ``sessions/<id>`` -> last turn of a session.
* ``tombstones/<id>`` -> a tombstone object (keeps it alive through gc).
* ``queue/<item id>`` -> a review-queue item (``objstore.memory.queue``); the
  item id is ``objects.queue_item_id`` (64 hex), not the object's id.
* ``sealed/<key>`` -> last sealed version of a key (``objstore.vault.sealed``); the
  file layout is the one of ``facts/<key>`` under ``refs/sealed``.

A ref file holds the 64-hex id and a newline.  Updates take ``<file>.lock``
(``atomic.LockFile``), re-read the ref under it and fail with
:class:`RefConflict` when it is not at the expected id.

**Packed refs** (git's ``packed-refs``, one file per namespace): a bulk
move of session refs (:meth:`Refs.set_many_if_equals`, an import's
publish) writes them into one file, ``refs/packed-sessions``, and a bulk
move of fact refs (an import's sub-agent summaries, ``IndexBatch``'s
flush) into ``refs/packed-facts``, instead of one file each (a 65-byte
ref takes a 4 KiB block).  Such a ref is its loose file when there is
one, else its line there.  Any other move of a packed ref (a hook's, a
``remember``, forget's) writes the loose file and takes the line out, so
the file never names an id a ref no longer points at.  Format:
``docs/format.md``, "Refs".
"""

from __future__ import annotations

import errno
import os
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from objstore.core.atomic import SMALL_FILE_MAX_BYTES, LockFile, read_store_file
from objstore.core.errors import CorruptObject, InvalidInput, RefConflict
from objstore.core.ids import is_full_id
from objstore.core.refkeys import (  # noqa: F401  (re-exported: the ref names' rules)
    MAX_FILE_BYTES,
    MAX_KEY_CHARS,
    MAX_SEGMENT_BYTES,
    has_legacy_at,
    key_scope,
    parse_version_spec,
    refuse_if_credential,
    validate_key,
    validate_session_id,
)
from objstore.core.refnames import escape_name, legacy_name, not_utf8, unescape_name
from objstore.core.refsfolders import SCOPE_DIRS, file_above, folder_error, misplaced


def _holds_no_name_char(name: str) -> bool:
    """Whether ``name`` holds what no session id or key may: a control or
    invisible formatting character (``refkeys``' rule: categories Cc, Cf)
    or ``\\`` (test25b U1: a packed file whose line ends became CRLF).
    ``isprintable`` first: one C pass for the usual name (no ``re`` on the
    store-opening path)."""
    return "\\" in name or not name.isprintable() and any(
        unicodedata.category(c) in ("Cc", "Cf") for c in name)

#: ``refs/PACKED_SESSIONS``: packed session refs (module doc)
PACKED_SESSIONS = "packed-sessions"
#: ``refs/PACKED_FACTS``: packed fact refs (module doc; session 9)
PACKED_FACTS = "packed-facts"
#: namespace -> the file under ``refs/`` that packs its refs (a bulk move of
#: refs of one of these namespaces only goes there)
PACKED_FILES = {"sessions": PACKED_SESSIONS, "facts": PACKED_FACTS}


def _packed_line(line: bytes) -> tuple[bytes, bytes] | None:
    """``(64 hex id, name)`` of one line of a packed-refs file (without its
    newline): ``<64 lowercase hex> <name>``, the name one byte or more and
    holding no newline; None for any other line.  A byte test, not a regular
    expression (the readers of every command parse these lines)."""
    if len(line) < 66 or line[64] != 0x20 or b"\n" in line:
        return None
    hex_id = line[:64]
    return (hex_id, line[65:]) if not hex_id.strip(b"0123456789abcdef") else None


#: the most a packed refs file may hold: a larger one is damage, never read whole
PACKED_MAX_BYTES = 1 << 32


def _packed_bytes(p: str | os.PathLike) -> bytes:
    """The bytes of packed refs file ``p`` (``core.atomic.read_store_file``:
    a FIFO, a device or a folder is never waited on nor read).  Raises
    FileNotFoundError when there is none, CorruptObject naming the file when
    it is not a regular file or is over 4 GiB."""
    return read_store_file(p, PACKED_MAX_BYTES, "packed refs")


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
        #: the store still has ref files under their pre-case-escaping names
        #: (config ``ref_names`` 1): read them as a fallback.  Never on a
        #: migrated store, where an old name could reach another ref's file
        #: on a case-insensitive filesystem.
        self.legacy = False
        #: a bulk move of fact refs may go to ``refs/packed-facts`` (store
        #: format 2; a format-1 store keeps a file per fact ref).  Packed
        #: lines are read whatever this says.
        self.pack_facts = True
        self._root_s = os.fspath(root)
        #: namespace -> (inode, size, mtime_ns) of its packed file as parsed, and what it held
        self._packed_key: dict[str, tuple | None] = {}
        self._packed: dict[str, tuple[bytes, dict[str, str], list[tuple[int, bytes]]]] = {}
        #: namespace -> ((inode, size, mtime_ns), content) of its packed file as read by :meth:`_packed_lookup`
        self._packed_raw: dict[str, tuple[tuple, bytes]] = {}

    # -- packed refs ----------------------------------------------------------
    def _packed_state(self, ns: str = "sessions") -> tuple[bytes, dict[str, str], list[tuple[int, bytes]]]:
        """(content, {packed name: id}, [(line number, bad line)]) of the
        packed file of namespace ``ns`` (:data:`PACKED_FILES`), parsed again
        only when the file was replaced or changed; empty when there is
        none.  A packed name is the ref file's path under ``refs/<ns>/``
        (:meth:`_packed_name`)."""
        p = self.root / PACKED_FILES[ns]
        try:
            st = os.stat(p)
        except FileNotFoundError:
            self._packed_key[ns], self._packed[ns] = None, (b"", {}, [])
            return self._packed[ns]
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        if key != self._packed_key.get(ns):
            try:
                data = _packed_bytes(p)
            except FileNotFoundError:
                return self._packed_state(ns)
            table: dict[str, str] = {}
            bad: list[tuple[int, bytes]] = []
            lines = data.split(b"\n")
            # a last line without its newline is cut short (every write ends each line): its
            # name may be a prefix of the real one, so it names no ref (fsck --repair rebuilds it)
            cut = 0 if data.endswith(b"\n") else len(lines)
            for n, line in enumerate(lines[:-1] if not cut else lines, 1):
                m = _packed_line(line)
                try:
                    name = m[1].decode("utf-8") if m else ""
                except UnicodeDecodeError:   # no ref's file name is not UTF-8
                    m = None
                if m is None or n == cut or not self._packed_name_ok(ns, name) or not self._canonical(ns, name):
                    bad.append((n, line))
                    continue
                table[name] = m[0].decode("ascii")
            self._packed_key[ns], self._packed[ns] = key, (data, table, bad)
        return self._packed[ns]

    def _packed_lookup(self, ns: str, name: str) -> str | None:
        """The id the packed file of ``ns`` gives packed name ``name``, as
        ``_packed_state(ns)[1].get(name)`` would, without parsing the whole
        file into a table: the last line ``<64 hex> SP <name> LF`` (a line
        without its newline names no ref; a later line of the same name
        wins, as in the table), found by a byte search.  One ref read of a
        new process (``mem get``, a hook's session head) pays a read of the
        file and one search, not a split and a decode of each of its lines
        (issue 12, "Start-up").  The content is kept per file state, as the
        table is."""
        if ns in self._packed:  # parsed already (a listing)
            return self._packed_state(ns)[1].get(name)
        if not self._packed_name_ok(ns, name):
            return None
        p = f"{self._root_s}/{PACKED_FILES[ns]}"
        try:
            st = os.stat(p)
            needle = b" " + name.encode("utf-8") + b"\n"
        except FileNotFoundError:
            return None
        except UnicodeEncodeError:  # a lone surrogate: no line of the table names it
            return None
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        cached = self._packed_raw.get(ns)
        if cached is None or cached[0] != key:
            try:
                data = _packed_bytes(p)
            except FileNotFoundError:
                return None
            self._packed_raw[ns] = cached = (key, data)
        data = cached[1]
        end = len(data)
        while (at := data.rfind(needle, 0, end)) >= 0:
            start = at - 64
            if start >= 0 and (start == 0 or data[start - 1] == 0x0A):
                m = _packed_line(data[start:at + len(needle) - 1])
                if m is not None:
                    return m[0].decode("ascii")
            end = at + len(needle) - 1   # an earlier match may still end inside this one's name
        return None

    @staticmethod
    def _packed_name_ok(ns: str, name: str) -> bool:
        """Whether ``name`` has the shape of the path of a ref file of
        ``ns`` under ``refs/<ns>/``: a session's escaped id (one segment), a
        fact's ``user/<escaped name>``, ``global/<escaped name>`` or
        ``project/<escaped p>/<escaped name>``; no segment empty, starting
        with ``.`` or ending in ``.lock``.  (Whether its escapes are the
        canonical ones is :meth:`_canonical`'s.)"""
        if "/" not in name:   # one segment (a session's line: ~24,000 a parse at 2M turns), without the split
            return ns == "sessions" and name != "" and name[0] != "." and not name.endswith(".lock")
        segs = name.split("/")
        if any(not x or x.startswith(".") or x.endswith(".lock") for x in segs):
            return False
        if ns == "sessions":
            return len(segs) == 1
        return len(segs) == 2 and segs[0] in ("user", "global") or len(segs) == 3 and segs[0] == "project"

    def _ref_of_packed(self, ns: str, name: str) -> str:
        """The ref name of packed name ``name`` (of the right shape) of
        ``ns``: its segments unescaped, as a listing of the loose files reads
        them."""
        if ns == "sessions":
            return f"sessions/{unicodedata.normalize('NFC', unescape_name(name))}"
        segs = name.split("/")
        scope = segs[0] if len(segs) == 2 else f"project/{unescape_name(segs[1])}"
        return unicodedata.normalize("NFC", f"{ns}/{scope}/{unescape_name(segs[-1])}")

    def _canonical(self, ns: str, name: str) -> bool:
        """Whether packed name ``name`` (of the shape :meth:`_packed_name_ok`
        checks) is the path :meth:`path` writes for the ref it unescapes to.
        A line under another name (``a%2fb``: an id holding '/', ``%73``
        for ``s``, ``%ff``: not UTF-8, a key no key rule allows) names no
        ref: it is damage, as a line that is not ``<id> <name>`` is
        (skipped by every reader and said, ``fsck`` exits 13 naming it,
        :meth:`drop_bad_packed` removes it); so is a name holding what no id
        or key may (a control or invisible formatting character, a
        backslash: a file whose line ends became CRLF, test25b U1).  A name
        that escaping leaves as
        it is but for the ``%2F`` of a key's ``/`` (ASCII, no other ``%``,
        no capital: a session id, most keys) is canonical without
        unescaping and escaping it again (~24,000 session lines a parse at
        2M turns)."""
        if _holds_no_name_char(name):   # a control character or '\\' (a line end made CRLF)
            return False
        if "/" not in name:   # a session's line, without the split
            if name.isascii() and "%" not in name and (name.islower() or name == name.lower()):
                return True
        else:
            head, _, last = name.rpartition("/")
            g = f"{head}/{last.replace('%2F', '/')}"
            if g.isascii() and "%" not in g and g == g.lower():
                return True
        try:
            ref = self._ref_of_packed(ns, name)
            if _holds_no_name_char(ref):   # escaped ones too (test25b U1)
                return False
            return self._spath(ref, escape_name) == f"{self._root_s}/{ns}/{name}"
        except (InvalidInput, UnicodeDecodeError):   # an id holding '/'; an escape of bytes that are not UTF-8
            return False

    def _packed_name(self, ref: str, p: str) -> tuple[str | None, str]:
        """(namespace, packed name) of ``ref`` whose file is ``p``
        (:meth:`_spath`); the namespace is None for a ref of a namespace
        that is never packed."""
        ns = ref.partition("/")[0]
        if ns not in PACKED_FILES:
            return None, ""
        return ns, p[len(self._root_s) + len(ns) + 2:]

    def packed_problems(self) -> list[str]:
        """One line per line of a packed file (``refs/packed-sessions``,
        ``refs/packed-facts``) that is not ``<id> SP <ref file path>``
        (ignored by every reader; ``fsck`` reports them,
        :meth:`drop_bad_packed` removes them)."""
        what = {"sessions": "session", "facts": "fact ref path"}
        out = []
        for ns in PACKED_FILES:
            try:
                lines = self._packed_state(ns)[2]
            except CorruptObject as e:   # not a regular file (a FIFO): named, never waited on
                out.append(f"{e} (damaged packed refs)")
                continue
            out += [f"refs/{PACKED_FILES[ns]} line {n}: not '<id> <{what[ns]}>': {line[:80]!r}" for n, line in lines]
        return out

    def packed_damage(self, ns: str) -> list[str]:
        """``refs/<packed file> line N`` for each line of the packed file of
        ``ns`` (``sessions``, ``facts``) that is not ``<id> SP <ref file
        path>``: the refs those lines held are missing from every listing,
        which notes them as damage (:meth:`objstore.core.store.Store.note_damaged_refs`)."""
        if ns not in PACKED_FILES:
            return []
        return [f"refs/{PACKED_FILES[ns]} line {n}" for n, _line in self._packed_state(ns)[2]]

    def drop_bad_packed(self, quarantine=None) -> list[str]:
        """Rewrite each packed file without its bad lines; returns the ref
        names those lines seem to name (the text after their first space),
        for the caller to restore from their reflogs.  A packed file that
        is no regular file (a folder, a FIFO: it holds no line) is moved
        into ``quarantine`` (``core.salvage.Quarantine``) as
        ``refs-<file name>`` (a folder cannot be unlinked; session 29's
        fresh helper); without one, a file in its place is removed.
        Caller holds the store lock."""
        names = []
        for ns in PACKED_FILES:
            try:
                _data, table, bad = self._packed_state(ns)
            except CorruptObject:   # not a regular file: no line; set aside (``_rebuild`` sets its refs again)
                if quarantine is None:
                    self._write_packed(ns, {})
                    continue
                quarantine.move(self.root / PACKED_FILES[ns], "refs-" + PACKED_FILES[ns])
                self._packed_key.pop(ns, None)
                self._packed.pop(ns, None)
                self._packed_raw.pop(ns, None)
                continue
            if not bad:
                continue
            cut = 0 if _data.endswith(b"\n") else _data.count(b"\n") + 1   # a truncated last line
            for n, line in bad:
                _, sp, rest = line.partition(b" ")
                if not (sp and rest) or n == cut:   # its name may be cut short: never a ref's name
                    continue
                try:
                    text = rest.decode("utf-8")
                    if ns == "sessions":
                        sid = unicodedata.normalize("NFC", unescape_name(text))
                        validate_session_id(sid)
                        names.append(f"sessions/{sid}")
                    elif self._packed_name_ok(ns, text):
                        names.append(self._ref_of_packed(ns, text))
                except (UnicodeDecodeError, InvalidInput):
                    continue
            self._write_packed(ns, table)
        return names

    def _write_packed(self, ns: str, table: dict[str, str]) -> None:
        """Replace the packed file of ``ns`` by ``table`` (packed name -> id):
        lines sorted by name, written through a lock file (fsync, rename,
        directory fsync); an empty table removes the file."""
        with LockFile(self.root / PACKED_FILES[ns], steal_stale=True) as lf:
            if table:
                lf.write(b"".join(f"{table[k]} {k}\n".encode("utf-8") for k in sorted(table)))
            else:
                lf.delete()

    def path(self, ref: str) -> Path:
        """File of a ref name (``facts/<key>``, ``sealed/<key>``,
        ``sessions/<id>``, ``tombstones/<id>``, ``queue/<item id>``)."""
        return self._path(ref, escape_name)

    def path_str(self, ref: str) -> str:
        """:meth:`path` as a string, with no ``Path`` built (a reader's
        set-back check of each key it serves: ``core.setback``)."""
        return self._spath(ref, escape_name)

    def legacy_path(self, ref: str) -> Path:
        """Where a store written before case escaping kept ``ref``
        (:func:`legacy_name`); equal to :meth:`path` for most refs."""
        return self._path(ref, legacy_name)

    def _path(self, ref: str, esc) -> Path:
        return Path(self._spath(ref, esc))

    def _spath(self, ref: str, esc) -> str:
        """:meth:`_path` as a string (joined without ``Path`` objects: a
        forget at a million turns reads ~40,000 refs, and building a
        ``Path`` per ref cost more than reading its file)."""
        root = self._root_s
        ns, _, rest = ref.partition("/")
        if ns in ("facts", "sealed"):
            scope = key_scope(rest)
            name = rest[len(scope) + 1:]
            if scope.startswith("project/"):
                return f"{root}/{ns}/project/{esc(scope[len('project/'):])}/{esc(name)}"
            return f"{root}/{ns}/{scope}/{esc(name)}"
        if ns == "sessions" and rest and "/" not in rest:
            return f"{root}/{ns}/{esc(rest)}"
        if ns in ("tombstones", "queue") and rest and "/" not in rest:
            return f"{root}/{ns}/{rest}"
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
                scope = f"project/{unescape_name(parts[2])}"
            elif len(parts) == 3 and parts[1] != "project":
                scope = parts[1]
            else:
                raise InvalidInput(f"{path} is not a ref")
            name = unicodedata.normalize("NFC", f"{ns}/{scope}/{unescape_name(parts[-1])}")
        elif ns == "sessions" and len(parts) == 2:
            name = unicodedata.normalize("NFC", f"{ns}/{unescape_name(parts[1])}")
        elif ns in ("tombstones", "queue") and len(parts) == 2:
            name = unicodedata.normalize("NFC", f"{ns}/{parts[1]}")
        else:
            raise InvalidInput(f"{path} is not a ref")
        actual = self.root.joinpath(*parts)
        if self.path(name) != actual and not (self.legacy and self.legacy_path(name) == actual):
            raise InvalidInput(f"{path} is not a ref")
        return name

    def read(self, ref: str) -> str | None:
        """The id a ref points at, or None.  Raises CorruptObject for a
        ref file that does not hold an id.  A ref not yet migrated to its
        escaped name (:meth:`migrate_names`) is read from its old name; a
        session or fact ref without a file from its packed file
        (``refs/packed-sessions``, ``refs/packed-facts``)."""
        p = self._spath(ref, escape_name)
        text = self._read_file(ref, p)
        if text is None and self.legacy:
            old = self._spath(ref, legacy_name)
            if old != p:
                text = self._read_file(ref, old)
        if text is None:
            ns, name = self._packed_name(ref, p)
            if ns is not None:
                text = self._packed_lookup(ns, name)
        return text

    def damaged_files(self, ref: str) -> list[Path]:
        """The files of ``ref`` (its name, and its pre-escaping name) that
        exist but do not hold an id: what ``fsck --repair`` sets aside."""
        out = []
        for p in dict.fromkeys([self.path(ref), self.legacy_path(ref)]):
            if not_utf8(str(p)) and os.path.lexists(p):   # a name no key or id has: damage whatever it holds
                out.append(p)
                continue
            try:
                self._read_file(ref, p)
            except CorruptObject:
                out.append(p)
        return out

    @staticmethod
    def _read_file(ref: str, p: "Path | str") -> str | None:
        """The id ref file ``p`` of ``ref`` holds, or None when there is no
        file.  Read by ``core.atomic.read_regular``: a FIFO, a device or a
        folder in its place (also through a symlink) is never waited on nor
        read.  Raises CorruptObject naming the file when it is not a regular
        file, is over 1 MiB or does not hold a 64-hex id; the message gives
        only the file's size, never its bytes (a symlink may lead to a
        credential or to ``/etc/passwd``)."""
        try:
            data = read_store_file(p, SMALL_FILE_MAX_BYTES, f"ref {ref}:")
        except FileNotFoundError:
            return None
        except NotADirectoryError:   # a file in place of a folder above it: every key under it (test40 T9)
            raise folder_error(file_above(p)) from None
        except OSError as e:
            if e.errno == errno.ENAMETOOLONG:   # no ref file can have that name (a long legacy KEY@vN)
                return None
            if e.errno == errno.ELOOP:
                raise CorruptObject(f"ref {ref} is not readable as an id: {p} is a symlink loop") from None
            raise
        try:
            text = data.decode("ascii").strip()
        except UnicodeDecodeError:
            text = ""
        if not is_full_id(text):
            raise CorruptObject(f"ref {ref} ({p}) holds {len(data)} bytes that are not an object id")
        return text

    def migrate_names(self, reflog_root: Path | None = None) -> int:
        """Rename every ref file (and its reflog under ``reflog_root``, i.e.
        ``<store>/logs/refs``) from its pre-case-escaping name to
        :func:`escape_name`'s; returns how many were renamed.  Idempotent;
        the caller holds the store lock.  A crash in between leaves each
        file under one of its two names, and both are read."""
        n = 0
        for base in [self.root] + ([reflog_root] if reflog_root is not None else []):
            for ns in ("facts", "sealed", "sessions"):
                d = base / ns
                if not d.is_dir():
                    continue
                for dirpath, _dirs, files in os.walk(d, topdown=False):
                    for f in files:
                        if f.startswith(".") or f.endswith(".lock"):
                            continue
                        src = Path(dirpath) / f
                        rel = src.relative_to(d).parts
                        new_parts = [escape_name(unescape_name(x)) for x in rel]
                        dst = d.joinpath(*new_parts)
                        if dst != src:
                            dst.parent.mkdir(parents=True, exist_ok=True)
                            os.replace(src, dst)
                            n += 1
                    if Path(dirpath) != d:
                        try:
                            os.rmdir(dirpath)  # an old project folder left empty
                        except OSError:
                            pass
        return n

    def set_if_equals(self, ref: str, expected: str | None, new: str | None) -> None:
        """Move ``ref`` from ``expected`` to ``new`` (None = delete), atomically.

        Raises:
            RefConflict: the ref is not at ``expected`` (None = must not exist).
        """
        p = self.path(ref)
        old = self.legacy_path(ref) if self.legacy else p
        ns, name = self._packed_name(ref, os.fspath(p))
        # (one byte search of the packed file, not a parse of its every line: a new process's remember)
        packed = ns is not None and self._packed_lookup(ns, name) is not None
        with LockFile(p, steal_stale=True) as lf:
            actual = self.read(ref)
            if actual != expected:
                raise RefConflict(ref, expected, actual)
            if new is None:
                if packed:  # out of the packed file first: a crash in between must not bring it back
                    self._unpack(ns, [name])
                lf.delete()
            else:
                lf.write(new.encode("ascii") + b"\n")
        if packed and new is not None:  # the loose file now shadows the line: take it out
            self._unpack(ns, [name])
        if old != p and old.exists():  # the value now lives under the escaped name only
            old.unlink()
            self._prune_empty_dirs(old.parent)
        if new is None:
            self._prune_empty_dirs(p.parent)

    def set_many_if_equals(self, moves: list[tuple[str, str | None, str | None]], sync) -> None:
        """Move several refs, each ``(ref, expected, new)`` as
        :meth:`set_if_equals`, syncing the filesystem (``sync()``) twice in
        all instead of twice per ref: every ``<ref>.lock`` is taken and every
        expected value checked (a RefConflict or a taken lock releases them
        all and moves nothing), the new contents are written, ``sync()``
        makes them durable, each lock is renamed onto its ref (or the ref
        unlinked), and ``sync()`` makes the renames durable.  After a crash
        each ref holds its old or its new id, never a torn one.  A ref listed
        twice is refused (InvalidInput).  Raises RefConflict, StoreLocked."""
        paths = [self.path(ref) for ref, _e, _n in moves]
        if len(set(paths)) != len(paths):
            raise InvalidInput("set_many_if_equals: a ref is listed twice")
        nss = {ref.partition("/")[0] for ref, _e, _n in moves}
        if not self.legacy and len(nss) == 1 and next(iter(nss)) in PACKED_FILES \
                and (self.pack_facts or nss != {"facts"}):
            self._set_many_packed(nss.pop(), moves, paths, sync)
            return
        taken: list[tuple[Path, Path, int]] = []  # (ref path, lock path, fd)
        try:
            for (ref, expected, new), p in zip(moves, paths):
                lock = p.with_name(p.name + ".lock")
                p.parent.mkdir(parents=True, exist_ok=True)
                lock.unlink(missing_ok=True)  # a crash residue: the caller holds the store lock
                taken.append((p, lock, os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)))
                actual = self.read(ref)
                if actual != expected:
                    raise RefConflict(ref, expected, actual)
                if new is not None:
                    os.write(taken[-1][2], new.encode("ascii") + b"\n")
        except BaseException:
            for _p, lock, fd in taken:
                os.close(fd)
                lock.unlink(missing_ok=True)
            raise
        for _p, _lock, fd in taken:
            os.close(fd)
        sync()  # every new content durable before any rename names it
        for (ref, _e, new), (p, lock, _fd) in zip(moves, taken):
            if new is None:
                p.unlink(missing_ok=True)
                lock.unlink(missing_ok=True)
            else:
                os.replace(lock, p)
            old = self.legacy_path(ref) if self.legacy else p
            if old != p and old.exists():
                old.unlink()
                self._prune_empty_dirs(old.parent)
            if new is None:
                self._prune_empty_dirs(p.parent)
        sync()

    def _unpack(self, ns: str, names: list[str]) -> None:
        """Take the packed names ``names`` out of the packed file of ``ns``."""
        table = dict(self._packed_state(ns)[1])
        if any(table.pop(n, None) is not None for n in names):
            self._write_packed(ns, table)

    def _set_many_packed(self, ns: str, moves, paths: list[Path], sync) -> None:
        """:meth:`set_many_if_equals` of refs of one packed namespace ``ns``
        (sessions, facts): the new ids go into its packed file in one atomic
        rewrite, then the loose files of the moved refs (which would shadow
        their lines) are unlinked and ``sync()`` makes that durable.  Every
        expected value is checked first (RefConflict moves none).  After a
        crash a ref holds its old id (its loose file still shadows the new
        line) or its new one, never a torn one."""
        table = dict(self._packed_state(ns)[1])
        names = [self._packed_name(ref, os.fspath(p))[1] for (ref, _e, _n), p in zip(moves, paths)]
        for (ref, expected, _new), p, name in zip(moves, paths, names):
            actual = self._read_file(ref, p)
            if actual is None:
                actual = table.get(name)
            if actual != expected:
                raise RefConflict(ref, expected, actual)
        for (_ref, _e, new), name in zip(moves, names):
            if new is None:
                table.pop(name, None)
            else:
                table[name] = new
        self._write_packed(ns, table)
        for p in paths:
            try:
                p.unlink()
            except FileNotFoundError:
                continue
            self._prune_empty_dirs(p.parent)
        sync()

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
            names = {f for f in os.listdir(self.root / namespace) if not f.startswith(".") and not f.endswith(".lock")}
        except FileNotFoundError:
            names = set()
        if namespace == "sessions":
            names |= set(self._packed_state("sessions")[1])
        return len(names)

    def names(self, namespace: str) -> list[str]:
        """The ref names under ``facts``, ``sealed``, ``sessions``,
        ``tombstones`` or ``queue``, sorted, without reading a ref file
        (:meth:`iter` without the ids: directory listings and the packed
        table); a ref file whose name is not UTF-8 is left out."""
        _packed, names, _badname, _loose, _own, _other = self._listing(namespace)
        return sorted(names)

    def _listing(self, namespace: str, folders: list[str] | None = None) -> tuple[dict, set, set, set, dict, dict]:
        """What :meth:`iter` and :meth:`names` list: ``(packed table, ref
        names, names of loose files that are not UTF-8, names of the loose
        files, ref name -> its packed name when that is canonical as it is,
        ref name -> the other packed names)``.  A file in place of a scope
        or project folder raises CorruptObject (exit 13,
        ``core.refsfolders.folder_error``), unless ``folders`` is a list:
        then its path (``refs/facts/project``) is appended there and the
        keys under it are left out."""
        base = self.root / namespace
        packed = self._packed_state(namespace)[1] if namespace in PACKED_FILES else {}
        if not base.is_dir() and not packed:
            return packed, set(), set(), set(), {}, {}
        names: set[str] = set()  # a ref under its old and its escaped name (mid-migration) is one ref
        badname: set[str] = set()  # loose files whose name is not UTF-8: damage (no key or id has such a name)
        loose: set[str] = set()  # the names of the loose files (the others are read from ``packed`` alone)
        # a packed name that escaping leaves as it is but for the '/' of a key's name (ASCII, no other '%',
        # no capital: a session id, most keys) is its ref's canonical line: the ref is read and looked up
        # without unescaping and escaping it again (~24,000 sessions and ~9,000 keys at 2M turns)
        own: dict[str, str] = {}   # ref name -> such a packed name
        other: dict[str, str] = {}  # ref name -> the other packed names (canonical too: ``_packed_state``)
        for f in packed:
            head, _, last = f.rpartition("/")
            g = f"{head}/{last.replace('%2F', '/')}" if head else f
            if g.isascii() and "%" not in g and g == g.lower():
                own[f"{namespace}/{g}"] = f
            else:
                other[self._ref_of_packed(namespace, f)] = f
        if namespace in ("facts", "sealed"):
            for scope_dir in sorted(os.listdir(base) if base.is_dir() else ()):
                d = base / scope_dir
                if not d.is_dir():   # a file or a FIFO beside the scopes is no ref
                    if scope_dir in SCOPE_DIRS:   # ... but in place of a scope folder: damage (test40 T9)
                        self._bad_folder(f"refs/{namespace}/{scope_dir}", folders)
                    continue
                if scope_dir == "project":
                    entries = sorted(os.listdir(d))
                    subs = [(f"project/{unescape_name(p)}", d / p) for p in entries if (d / p).is_dir()]
                    if len(subs) < len(entries):   # a file in place of a project's folder (test40 T9)?
                        for p in entries:
                            if misplaced(d, p, scope_level=False):
                                self._bad_folder(f"refs/{namespace}/project/{p}", folders)
                else:
                    subs = [(scope_dir, d)]
                for scope, sd in subs:
                    files = [f for f in os.listdir(sd) if not (f.startswith(".") or f.endswith(".lock"))]
                    prefix, joined = f"{namespace}/{scope}/", "".join(files)
                    if joined.isascii() and "%" not in joined and prefix.isascii() and not not_utf8(str(sd)):
                        loose.update([prefix + f for f in files])   # nothing to unescape, NFC and UTF-8 as they are
                        continue
                    for f in files:
                        name = unicodedata.normalize("NFC", f"{namespace}/{scope}/{unescape_name(f)}")
                        (badname if not_utf8(f"{sd}/{f}") else loose).add(name)
            names.update(loose)
            if namespace == "facts":  # the packed lines were checked to have the shape of ref files' paths
                names.update(own)
                names.update(other)
        else:
            esc = unescape_name if namespace == "sessions" else (lambda f: f)
            listed = os.listdir(base) if base.is_dir() else []
            loose = {f"{namespace}/{unicodedata.normalize('NFC', esc(f))}" for f in listed
                     if not f.startswith(".") and not f.endswith(".lock")}
            badname = {n for n in loose if not_utf8(n)}
            loose -= badname
            names = loose | own.keys() | other.keys()
        return packed, names, badname, loose, own, other

    def _bad_folder(self, where: str, folders: list[str] | None) -> None:
        """A file at ``where`` (under the store's root) in place of a scope
        or project folder: raise :func:`folder_error`, or append it to
        ``folders`` when that is a list."""
        if folders is None:
            raise folder_error(self.root.parent / where)
        folders.append(where)

    def iter(self, namespace: str, *, damaged: list[str] | None = None,
             folders: list[str] | None = None) -> Iterator[tuple[str, str]]:
        """``(ref name, id)`` for every ref under ``facts``, ``sealed``,
        ``sessions``, ``tombstones`` or ``queue``, sorted by name.

        A ref file that does not hold an id raises CorruptObject, unless
        ``damaged`` is a list: then its name is appended there and the other
        refs are still yielded (readers go on with the healthy part;
        ``mem fsck --repair`` restores it from its reflog).  A file in
        place of a scope or project folder (``refs/facts/project``: test40
        T9) raises CorruptObject for every reader, unless ``folders`` is a
        list (fsck, doctor, the reachability walk): then its path is
        appended there and the keys under it are left out."""
        packed, names, badname, loose, own, other = self._listing(namespace, folders)
        for name in sorted(names | badname):
            try:
                if name in badname:
                    raise CorruptObject(f"ref {name}: its file name is not UTF-8")
                if name in loose or self.legacy:
                    oid = self.read(name)
                elif name in own:
                    oid = packed[own[name]]
                else:  # no loose file (as listed): its packed line, the canonical one :meth:`read` finds
                    oid = packed.get(other.get(name, ""))
            except CorruptObject:
                if damaged is None:
                    raise
                damaged.append(name)
                continue
            if oid is not None:
                yield name, oid
