"""The client side of the resident helper, run by the ``mem`` entry point
before it imports anything heavy (``_socket``, ``os``, ``sys`` only).

When a helper socket exists for the store this command line resolves to,
:func:`forward` sends the command (argv, working directory, the variables
the commands read, stdin when the command reads it, whether stdout and
stderr are terminals) and returns the helper's stdout, stderr and exit
status; otherwise, or when anything goes wrong before the helper has
answered (no socket, a dead one, a helper of another code version, no
greeting within :data:`HELLO_TIMEOUT_S`, an error frame, "run it
yourself"), it returns None and the caller runs the command in this
process, which prints the same bytes.  Wire format: ``docs/format.md``,
"Resident helper socket" (the server side: ``objstore.resident.server``).
"""

import os   # no ``from __future__ import annotations``: one module less to find on the client's path
import sys

MAGIC = b"MEMH"          # objstore.resident.server.MAGIC (tests/cmds/test_helper.py checks they agree)
PROTOCOL = 1
#: seconds to wait for the helper's greeting (a busy or stuck helper: run here)
HELLO_TIMEOUT_S = 0.5
#: seconds to wait for a hook's answer once sent (UserPromptSubmit's budget + margin):
#: after that the hook fails open (exit 0, no output)
HOOK_ANSWER_S = 2.5
#: seconds to wait for any other command's answer once sent, while the helper lives
ANSWER_S = 120.0
#: stdin bytes a forwarded command may send (``remember KEY -``); more: it runs here
MAX_STDIN = 32 << 20
#: the commands the helper runs
FORWARDED = ("get", "recall", "search", "context", "remember")
#: variables forwarded: these names, and every name with one of these prefixes
ENV_NAMES = ("HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "NO_COLOR", "COLUMNS", "LINES", "TERM",
             "PWD", "TMPDIR", "PATH", "PYTHONIOENCODING", "PYTHONUTF8")
ENV_PREFIXES = ("MEM_", "CLAUDE", "CODEX_", "GEMINI_", "CURSOR_", "LC_", "XDG_", "GIT_")
RUN_DIR, SOCKET_NAME = "run", "helper.sock"  # objstore.resident.server.helper_paths


def _u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def _b32(b: bytes) -> bytes:
    return _u32(len(b)) + b


def _str8(s: str) -> bytes:
    b = (s or "").encode("ascii", "replace")[:255]
    return bytes((len(b),)) + b


def store_root(home: str | None) -> str:
    """The store of this command line: ``--home``, ``$MEM_HOME``, ``~/.mem``
    (as ``cmds._out.home_from_env``)."""
    return os.path.expanduser(home or os.environ.get("MEM_HOME") or "~/.mem")


def blank_home(home: str | None) -> str | None:
    """Why ``home`` (``--home``; click hands a set ``$MEM_HOME`` in as it)
    or ``$MEM_HOME`` names no store, or None: ``--home`` empty or spaces
    alone, ``$MEM_HOME`` spaces alone (test41 T30: ``--home ''`` wrote into
    ``~/.mem``, ``--home ' '`` made a store named " " in the working
    folder).  An empty ``$MEM_HOME`` is unset, as click and
    ``$MEM_LOCK_TIMEOUT`` read one.  The one check: ``cmds._out.home_from_env``
    refuses it (exit 2), :func:`command_of` sends no such command on."""
    env = os.environ.get("MEM_HOME")
    if home is not None and not home.strip():
        what = "$MEM_HOME" if home and home == env else "--home"
    elif home is None and env and not env.strip():
        what, home = "$MEM_HOME", env
    else:
        return None
    return (f"{what} is {'empty' if not home else 'spaces alone'} ({home!r}): it names no store "
            "(an unset variable in a script?)")


def command_of(argv: list[str]) -> tuple[str | None, str | None]:
    """``(command, --home value)`` of a command line the helper may run:
    one of :data:`FORWARDED` after the root options, or ``"hook"`` for
    ``hook claude-code``; ``(None, None)`` for anything else (help,
    completion, other commands)."""
    home = None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--home" and i + 1 < len(argv):
            home = argv[i + 1]
            i += 2
        elif a.startswith("--home="):
            home = a[7:]
            i += 1
        elif a == "--lock-timeout" and i + 1 < len(argv):
            i += 2
        elif a.startswith("--lock-timeout="):
            i += 1
        else:
            break
    rest = argv[i:]
    if not rest or blank_home(home):   # refused here (exit 2), never sent to ~/.mem's helper (test41 T30)
        return None, None
    if rest == ["hook", "claude-code"]:
        return "hook", home
    if rest[0] in FORWARDED and "--help" not in rest and "-h" not in rest:
        return rest[0], home
    return None, None


def socket_path(root: str) -> str:
    """The helper socket of the store at ``root``."""
    return os.path.join(root, RUN_DIR, SOCKET_NAME)


