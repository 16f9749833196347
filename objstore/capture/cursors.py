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

from objstore.capture.claude_code import ReaderState
from objstore.core.atomic import atomic_write
from objstore.core.fileid import HIDDEN_PREFIX as HIDDEN, hidden_source
from objstore.core.ids import sha256   # not hashlib: OpenSSL's load costs the prompt hook 2.5-4 ms
from objstore.core.record import Record, set_fields
from objstore.core.store import Store

MSG_FIRST_MAX = 20_000         # message ids remembered per file (oldest dropped)
_CURSOR_V = 1




def text_key(text: str) -> str:
    """32 hex digits of SHA-256 of ``text`` (UTF-8, lone surrogates kept): a
    cursor's file name, a lineage key, a shell line's short id."""
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


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


def cursor_key(path: Path) -> str:
    """The name of ``path``'s cursor files (``<key>.json``, ``<key>.state``):
    :func:`text_key` of its real path."""
    return text_key(os.path.realpath(path))


def load_cursor(store: Store, path: Path, *, with_state: bool = True) -> Cursor | None:
    """The saved cursor of a transcript file, or None."""
    base = _cursor_dir(store) / cursor_key(path)
    try:
        h = json.loads(base.with_suffix(".json").read_bytes())
        if h.get("v") != _CURSOR_V:
            return None
        cur = Cursor(path=str(h["path"]), dev=int(h["dev"]), ino=int(h["ino"]), offset=int(h["offset"]),
                     fp=str(h["fp"]), fp_len=int(h["fp_len"]), session=str(h.get("session", "")),
                     ended=bool(h.get("ended")), created=int(h.get("created", 0)),
                     synced=int(h.get("synced", 0)), skipping=bool(h.get("skipping")),
                     stopped=bool(h.get("stopped")), lineage=dict(h.get("lineage") or {}))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if cur.path.startswith(HIDDEN):   # named by hash (Cursor.hidden): the file is the one asked for
        cur.path, cur.hidden = os.path.realpath(path), True
    if with_state:
        try:
            r = json.loads(base.with_suffix(".state").read_bytes())
            if "prev_prompt" not in r:
                raise ValueError("a cursor of an older mem: read the file again for prev_prompt")
            cur.reader = ReaderState(msg_first=dict(r.get("msg_first", {})), prompts=dict(r.get("prompts", {})),
                                     prompt_ids=dict(r.get("prompt_ids", {})),
                                     last_prompt=str(r.get("last_prompt", "")),
                                     prev_prompt=str(r.get("prev_prompt", "")),
                                     answer_done=str(r.get("answer_done", "")))
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
             "answer_done": cur.reader.answer_done,
             "offset": cur.offset, "dev": cur.dev, "ino": cur.ino}  # what prompt_snapshot reads alone
    atomic_write(base.with_suffix(".state"), json.dumps(state).encode(), durable=False)
    atomic_write(base.with_suffix(".json"), json.dumps(cur.head()).encode(), durable=False)


def iter_cursors(store: Store) -> Iterator[Cursor]:
    """Every saved cursor (headers only; a hidden one's ``path`` is its
    ``sha256:`` form)."""
    d = _cursor_dir(store)
    try:
        names = sorted(os.listdir(d))
    except FileNotFoundError:
        return
    for n in names:
        if n.endswith(".json"):
            try:
                h = json.loads((d / n).read_bytes())
                cur = Cursor(path=str(h["path"]), dev=int(h["dev"]), ino=int(h["ino"]),
                             offset=int(h["offset"]), session=str(h.get("session", "")),
                             ended=bool(h.get("ended")), created=int(h.get("created", 0)))
                cur.hidden = cur.path.startswith(HIDDEN)
            except (OSError, ValueError, KeyError, TypeError):
                continue
            yield cur
