"""The resident helper's server: one process per store, one Unix socket in
the store, one request at a time.

Layout (``docs/format.md``, "Resident helper socket"): ``<store>/run/``
(mode 0700) holds ``helper.lock`` (flocked by the live helper for its
whole life: two starters, one helper) and ``helper.sock`` (mode 0600).
No TCP.  A connecting process whose uid (``SO_PEERCRED``) is not this
process's is closed without a word.  A request is at most
:data:`MAX_REQUEST` bytes; a client that stops sending for
:data:`IO_TIMEOUT_S` is dropped.

:func:`serve` runs the loop: it greets each connection with the helper's
code stamp, pid and store identity (the device and inode of the store
root: a client reaching this socket through a link from another store's
``run/`` sees that it is not its store's helper and leaves; on a stamp
mismatch it tells the helper to exit), reads one request, hands it to the
front end's ``handler`` and writes the answer.  It stops by itself after
``idle_s`` seconds without a request, when the store is removed, when its
socket is removed or replaced, and on a stop request.  Between requests it
refreshes the generations the index keeps open
(:func:`objstore.index.generations.keep_generations_open`), so that
segments another process removed (``forget``, ``gc``, ``reindex``) are not
held.  This module never prints and reads no process variables.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable

from objstore.core.errors import InvalidInput
from objstore.core.lock import lock_held

__all__ = [
    "MAGIC",
    "MAX_REQUEST",
    "PROTOCOL",
    "Reply",
    "Request",
    "decode_request",
    "encode_reply",
    "helper_paths",
    "helper_running",
    "serve",
]

MAGIC = b"MEMH"
PROTOCOL = 1
#: Largest request body (bytes after the length prefix) the helper reads:
#: the hook's stdin bound (32 MiB) plus room for argv and the variables.
MAX_REQUEST = 40 << 20
#: Seconds a connection may stay silent in the middle of a request.
IO_TIMEOUT_S = 2.0
#: Seconds between the loop's checks (idle time, store and socket still there).
TICK_S = 1.0

OP_HELLO, OP_RUN, OP_STOP, OP_VERSION = b"H", b"R", b"S", b"X"
OP_ANSWER, OP_FALLBACK, OP_ERROR = b"A", b"F", b"E"

RUN_DIR = "run"
SOCKET_NAME = "helper.sock"
LOCK_NAME = "helper.lock"
_UNIX_PATH_MAX = 107


@dataclass
class Request:
    """One command to run: ``argv`` (without the program name), ``cwd``,
    ``env`` (the variables the client forwarded), ``stdin`` bytes (empty
    unless ``stdin_given``), whether the client's stdout/stderr are
    terminals, its umask, and the encoding/errors of its three streams."""

    argv: list[str]
    cwd: str
    env: dict[str, str]
    stdin: bytes
    stdin_given: bool
    stdout_tty: bool
    stderr_tty: bool
    umask: int
    encodings: tuple[tuple[str, str], tuple[str, str], tuple[str, str]]


@dataclass
class Reply:
    """What the client writes and exits with.  ``after``: work to do once
    the answer is sent (the hook's capture, which a new process forks off)."""

    status: int
    stdout: bytes = b""
    stderr: bytes = b""
    after: Callable[[], None] | None = field(default=None, repr=False)


def helper_paths(root: str | os.PathLike) -> tuple[Path, Path, Path]:
    """``(run dir, socket path, lock path)`` of the store at ``root``."""
    d = Path(root) / RUN_DIR
    return d, d / SOCKET_NAME, d / LOCK_NAME


def helper_running(root: str | os.PathLike) -> bool:
    """True when a helper holds the store's helper lock (it is running or
    starting): ``objstore.core.lock.lock_held``.  Never creates the run
    directory."""
    return lock_held(helper_paths(root)[2])


# --------------------------------------------------------------------------- wire format

class _Reader:
    """Bounded reads from one request body; ValueError past its end."""

    def __init__(self, buf: bytes) -> None:
        self.buf, self.i = buf, 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.i + n > len(self.buf):
            raise ValueError("truncated request")
        b = self.buf[self.i:self.i + n]
        self.i += n
        return b

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return struct.unpack(">H", self.take(2))[0]

    def u32(self) -> int:
        return struct.unpack(">I", self.take(4))[0]

    def str8(self) -> str:
        return self.take(self.u8()).decode("ascii")

    def bytes32(self) -> bytes:
        return self.take(self.u32())


def decode_request(body: bytes) -> Request:
    """A run request's payload (after ``MAGIC``, version and ``R``) ->
    :class:`Request`.  Raises ValueError on any malformed or truncated
    field.  Layout: ``docs/format.md``, "Resident helper socket"."""
    r = _Reader(body)
    flags = r.u8()
    umask = r.u16() & 0o777
    encodings = tuple((r.str8(), r.str8()) for _ in range(3))
    cwd = os.fsdecode(r.bytes32())
    argc = r.u32()
    if argc > 4096:
        raise ValueError("too many arguments")
    argv = [os.fsdecode(r.bytes32()) for _ in range(argc)]
    envc = r.u32()
    if envc > 4096:
        raise ValueError("too many variables")
    env = {}
    for _ in range(envc):
        k = os.fsdecode(r.bytes32())
        env[k] = os.fsdecode(r.bytes32())
    stdin = r.bytes32()
    if r.i != len(body):
        raise ValueError("trailing bytes")
    return Request(argv=argv, cwd=cwd, env=env, stdin=stdin, stdin_given=bool(flags & 4),
                   stdout_tty=bool(flags & 1), stderr_tty=bool(flags & 2), umask=umask,
                   encodings=encodings)  # type: ignore[arg-type]


def _frame(op: bytes, payload: bytes = b"") -> bytes:
    body = MAGIC + bytes((PROTOCOL,)) + op + payload
    return struct.pack(">I", len(body)) + body


def encode_reply(reply: Reply | None) -> bytes:
    """The answer frame of ``reply``; None -> the fallback frame ("run it
    yourself")."""
    if reply is None:
        return _frame(OP_FALLBACK)
    return _frame(OP_ANSWER, struct.pack(">iI", reply.status, len(reply.stdout)) + reply.stdout
                  + struct.pack(">I", len(reply.stderr)) + reply.stderr)


def _error(message: str) -> bytes:
    m = message.encode("utf-8")
    return _frame(OP_ERROR, struct.pack(">I", len(m)) + m)


def _recv_exact(conn: socket.socket, n: int) -> bytes | None:
    """``n`` bytes, or None at EOF before the first byte; raises
    ConnectionError on EOF in the middle."""
    buf = bytearray()
    while len(buf) < n:
        chunk = conn.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            if not buf:
                return None
            raise ConnectionError("short read")
        buf += chunk
    return bytes(buf)


# --------------------------------------------------------------------------- the socket

def _check_dir(d: Path) -> None:
    """Make ``d`` (mode 0700, ours) or refuse one that is not ours / not a directory."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(d, 0o700)
    st = os.lstat(d)
    import stat as _stat
    if not _stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise InvalidInput(f"{d} is not a directory of this user: the helper does not use it")
    if st.st_mode & 0o777 != 0o700:
        os.chmod(d, 0o700)


@contextlib.contextmanager
def _short_path(path: Path):
    """``path`` as a socket address: itself, or through ``/proc/self/fd``
    when it is longer than a socket address may be."""
    if len(os.fsencode(path)) <= _UNIX_PATH_MAX:
        yield os.fspath(path)
        return
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)


def serve(root: str | os.PathLike, stamp: bytes, handler: Callable[[Request], Reply | None], *,
          idle_s: float = 900.0, ready: Callable[[], None] | None = None,
          between: Callable[[], None] | None = None, tick_s: float = TICK_S) -> str:
    """Serve the store at ``root`` until a reason to stop; returns it:
    ``"running"`` (another helper holds the lock: nothing was done),
    ``"idle"``, ``"stopped"`` (a stop request), ``"version"`` (a client of
    another code version), ``"store removed"``, ``"socket removed"``.

    ``stamp``: this code's version stamp (ASCII, at most 65535 bytes), sent
    in every greeting.  ``handler(request)``: run one command, return a
    :class:`Reply` or None for "not handled" (the client runs it itself);
    an exception it raises is sent as an error frame.  ``ready()``: called
    once the socket listens.  ``between()``: called after each request and
    on each tick (refresh caches).  Raises InvalidInput when the run
    directory is not usable, OSError when the socket cannot be made."""
    root = Path(root)
    run_dir, sock_path, lock_path = helper_paths(root)
    try:
        os.stat(root / "config")
        st = os.stat(root)
        root_id = st.st_ino
    except OSError:
        return "store removed"
    identity = struct.pack(">QQ", st.st_dev & (2**64 - 1), st.st_ino & (2**64 - 1))
    _check_dir(run_dir)
    lock_fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                return "running"
            raise
        return _serve_locked(root, root_id, identity, sock_path, stamp, handler, idle_s, ready, between, tick_s)
    finally:
        os.close(lock_fd)  # releases the flock (after the socket is gone)


def _serve_locked(root, root_id, identity: bytes, sock_path: Path, stamp: bytes, handler, idle_s, ready, between,
                  tick_s) -> str:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(sock_path)  # a dead helper's: we hold the lock
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        with _short_path(sock_path) as addr:
            listener.bind(addr)
    finally:
        os.umask(old_umask)
    os.chmod(sock_path, 0o600)
    sock_id = os.stat(sock_path).st_ino
    conns: list[socket.socket] = [listener]

    def close_in_child() -> None:  # a forked child must not hold the helper's sockets
        for s in conns:
            with contextlib.suppress(OSError):
                s.close()

    os.register_at_fork(after_in_child=close_in_child)
    try:
        listener.listen(16)
        listener.settimeout(tick_s)
        if ready is not None:
            ready()
        hello = _frame(OP_HELLO, struct.pack(">IH", os.getpid(), len(stamp)) + stamp + identity)
        last = time.monotonic()
        while True:
            try:
                conn, _addr = listener.accept()
            except (socket.timeout, InterruptedError):
                conn = None
            if conn is not None:
                conns.append(conn)
                try:
                    why = _handle(conn, hello, handler)
                finally:
                    conns.remove(conn)
                    with contextlib.suppress(OSError):
                        conn.close()
                if why == "request":
                    last = time.monotonic()
                elif why is not None:
                    return why
            _reap()
            if between is not None:
                between()
            if time.monotonic() - last > idle_s:
                return "idle"
            try:
                os.stat(root / "config")   # (rewritten by a migration: a new inode, same store)
                if os.stat(root).st_ino != root_id:
                    return "store removed"
            except OSError:
                return "store removed"
            try:
                if os.stat(sock_path).st_ino != sock_id:
                    return "socket removed"
            except OSError:
                return "socket removed"
    finally:
        try:
            if os.stat(sock_path).st_ino == sock_id:
                os.unlink(sock_path)
        except OSError:
            pass
        listener.close()


def _reap() -> None:
    """Collect exited children (a forked hook child, a started process)."""
    while True:
        try:
            pid, _st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _handle(conn: socket.socket, hello: bytes, handler) -> str | None:
    """Serve one connection.  Returns ``"request"`` after a run request, a
    reason to stop, or None (a probe, a refused or broken connection)."""
    try:
        cred = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", cred)
    except OSError:
        return None
    if uid != os.getuid():
        return None  # a stranger: not a word
    conn.settimeout(IO_TIMEOUT_S)
    try:
        conn.sendall(hello)
        head = _recv_exact(conn, 4)
        if head is None:
            return None  # a status probe: it read the greeting and left
        (n,) = struct.unpack(">I", head)
        if n > MAX_REQUEST:
            conn.sendall(_error(f"request too large ({n} bytes; at most {MAX_REQUEST})"))
            return None
        body = _recv_exact(conn, n)
        if body is None or len(body) < 6 or body[:4] != MAGIC or body[4] != PROTOCOL:
            conn.sendall(_error("not a mem helper request"))
            return None
        op = body[5:6]
        if op == OP_VERSION:
            return "version"
        if op == OP_STOP:
            conn.sendall(encode_reply(Reply(0)))
            return "stopped"
        if op != OP_RUN:
            conn.sendall(_error("unknown request"))
            return None
        try:
            req = decode_request(body[6:])
        except (ValueError, UnicodeError) as e:
            conn.sendall(_error(f"bad request: {e}"))
            return None
        try:
            reply = handler(req)
        except Exception as e:  # noqa: BLE001 - the client falls back on an error frame
            conn.sendall(_error(f"helper error: {type(e).__name__}"))
            return "request"
        try:
            conn.sendall(encode_reply(reply))
        finally:
            conn.close()      # the client is done: what follows is the helper's own work
            if reply is not None and reply.after is not None:
                reply.after()
        return "request"
    except (OSError, ConnectionError, socket.timeout):
        return None
