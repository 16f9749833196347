"""Where each transcript file has been read to: :class:`Cursor`, saved under
``<store>/cache/cursors/<h>.json`` (the header) and ``<h>.state`` (the
reader's bookkeeping), ``h`` = :func:`cursor_key` (SHA-256 of the file's
real path, 32 hex); :func:`load_cursor`, :func:`save_cursor`,
:func:`iter_cursors`.  A cache: a lost or older cursor only means reading
the file again (capture is idempotent).

Split from :mod:`objstore.capture.sync` (the incremental sync that moves
them; its module doc describes a cursor), which re-exports :class:`Cursor`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from stat import S_ISDIR, S_ISREG

from objstore.capture.claude_code import ReaderState
from objstore.capture.promptscan import cursor_key   # (the cursor files' names: the prompt hook's snapshot too)
from objstore.core.atomic import CACHE_FILE_MAX_BYTES, SMALL_FILE_MAX_BYTES, atomic_write, read_regular
from objstore.core.fileid import HIDDEN_PREFIX as HIDDEN, hidden_source
from objstore.core.record import Record, set_fields
from objstore.core.store import Store

MSG_FIRST_MAX = 20_000         # message ids remembered per file (oldest dropped)
SECRET_CALLS_MAX = 1_000       # ids of calls printing secret material (ReaderState.secret_calls) kept per file
_CURSOR_V = 1




class Cursor(Record):
    """Where a transcript file has been read to (see the module doc).
    ``stopped``: a Stop hook ran since the last prompt hook read the file:
    the agent's answer is finished, so the next prompt hook reads its
    trailing message too (capture_prompt).  ``hidden``: the path holds a
    text a ``forget --match`` forgot, so the saved header names it by
    ``core.fileid.hidden_source`` (``sha256:`` + hex), never in the clear;
    :func:`load_cursor` gives ``path`` back from its caller's path, and
    :func:`iter_cursors` yields the hidden form."""

    __slots__ = ("path", "dev", "ino", "offset", "fp", "fp_len", "session", "ended", "created", "synced", "skipping",
                 "stopped", "lineage", "reader", "hidden")

    def __init__(self, path: str, dev: int = 0, ino: int = 0, offset: int = 0, fp: str = "", fp_len: int = 0,
                 session: str = "", ended: bool = False, created: int = 0, synced: int = 0, skipping: bool = False,
                 stopped: bool = False, lineage: dict | None = None, reader: ReaderState | None = None,
                 hidden: bool = False) -> None:
        set_fields(self, path, dev, ino, offset, fp, fp_len, session, ended, created, synced, skipping, stopped,
                   {} if lineage is None else lineage, ReaderState() if reader is None else reader, hidden)

    def head(self) -> dict:
        path = self.path if not self.hidden or self.path.startswith(HIDDEN) else hidden_source(self.path)
        return {"v": _CURSOR_V, "path": path, "dev": self.dev, "ino": self.ino,
                "offset": self.offset, "fp": self.fp, "fp_len": self.fp_len, "session": self.session,
                "ended": self.ended, "created": self.created, "synced": self.synced,
                "skipping": self.skipping, "stopped": self.stopped, "lineage": self.lineage}


def _cursor_dir(store: Store) -> Path:
    return store.root / "cache" / "cursors"


def _count(h: dict, name: str) -> int:
    """``h[name]`` when it is a JSON integer >= 0 (not a bool, a float or a
    string of digits); else ValueError naming the field (KeyError when
    absent)."""
    v = h[name]
    if type(v) is not int or v < 0:
        raise ValueError(f"its {name} is not a byte count or number >= 0")
    return v


def parse_head(data: bytes) -> Cursor:
    """The cursor a header file (``<h>.json``) holds, without its reader
    state.  Raises ValueError (with why, never quoting a value: a path may
    hold a credential) when it cannot be used: not JSON, not an object, a
    version other than this mem's, ``path`` not a string, or ``dev``,
    ``ino``, ``offset``, ``fp_len``, ``created``, ``synced`` not an integer
    >= 0 (a negative offset made every later sync of the file fail, test17
    T16).  An unusable cursor is treated as a missing one: the file is read
    again from its start and the turn writer's dedup stores nothing twice."""
    try:
        h = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise ValueError("it is not JSON") from None
    if not isinstance(h, dict):
        raise ValueError("it is not a JSON object")
    if h.get("v") != _CURSOR_V:
        raise ValueError("it was written by another version of mem")
    try:
        if not isinstance(h["path"], str):
            raise ValueError("its path is not a string")
        if not isinstance(h.get("lineage") or {}, dict):
            raise ValueError("its lineage is not an object")
        return Cursor(path=h["path"], dev=_count(h, "dev"), ino=_count(h, "ino"), offset=_count(h, "offset"),
                      fp=str(h["fp"]), fp_len=_count(h, "fp_len"), session=str(h.get("session", "")),
                      ended=bool(h.get("ended")), created=_count({"created": h.get("created", 0)}, "created"),
                      synced=_count({"synced": h.get("synced", 0)}, "synced"), skipping=bool(h.get("skipping")),
                      stopped=bool(h.get("stopped")), lineage=dict(h.get("lineage") or {}))
    except KeyError as e:
        raise ValueError(f"its {e.args[0]} is missing") from None