def _version(pkg_parent: str) -> str:
    """The installed memvcs version: a ``memvcs-*.dist-info`` beside the
    packages (a pip install), else ``pyproject.toml``'s (a checkout)."""
    try:
        for name in os.listdir(pkg_parent):
            if name.startswith("memvcs-") and name.endswith(".dist-info"):
                return name[7:-10]
    except OSError:
        pass
    try:
        with open(os.path.join(pkg_parent, "pyproject.toml"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("version"):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return "unknown"


def source_stamp() -> bytes:
    """This code's stamp: ``memvcs <version> py<major.minor> <crc32>`` where
    the CRC-32 runs over the environment's prefix (``sys.prefix``: a venv)
    and the relative path, size
    and mtime (ns) of every ``.py`` file of ``cmds`` and ``objstore`` (an
    edit, a checkout or an upgrade changes it).  ~0.5 ms for ~180 files."""
    import binascii
    here = os.path.dirname(os.path.abspath(__file__))
    parent = os.path.dirname(here)
    crc = binascii.crc32(os.fsencode(sys.prefix))
    parts: list[bytes] = []
    stack = [os.path.join(parent, "cmds"), os.path.join(parent, "objstore")]
    while stack:
        d = stack.pop()
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name.endswith(".py"):
                try:
                    st = e.stat()
                except OSError:
                    continue
                parts.append(b"%s %d %d\n" % (os.fsencode(e.path[len(parent):]), st.st_size, st.st_mtime_ns))
            elif e.name != "__pycache__" and not e.name.startswith(".") and e.is_dir(follow_symlinks=False):
                stack.append(e.path)
    crc = binascii.crc32(b"".join(parts), crc)
    return b"memvcs %s py%d.%d %08x" % (_version(parent).encode("ascii", "replace"),
                                         sys.version_info[0], sys.version_info[1], crc)


def forwarded_env() -> dict[str, str]:
    """The variables a forwarded command may read (:data:`ENV_NAMES`,
    :data:`ENV_PREFIXES`)."""
    return {k: v for k, v in os.environ.items() if k in ENV_NAMES or k.startswith(ENV_PREFIXES)}


def _stream_info(s) -> tuple[str, str]:
    return (getattr(s, "encoding", None) or "utf-8"), (getattr(s, "errors", None) or "strict")


def encode_request(argv: list[str], stdin: bytes | None) -> bytes:
    """The run request frame for ``argv`` in this process's state."""
    flags = 0
    for bit, s in ((1, sys.stdout), (2, sys.stderr)):
        try:
            if s is not None and s.isatty():
                flags |= bit
        except (AttributeError, ValueError):
            pass
    if stdin is not None:
        flags |= 4
    mask = os.umask(0)
    os.umask(mask)
    try:
        cwd = os.fsencode(os.getcwd())
    except OSError:
        cwd = b""
    env = forwarded_env()
    body = [MAGIC, bytes((PROTOCOL,)), b"R", bytes((flags,)), (mask & 0o777).to_bytes(2, "big")]
    for s in (sys.stdin, sys.stdout, sys.stderr):
        enc, err = _stream_info(s)
        body += [_str8(enc), _str8(err)]
    body += [_b32(cwd), _u32(len(argv))] + [_b32(os.fsencode(a)) for a in argv]
    body.append(_u32(len(env)))
    for k, v in env.items():
        body += [_b32(os.fsencode(k)), _b32(os.fsencode(v))]
    body.append(_b32(stdin or b""))
    payload = b"".join(body)
    return _u32(len(payload)) + payload


class _Conn:
    """A connected socket with deadline reads."""

    def __init__(self, sock) -> None:
        self.sock = sock

    def read(self, n: int, timeout: float) -> bytes | None:
        import time
        buf = bytearray()
        deadline = time.monotonic() + timeout
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(min(n - len(buf), 1 << 20))
            except (TimeoutError, OSError):
                return None
            if not chunk:
                return None
            buf += chunk
        return bytes(buf)

    def frame(self, timeout: float, limit: int = 1 << 31) -> tuple[bytes, bytes] | None:
        head = self.read(4, timeout)
        if head is None:
            return None
        n = int.from_bytes(head, "big")
        if n < 6 or n > limit:
            return None
        body = self.read(n, timeout)
        if body is None or body[:4] != MAGIC or body[4] != PROTOCOL:
            return None
        return body[5:6], body[6:]


def hello_timeout() -> float:
    """Seconds to wait for the greeting: ``MEM_HELPER_WAIT`` (0.05-10, for a
    slow or heavily loaded machine), else :data:`HELLO_TIMEOUT_S`."""
    try:
        return min(10.0, max(0.05, float(os.environ["MEM_HELPER_WAIT"])))
    except (KeyError, ValueError):
        return HELLO_TIMEOUT_S


def store_identity(root: str) -> bytes | None:
    """The identity a helper of the store at ``root`` greets with: the
    root's device and inode, two big-endian uint64; None when it cannot be
    read."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return (st.st_dev & (2**64 - 1)).to_bytes(8, "big") + (st.st_ino & (2**64 - 1)).to_bytes(8, "big")


def connect(root: str, timeout: float | None = None, notes: list | None = None):
    """``(connection, helper pid, helper stamp)`` after the greeting, or None
    (no socket, refused, no greeting within ``timeout`` seconds, default
    :func:`hello_timeout`, or the helper of another store: its greeting's
    store identity is not ``root``'s, :func:`store_identity` -- a socket
    path linked to another store's helper, or a helper too old to say; then
    ``notes`` gets ``"another store"``)."""
    import _socket
    if timeout is None:
        timeout = hello_timeout()
    path = socket_path(root)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        if len(os.fsencode(path)) > 107:
            fd = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                sock.connect(f"/proc/self/fd/{fd}/{SOCKET_NAME}")
            finally:
                os.close(fd)
        else:
            sock.connect(path)
        conn = _Conn(sock)
        got = conn.frame(timeout, limit=1 << 17)
        if got is None or got[0] != b"H" or len(got[1]) < 6:
            sock.close()
            return None
        pid = int.from_bytes(got[1][:4], "big")
        n = int.from_bytes(got[1][4:6], "big")
        ident = got[1][6 + n:6 + n + 16]
        if len(ident) != 16 or ident != store_identity(root):   # not this store's helper: not a word to it
            sock.close()
            if notes is not None:
                notes.append("another store")
            return None
        return conn, pid, got[1][6:6 + n]
    except OSError:
        sock.close()
        return None


def send_op(conn: _Conn, op: bytes) -> None:
    """Send a request without payload (``S`` stop, ``X`` version mismatch)."""
    body = MAGIC + bytes((PROTOCOL,)) + op
    try:
        conn.sock.sendall(_u32(len(body)) + body)
    except OSError:
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except OSError:
        return True


def forward(argv: list[str], root: str, stdin: bytes | None, hook: bool = False) -> tuple[int, bytes, bytes] | None:
    """Run ``argv`` in the store's helper: ``(status, stdout, stderr)``, or
    None when the caller must run it itself.  For a hook that got no answer
    within :data:`HOOK_ANSWER_S` after sending: ``(0, b"", b"")`` (fail
    open)."""
    try:
        os.stat(socket_path(root))
    except OSError:
        return None
    got = connect(root)
    if got is None:
        return None
    conn, pid, stamp = got
    try:
        if stamp != source_stamp():
            send_op(conn, b"X")   # another code version: it exits, we run here
            return None
        try:
            conn.sock.sendall(encode_request(argv, stdin))
        except OSError:
            return None
        if hook:
            state = _peek(conn, HOOK_ANSWER_S)
            if state == "eof":
                return None           # it closed (died, refused): the hook runs here, within its budget
            ans = conn.frame(1.0) if state == "data" else None
            if ans is None:
                return 0, b"", b""    # taken but not answered in time: fail open
        else:
            import time
            deadline = time.monotonic() + ANSWER_S
            while True:   # the answer may take long (a big store): wait while the helper lives
                state = _peek(conn, 1.0)
                if state == "data":
                    break
                if state == "eof" or not _alive(pid) or time.monotonic() > deadline:
                    return None
            ans = conn.frame(30.0)
            if ans is None:
                return None
        op, body = ans
        if op != b"A" or len(body) < 8:
            return None
        status = int.from_bytes(body[:4], "big", signed=True)
        n = int.from_bytes(body[4:8], "big")
        out = body[8:8 + n]
        m = int.from_bytes(body[8 + n:12 + n], "big")
        err = body[12 + n:12 + n + m]
        return status, out, err
    finally:
        conn.sock.close()


def _peek(conn: _Conn, timeout: float) -> str:
    """``"data"``, ``"eof"`` or ``"wait"`` (nothing within ``timeout`` s)."""
    import _socket
    try:
        conn.sock.settimeout(timeout)
        return "data" if conn.sock.recv(1, _socket.MSG_PEEK) else "eof"
    except (BlockingIOError, TimeoutError):
        return "wait"
    except OSError:
        return "eof"


def write_out(out: bytes, err: bytes) -> None:
    """Write the helper's output to this process's stdout and stderr."""
    for fd, data in ((1, out), (2, err)):
        view = memoryview(data)
        while view:
            try:
                n = os.write(fd, view)
            except BrokenPipeError:
                break
            except OSError:
                break
            view = view[n:]


def disabled(env=None) -> bool:
    """``MEM_NO_HELPER=1`` (also true/yes/on): never use nor start a helper."""
    v = (os.environ if env is None else env).get("MEM_NO_HELPER") or ""
    return v.strip().lower() in ("1", "true", "yes", "on")


def start_detached(root: str, env=None) -> None:
    """Start ``mem helper serve`` for the store at ``root`` as a detached
    process (new session, stdio on /dev/null, working directory the store)
    and return at once; it exits at once if another helper holds the lock."""
    import subprocess
    root = os.path.abspath(root)   # the child runs in the store: a relative --home would name another place
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the child imports the same mem
    src = os.environ if env is None else env
    # only what a command may read (each request brings the client's own): no API key or token
    # of the agent's environment lives on in a process that stays for minutes
    env = {k: v for k, v in src.items() if k in ENV_NAMES or k.startswith(ENV_PREFIXES) or k == "PYTHONPATH"}
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    subprocess.Popen([sys.executable, "-m", "cmds", "--home", root, "helper", "serve"],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True, env=env, cwd=root)
