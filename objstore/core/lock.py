"""The store-wide lock that serialises writers and gc.

An exclusive ``fcntl.flock`` on ``<store>/locks/store.lock``.  The kernel drops
a flock when its process dies, so a lock left by a dead process never blocks
anyone: there is nothing stale to clear.  The file's content (pid, host, time,
command) is informational, for the error message of whoever waits.
Readers take no lock: they read refs, then objects (objects are immutable and
only gc deletes them, after the refs that reached them are gone).
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable
from pathlib import Path

from objstore.core.errors import IntegrityError, ReadOnlyStore, StoreLocked

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def _hostname() -> str:
    """This machine's name: ``uname``'s nodename, which is what
    ``socket.gethostname()`` returns on POSIX, without importing socket
    (~3 ms at start-up, paid by every writer)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket
    return socket.gethostname()


def _json_str(s: str) -> str | None:
    """``json.dumps(s)`` for a string of printable ASCII without ``"`` or
    ``\\`` (a host name, a command name): the same bytes, without loading
    ``json`` (~1.5-2 ms of a writer's start-up, docs/benchmarks.md "Session 17
    (branch `lat17`)"); None for any other string."""
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return f'"{s}"'
    return None


def holder_record(pid: int, host: str, command: str) -> Callable[[int], bytes]:
    """``record(time_s)``: the lock file's holder record, the bytes of
    ``json.dumps({"pid", "host", "time", "command"})`` (docs/format.md, "Store
    lock").  Built before the flock is taken, so that a first load of
    ``json`` (a host or command name that needs escaping) is not paid while
    others wait."""
    h, c = _json_str(host), _json_str(command)
    if h is None or c is None:
        import json
        return lambda t: json.dumps({"pid": pid, "host": host, "time": t, "command": command}).encode()
    return lambda t: f'{{"pid": {pid}, "host": {h}, "time": {t}, "command": {c}}}'.encode()


def lock_held(path: str | os.PathLike) -> bool:
    """True when a live process holds an flock on the file at ``path`` (the
    store lock, the resident helper's ``run/helper.lock``): a non-blocking
    shared flock attempt fails.  False when the file is missing, cannot be
    opened, or nobody holds it (the probe's own lock is released at once).
    A git-style ``<name>.lock`` file (``objstore.core.atomic.LockFile``) is
    never flocked: this says nothing about whether its writer lives."""
    if fcntl is None:  # pragma: no cover - Windows
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as e:
        return e.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK)
    finally:
        os.close(fd)
    return False


def pid_alive(pid: int) -> bool:
    """True unless the process ``pid`` on this machine is known to be gone
    (``kill(pid, 0)`` says no such process).  A pid that exists but belongs
    to another user, or a value that is not a pid, counts as alive: the safe
    side for callers that would otherwise delete or blame something."""
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError, ValueError, TypeError):
        return True
    return True


def describe_holder(info: dict) -> str:
    """The words a lock-busy message uses for the holder record ``info``
    (see :func:`lock_holder`): ``" by pid N (command)"`` when that process is
    alive (or on another host, where it cannot be checked), ``" by another
    process (the last recorded holder, pid N (command), has exited: …)"``
    when it is gone from this machine (test39 m1: "last held by …, which
    has exited" read as a lock nobody holds)
    (the lock is then held by a child it forked, or by a writer that has not
    yet written its own record), ``""`` when there is no record."""
    who = _who(info)
    if who is None:
        return ""
    what, gone = who
    return (f" by another process (the last recorded holder, {what}, has exited: a process it started or "
            f"another program holds the lock now)") if gone else f" by {what}"


def _who(info: dict) -> tuple[str, bool] | None:
    """``("pid N (command)", gone)`` of a holder record (``gone``: that
    process has exited, on this machine), or None when there is none."""
    pid = info.get("pid")
    if pid is None:
        return None
    host = info.get("host")
    return f"pid {pid} ({info.get('command') or '?'})", (host in (None, _hostname())) and not pid_alive(pid)


def _busy(info: dict, holders: int, timeout: float) -> StoreLocked:
    """The StoreLocked of a wait that timed out: ``info`` the last holder
    record, ``holders`` how many different holders the wait saw.  One
    holder: "store is locked by pid N (command)" (or "by another process
    (the last recorded holder, …, has exited …)": a child it forked or
    another program holds it).  Several: the lock was
    not stuck but busy, taken by one writer after another (a stream of
    hooks, an import beside them), and the last one is named as such."""
    who = _who(info)
    if holders > 1 and who is not None:
        last = who[0] + (", which has exited" if who[1] else "")
        return StoreLocked(f"store is busy: {holders} writers held the lock one after another while this "
                           f"command waited (the last: {last}); gave up after {timeout:g}s",
                           hint="run it again, or give it longer: --lock-timeout SECONDS (or $MEM_LOCK_TIMEOUT)")
    return StoreLocked(f"store is locked{describe_holder(info)}; gave up after {timeout:g}s",
                       hint="wait for it to finish, or raise --lock-timeout")


