"""Shell capture (``mem hook shell``, opt-in): one command the person ran
in their shell as a user turn of a ``shell`` session, kept in a spool until
it is stored, and stored in the order the commands were typed.

Split from :mod:`objstore.capture.live` (session 28).  A shell starts one
background writer per command (``hooks/shell/``), numbered by the shell
(``seq``).  Each writer first writes its record to the spool
(``cache/shell-spool/<session>/``, :func:`spool_record`: no lock, one small
file), then one writer at a time (the *drainer*, ``cache/shell-spool.lock``,
taken without waiting) stores every spooled record under the store lock,
each shell's in the order of its numbers, and deletes their files.  So:

* a record made while another process holds the store lock (an import, a
  gc) is not lost when its writer gives up or is stopped: the drainer, or
  the next shell record's writer, stores it (test27b X5);
* a record whose predecessor's writer has not yet written its own (a loaded
  machine starts processes late) waits in the spool, never more than the
  order wait, and is then stored after it (test27 V12; test25 T4).

The spool's file mechanics are shared with the proxy's (:mod:`objstore.core.spool`).
Formats: ``docs/format.md`` (``cache/shell-spool``, ``cache/shell-seq``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from objstore.capture.policy import CaptureConfig, has_marker, load_config, no_capture_of, no_capture_sessions, \
    path_excluded
from objstore.capture.promptscan import text_key
from objstore.capture.sync import project_namer, valid_text
from objstore.capture.transcript import project_of
from objstore.core import spool
from objstore.core.atomic import atomic_write
from objstore.core.errors import StoreLocked
from objstore.core.refs import validate_session_id
from objstore.core.spool import SHELL_SPOOL_DIR
from objstore.core.store import Store
from objstore.memory.appender import TurnAppender
from objstore.memory.sessions import CapturedTurn

#: one file per shell session: the number of its last command handled (:func:`capture_shell`)
SHELL_SEQ_DIR = "cache/shell-seq"
#: a shell's file untouched this long is removed when another shell's first one is made (a shell
#: idle longer loses order for one wait at its next command, never a command)
SHELL_SEQ_KEEP_S = 7 * 86400
#: how often a drainer looks at the spool while a record waits for the one before it (s)
POLL_S = 0.05


def spool_record(root: Path, *, session_id: str, command_line: str, cwd: str, status: int, duration_ms: int,
                 started_ms: int, seq: int = 0, cfg: CaptureConfig | None = None) -> Path | None:
    """Write one shell command's record to the spool of the store at
    ``root``, ``cache/shell-spool/<session>/<seq>-<started ms>-<pid>.json``
    (0600, replaced whole, no lock taken): the turn's text (``$ <line>`` and
    ``[exit N, T s, cwd]``), redacted before it is written, or ``skip`` for
    a record the rules leave out (a line starting with a space, a marked
    one, an excluded folder), which still counts for the shell's order.
    Returns the file (None: a record left out and not numbered, not
    written).  Raises InvalidInput (a bad session id), MemError (an
    unreadable config) and OSError."""
    from objstore.core.redact import redact   # deferred: the rules load only for a record that is kept
    cfg = cfg if cfg is not None else load_config(root)
    sid = validate_session_id(session_id)
    line = valid_text(command_line).rstrip("\n")
    cwd = valid_text(cwd)
    skip = not line.strip() or line[:1].isspace() or has_marker(cfg, line) or path_excluded(cfg, cwd)
    if skip and not seq:
        return None    # nothing to store, no order to keep
    rec = {"session": sid, "seq": max(0, seq), "started_ms": max(0, started_ms), "cwd": cwd,
           "spooled": time.time(), "skip": bool(skip)}
    if not skip:
        # a numbered record's number is in its source: fish gives whole seconds, and a line run twice
        # in one second was the same source, the second dropped (test26b W3)
        key = text_key(line)[:16]
        rec["source"] = f"sh:{rec['started_ms']}:{rec['seq']}:{key}" if seq else f"sh:{rec['started_ms']}:{key}"
        rec["text"] = redact(f"$ {line}\n[exit {status}, {max(0, duration_ms) / 1000:.2f} s, {cwd}]").text
    name = f"{rec['seq']:012d}-{rec['started_ms']}-{os.getpid()}-{os.urandom(3).hex()}.json"
    return spool.write_record(root / SHELL_SPOOL_DIR / sid / name, rec)


def _spooled(root: Path) -> dict[str, list[tuple[Path, dict]]]:
    """The spool's records by session, each session's in the order of its
    numbers (then start times); a file that does not read as a record (a
    torn write is never one: files are replaced whole) is left out and
    deleted."""
    out: dict[str, list[tuple[Path, dict]]] = {}
    base = root / SHELL_SPOOL_DIR
    try:
        sessions = sorted(os.listdir(base))
    except OSError:
        return out
    for sid in sessions:
        try:
            names = sorted(n for n in os.listdir(base / sid) if n.endswith(".json") and not n.startswith("."))
        except OSError:
            continue
        for n in names:
            p = base / sid / n
            rec = spool.read_record(p)
            ok = rec is not None and rec.get("session") == sid and isinstance(rec.get("seq"), int) \
                and isinstance(rec.get("started_ms"), int) and (rec.get("skip") is True or (
                    isinstance(rec.get("text"), str) and isinstance(rec.get("source"), str)))
            if not ok:
                p.unlink(missing_ok=True)
                continue
            out.setdefault(sid, []).append((p, rec))
        out.get(sid, []).sort(key=lambda pr: (pr[1]["seq"], pr[1]["started_ms"], pr[0].name))
    return out


def _store_spooled(store: Store, order_wait_s: float, mine: Path | None) -> tuple[str | None, bool, int]:
    """Under the store lock (the caller holds it): store the spooled
    records that are due, each shell's in the order of its numbers: a
    numbered record is due when the one numbered before it is handled, or
    when it has waited :data:`order_wait_s` seconds in the spool (its
    predecessor's writer failed, or was never started: order is lost, never
    a command).  Returns (the id stored for ``mine``, whether records wait
    still, how many records were given up on order)."""
    now, oid, waiting, lost = time.time(), None, False, 0
    w = TurnAppender(store, command="hook shell", harness="shell")
    done: list[Path] = []
    seqs: dict[str, int] = {}
    blocked = no_capture_sessions(store)
    namer = project_namer(store)   # by the store's registry, registering it, as the hooks name it (test30b S5)
    try:
        for sid, recs in _spooled(store.root).items():
            seq_file = store.root / SHELL_SEQ_DIR / sid
            handled = shell_seq_handled(seq_file)
            for p, rec in recs:
                seq = rec["seq"]
                if seq > handled + 1 and now - float(rec.get("spooled") or 0) < order_wait_s:
                    waiting = True     # the one before it may come yet: this and the later ones wait
                    break
                if seq > handled + 1:
                    lost += 1          # its predecessor never came
                if not rec["skip"] and not no_capture_of(sid, blocked):
                    got = w.add(CapturedTurn(sid, rec["source"], "user", rec["text"], rec["started_ms"],
                                             rec["cwd"], namer(rec["cwd"], project_of(rec["cwd"]))))
                    lost += bool(got and 0 < seq <= handled)    # stored after its successor
                    if p == mine:
                        oid = got
                done.append(p)
                if seq > handled:
                    handled = seqs[sid] = seq
        w.publish(index=False)
    finally:
        w.close()
    for sid, seq in seqs.items():   # after the turns are durable: a stop before re-stores them (their sources)
        seq_file = store.root / SHELL_SEQ_DIR / sid
        if not seq_file.exists():
            _prune_shell_seq(seq_file.parent)
            _prune_shell_seq(store.root / SHELL_SPOOL_DIR, folders=True)
        seq_file.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(seq_file, b"%d\n" % seq)
    for p in done:   # (a session's empty folder stays: a writer may be about to write in it; pruned after 7 days)
        p.unlink(missing_ok=True)
    return oid, waiting, lost


def drain_spool(store: Store, *, order_wait_s: float, deadline_s: float, mine: Path | None = None,
                log=None) -> str | None:
    """Store the spooled shell records (module doc) unless another writer
    drains them now: as the drainer, take the store lock (its own timeout,
    tried again while ``deadline_s`` seconds have not passed), store what is
    due (:func:`_store_spooled`), and while a record waits for the one
    before it, look at the spool every :data:`POLL_S` s; stop when the
    spool is empty or at the deadline (what is left waits for the next
    record's writer).  ``log(str)``: told when order was given up or
    records were left.  Returns the id stored for the record at ``mine``
    (None: stored by another drainer, left out, already stored, or left in
    the spool).  Raises OSError, MemError (not StoreLocked: that is waited
    out to the deadline)."""
    end = time.monotonic() + deadline_s
    oid = None
    while True:
        fd = spool.take_drainer(store.root, SHELL_SPOOL_DIR)
        if fd is None:
            return oid     # the drainer sees this record: it was written before this try
        try:
            waiting = True
            while waiting:
                try:
                    with store.lock("hook shell"):
                        got, waiting, lost = _store_spooled(store, order_wait_s, mine)
                except StoreLocked:
                    if time.monotonic() >= end:
                        raise
                    continue
                oid = oid or got
                if lost and log is not None:
                    log(f"order-lost:{lost}")
                if waiting:
                    seen = spool.waiting(store.root, SHELL_SPOOL_DIR)
                    while time.monotonic() < end and spool.waiting(store.root, SHELL_SPOOL_DIR) == seen:
                        time.sleep(POLL_S)
                        if spool.oldest_waited(store.root, SHELL_SPOOL_DIR) >= order_wait_s:
                            break
                if time.monotonic() >= end:
                    if waiting and log is not None:
                        log("left-in-spool")
                    return oid
        finally:
            spool.let_go(fd)
        # a record written after the last look and before the drainer lock was let go had its writer
        # find the drainer busy: look once more
        if not spool.waiting(store.root, SHELL_SPOOL_DIR) or time.monotonic() >= end:
            return oid


def spool_waiting(root: Path) -> int:
    """How many shell records are in the spool of the store at ``root``
    (``cache/shell-spool``): not stored yet (a writer may be storing them
    now; when their writers stopped before the store lock was free, the
    next shell record's writer stores them).  Takes no lock: a writer that
    finds the drainer's flock taken leaves its record to its holder."""
    return spool.waiting(root, SHELL_SPOOL_DIR)


def capture_shell(store: Store, *, session_id: str, command_line: str, cwd: str, status: int,
                  duration_ms: int, started_ms: int, cfg: CaptureConfig | None = None, seq: int = 0,
                  order_wait_s: float = 0.0, deadline_s: float | None = None, log=None) -> str | None:
    """Store one command the person ran in their shell as a user turn of a
    ``shell`` session: the command line (redacted), then ``[exit N, T s,
    cwd]``.  Source ``sh:<started ms>:<hash>`` (``sh:<started ms>:<seq>:<hash>``
    for a numbered one) makes a repeat call a no-op.
    A command starting with a space, a marked one, an excluded path or a
    no-capture session is not stored.

    The record goes to the spool first (:func:`spool_record`), then the
    spool is drained (:func:`drain_spool`, ``deadline_s``: by default
    ``order_wait_s`` plus the store's lock timeout): ``seq`` is the command's
    number in its shell (1, 2, …; 0 not numbered); a numbered record is
    stored once the shell's command ``seq - 1`` is handled (stored, or left
    out by the rules above), as ``cache/shell-seq/<session>`` says
    (:func:`shell_seq_handled`), or after ``order_wait_s`` seconds in the
    spool (a writer before it that failed or was not started: stored all
    the same, after its successor: order is lost, never a command).
    Returns the new id, or None (not stored by this call: left out, known,
    stored by another writer draining the spool, or left in the spool for
    the next one)."""
    mine = spool_record(store.root, session_id=session_id, command_line=command_line, cwd=cwd, status=status,
                        duration_ms=duration_ms, started_ms=started_ms, seq=seq, cfg=cfg)
    if mine is None:
        return None
    return drain_spool(store, order_wait_s=order_wait_s, mine=mine, log=log,
                       deadline_s=order_wait_s + store.lock_timeout if deadline_s is None else deadline_s)


def _prune_shell_seq(folder: Path, *, folders: bool = False) -> None:
    """Remove the files (``folders``: the empty folders) of shells untouched
    for :data:`SHELL_SEQ_KEEP_S`."""
    old = time.time() - SHELL_SEQ_KEEP_S
    try:
        with os.scandir(folder) as it:
            for e in it:
                if (e.is_dir(follow_symlinks=False) if folders else e.is_file(follow_symlinks=False)) \
                        and e.stat(follow_symlinks=False).st_mtime < old:
                    try:
                        os.rmdir(e.path) if folders else os.unlink(e.path)
                    except OSError:
                        pass   # a folder not empty: a record waits in it
    except OSError:
        pass


def shell_seq_handled(path: Path) -> int:
    """The number of the last command of a shell handled by
    :func:`capture_shell` (the file ``cache/shell-seq/<session>``: ASCII
    decimal and a newline, replaced whole); 0 when the file is missing or
    holds anything else (a cache: losing it loses order for one wait, never
    a command)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return 0
    return int(raw) if raw[-1:] == b"\n" and raw[:-1].isdigit() and len(raw) < 20 else 0