def load_cursor(store: Store, path: Path, *, with_state: bool = True) -> Cursor | None:
    """The saved cursor of a transcript file, or None (none saved, or one
    :func:`parse_head` finds unusable: the file is read again from 0)."""
    base = _cursor_dir(store) / cursor_key(path)
    try:
        cur = parse_head(read_regular(base.with_suffix(".json"), SMALL_FILE_MAX_BYTES))
    except (OSError, ValueError):   # a FIFO, a device, a folder or a huge file: never waited on (test18b V2)
        return None
    if cur.path.startswith(HIDDEN):   # named by hash (Cursor.hidden): the file is the one asked for
        cur.path, cur.hidden = os.path.realpath(path), True
    if with_state:
        try:
            r = json.loads(read_regular(base.with_suffix(".state"), CACHE_FILE_MAX_BYTES))
            if "prev_prompt" not in r:
                raise ValueError("a cursor of an older mem: read the file again for prev_prompt")
            cur.reader = ReaderState(msg_first=dict(r.get("msg_first", {})), prompts=dict(r.get("prompts", {})),
                                     prompt_ids=dict(r.get("prompt_ids", {})),
                                     last_prompt=str(r.get("last_prompt", "")),
                                     prev_prompt=str(r.get("prev_prompt", "")),
                                     answer_done=str(r.get("answer_done", "")),
                                     secret_calls=[str(i) for i in r.get("secret_calls", [])])
        except (OSError, ValueError, TypeError, AttributeError):
            cur.offset = 0          # bookkeeping lost: read the file again (idempotent)
            cur.fp = ""
            cur.fp_len = 0
    return cur


def cursor_saved(store: Store, path: Path) -> bool:
    """Whether a cursor of the transcript ``path`` is saved (one stat)."""
    return (_cursor_dir(store) / cursor_key(path)).with_suffix(".json").exists()


def save_cursor(store: Store, cur: Cursor) -> None:
    """Write a cursor (not fsynced: a lost cursor only means reading again).
    A hidden one (``cur.hidden``) names its path by hash."""
    base = _cursor_dir(store) / cursor_key(Path(cur.path))
    mf = cur.reader.msg_first
    if len(mf) > MSG_FIRST_MAX:
        mf = dict(list(mf.items())[-MSG_FIRST_MAX:])
    state = {"msg_first": mf, "prompts": cur.reader.prompts, "prompt_ids": cur.reader.prompt_ids,
             "last_prompt": cur.reader.last_prompt, "prev_prompt": cur.reader.prev_prompt,
             "answer_done": cur.reader.answer_done, "secret_calls": cur.reader.secret_calls[-SECRET_CALLS_MAX:],
             "offset": cur.offset, "dev": cur.dev, "ino": cur.ino}  # what prompt_snapshot reads alone
    atomic_write(base.with_suffix(".state"), json.dumps(state).encode(), durable=False)
    atomic_write(base.with_suffix(".json"), json.dumps(cur.head()).encode(), durable=False)