def lock_holder(path: str | os.PathLike) -> dict:
    """The record the holder of the store lock at ``path`` wrote (``pid``,
    ``host``, ``time``, ``command``), or ``{}`` when there is none or it
    cannot be read.  Informational: the record is written just after the
    flock is taken, so for a moment it may still name the previous
    holder."""
    import json   # here: a reader that takes no lock (get) never loads json (start-up)
    try:
        with open(path, "rb") as f:
            info = json.loads(f.read(4096) or b"{}")
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


class StoreLock:
    """Exclusive store-wide lock.

    Args:
        path: the lock file (``<store>/locks/store.lock``).
        timeout: seconds to wait for it (0 = try once).
        command: recorded in the lock file for diagnostics.
    Raises:
        StoreLocked: on ``acquire`` when not obtained within ``timeout``.
        ReadOnlyStore: the lock file cannot be created or opened for writing.
    """

    def __init__(self, path: Path, *, timeout: float = 10.0, command: str = "",
                 on_acquire=None) -> None:
        """``on_acquire``: called once the flock is taken (depth 1), e.g. to
        replay a crash journal; if it raises, the lock is released."""
        self.path = path
        self.timeout = timeout
        self.command = command
        self.on_acquire = on_acquire
        self._fd: int | None = None
        self.depth = 0
        #: the holder records (``pid``, ``host``, ``time`` in s, ``command``)
        #: this lock's last acquisition waited behind, in order (empty: it
        #: waited for none); e.g. a prompt's capture that waited for a ``mem
        #: forget`` (``objstore.capture.live.capture_prompt``)
        self.waited_for: list[dict] = []

    def acquire(self) -> None:
        """Take the lock (re-entrant within one StoreLock object)."""
        if self._fd is not None:
            self.depth += 1
            return
        record = holder_record(os.getpid(), _hostname(), self.command)   # before the flock
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)   # (W9: ELOOP)
        except OSError as e:
            if e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise ReadOnlyStore(f"the store at {self.path.parent.parent} is read-only "
                                    f"({e.strerror.lower()}): writing is not possible") from None
            if e.errno in (errno.EEXIST, errno.ENOTDIR, errno.EISDIR, errno.ELOOP):   # test30 R1: not a crash
                what = self.path.parent if e.errno in (errno.EEXIST, errno.ENOTDIR) else self.path
                raise IntegrityError(f"{what}: not a {'folder' if what == self.path.parent else 'file'} "
                                     f"({e.strerror.lower()}): the store lock cannot be taken, nothing was written",
                                     hint=f"move {what} out of the way (it holds no data), then run it again")\
                    from None
            raise
        deadline = time.monotonic() + self.timeout
        delay = 0.002
        holders: dict[tuple, None] = {}   # the holder records seen while waiting, in order
        while True:
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                info = self._record(fd)
                if info.get("pid") is not None:
                    holders[(info.get("pid"), info.get("host"), info.get("time"), info.get("command"))] = None
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise _busy(info, len(holders), self.timeout) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        self.waited_for = [dict(zip(("pid", "host", "time", "command"), h)) for h in holders]
        # fixed-size record, no ftruncate (which costs ~0.1-0.2 s on some filesystems)
        os.pwrite(fd, record(int(time.time()))[:255].ljust(256, b" "), 0)
        self._fd = fd
        self.depth = 1
        if self.on_acquire is not None:
            try:
                self.on_acquire()
            except BaseException:
                self.depth = 1
                self.release()
                raise

    @staticmethod
    def _record(fd: int) -> dict:
        """The holder record in the lock file (``{}``: none, unreadable)."""
        import json
        try:
            info = json.loads(os.pread(fd, 4096, 0) or b"{}")
        except (OSError, ValueError):
            return {}
        return info if isinstance(info, dict) else {}

    def release(self) -> None:
        """Release one level; the flock is dropped at depth 0."""
        if self._fd is None:
            return
        self.depth -= 1
        if self.depth > 0:
            return
        fd, self._fd = self._fd, None
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def abandon(self) -> None:
        """Close this process's descriptor of the lock file without
        unlocking, whatever the depth: for a process that forked a child to
        finish its write under the lock.  The flock belongs to the open
        file description, which the child shares, so the lock stays held
        until the child releases it or exits (``flock(2)``)."""
        fd, self._fd = self._fd, None
        self.depth = 0
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> StoreLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