def iter_cursors(store: Store) -> Iterator[Cursor]:
    """Every saved, usable cursor (headers only; a hidden one's ``path`` is
    its ``sha256:`` form); :func:`unusable_cursors` names the others."""
    for _name, cur in _headers(store):
        if isinstance(cur, Cursor):
            yield cur


def unusable_cursors(store: Store) -> list[tuple[str, str]]:
    """``(cursor file name, why)`` of each saved header that
    :func:`parse_head` refuses (damaged, or another mem's), or whose header
    or ``<h>.state`` is not a regular file (a FIFO, a device, a folder,
    also through a symlink) or is larger than its cap (test18b V2): harmless to
    capture (the transcript is read again from its start, storing nothing
    twice) but a sign of damage; ``mem doctor`` names them and ``--fix``
    removes them (:func:`drop_cursor`)."""
    return [(name, why) for name, why in _headers(store) if isinstance(why, str)]


def drop_cursor(store: Store, name: str) -> bool:
    """Remove the cursor ``<name>`` (``<h>.json``, as
    :func:`unusable_cursors` names it) and its ``<h>.state``; True when the
    header was there.  Only a cursor file name is accepted (ValueError
    otherwise)."""
    if not name.endswith(".json") or "/" in name or name.startswith("."):
        raise ValueError("not a cursor file name")
    base = _cursor_dir(store) / name
    _remove(base.with_suffix(".state"))
    return _remove(base)


def _remove(p: Path) -> bool:
    """Remove ``p`` (a file, a symlink, a FIFO, or a real folder with what
    it holds); False when it was not there."""
    try:
        if S_ISDIR(os.lstat(p).st_mode):
            import shutil   # doctor --fix only: not on the hooks' import path
            shutil.rmtree(p)
        else:
            p.unlink()
        return True
    except FileNotFoundError:
        return False


def _state_unusable(p: Path) -> str | None:
    """Why the ``<h>.state`` file ``p`` cannot be read (not a regular file,
    or larger than its cap), from one stat; None when it can or is absent."""
    try:
        st = os.stat(p)
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"its state file cannot be read ({e.strerror})"
    if not S_ISREG(st.st_mode):
        return "its state file is not a regular file"
    if st.st_size > CACHE_FILE_MAX_BYTES:
        return f"its state file is larger than {CACHE_FILE_MAX_BYTES:,} bytes"
    return None


def _headers(store: Store) -> Iterator[tuple[str, Cursor | str]]:
    """``(file name, cursor or why it is unusable)`` of each ``*.json`` in the
    cursor folder, sorted by name.  Read by ``core.atomic.read_regular``: a
    FIFO, a device (a symlink to ``/dev/zero``), a folder or a file over the
    cap is unusable, never waited on or read whole (test18b V2); one that
    vanished meanwhile is skipped."""
    d = _cursor_dir(store)
    try:
        names = sorted(os.listdir(d))
    except FileNotFoundError:
        return
    for n in names:
        if n.endswith(".json") and not n.startswith("."):
            try:
                data = read_regular(d / n, SMALL_FILE_MAX_BYTES)
            except FileNotFoundError:
                continue
            except OSError as e:
                yield n, f"it cannot be read ({e.strerror})"
                continue
            try:
                cur = parse_head(data)
            except ValueError as e:
                yield n, str(e)
                continue
            why = _state_unusable((d / n).with_suffix(".state"))
            if why is not None:
                yield n, why
                continue
            cur.hidden = cur.path.startswith(HIDDEN)
            yield n, cur
